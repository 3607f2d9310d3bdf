// agentrun doctor against the Docker engine, the vendors' fakes and (with AGENTRUN_KUBE_TESTS=1)
// the test cluster: a line per configured provider saying where its calls go and that its test
// passed, and a broken one (a wrong key) named with its class and no key, exiting 1.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DoctorLine } from "../../src/cli/doctor.js";
import { useBrowserbaseFake, useKernelFake } from "../support/browser-helpers.js";
import { agentrun } from "../support/cli-helpers.js";
import { useDaytonaFake } from "../support/daytona-helpers.js";
import { startFakePhoneHarness, type FakePhoneHarness } from "../support/fake-phone-harness.js";
import { KUBE_ASKED, testCluster } from "../support/kube.js";

// not a list of vendors: the keys of the fakes this test starts.
const keys = {
  daytona: `dtn_${randomBytes(12).toString("hex")}`,
  kernel: `kernel_${randomBytes(12).toString("hex")}`,
  browserbase: `bb_${randomBytes(12).toString("hex")}`,
};
const wrong = `bb_wrong_${randomBytes(12).toString("hex")}`;
const daytona = useDaytonaFake(keys.daytona);
const kernel = useKernelFake(keys.kernel);
const browserbase = useBrowserbaseFake(keys.browserbase, "proj-doctor");
let phone: FakePhoneHarness;
const dir = mkdtempSync(join(tmpdir(), "agentrun-doctor-"));
beforeAll(async () => void (phone = await startFakePhoneHarness()), 60_000);
afterAll(async () => {
  await phone?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("agentrun doctor", () => {
  it("says where each configured provider's calls go and that its test passed; a wrong key is its line's failure, exit 1", async () => {
    const kube = KUBE_ASKED ? await testCluster() : undefined;
    const flags = [
      ["daytona.apiKey", keys.daytona],
      ["daytona.apiUrl", daytona.fake.apiUrl],
      ["kernel.apiKey", keys.kernel],
      ["kernel.apiUrl", kernel.fake.apiUrl],
      ["browserbase.apiKey", wrong],
      ["browserbase.projectId", "proj-doctor"],
      ["browserbase.apiUrl", browserbase.fake.apiUrl],
      ["phone-harness.apiKey", phone.key],
      ["phone-harness.baseUrl", phone.url],
      ["phone-harness.ledger", join(dir, "phones.json")],
      ...(kube ? [["kubernetes.kubeconfig", kube.text]] : []),
    ].flatMap(([k, v]) => ["--set", `${k}=${v}`]);
    const json = await agentrun(["doctor", "--json", ...flags]);
    expect(json.exitCode, String(json.stderr)).toBe(1);
    const lines = JSON.parse(String(json.stdout)) as DoctorLine[];
    const by = Object.fromEntries(lines.map((l) => [l.provider, l]));
    // not a list of vendors: the lines this test configured.
    expect(Object.keys(by).sort()).toEqual(["browserbase", "daytona", "docker", "kernel", ...(kube ? ["kubernetes"] : []), "phone-harness"].sort());
    expect(by.docker).toMatchObject({
      ok: true,
      code: null,
      target: expect.stringMatching(/^the engine at unix:\/\//),
      detail: expect.stringMatching(/^Docker answers; /),
    });
    expect(by.daytona).toMatchObject({ ok: true, target: daytona.fake.apiUrl, detail: expect.stringMatching(/^Daytona answers; /) });
    expect(by.kernel).toMatchObject({ ok: true, target: kernel.fake.apiUrl });
    expect(by["phone-harness"]).toMatchObject({ ok: true, target: phone.url, detail: expect.stringMatching(/^the phone harness answers; /) });
    if (kube) expect(by.kubernetes).toMatchObject({ ok: true, target: expect.stringMatching(/^the API server at https:\/\/.*, namespace /) });
    expect(by.browserbase).toMatchObject({ ok: false, code: "unauthorized", target: browserbase.fake.apiUrl });
    for (const key of [wrong, ...Object.values(keys)]) expect(`${json.stdout}${json.stderr}`).not.toContain(key);
    // The table: a line each, the broken one's class in its TEST column.
    const shown = await agentrun(["doctor", ...flags]);
    expect(shown.exitCode).toBe(1);
    const rows = String(shown.stdout).trim().split("\n");
    expect(rows[0]!.split(/\s+/)).toEqual(["PROVIDER", "TARGET", "TEST", "DETAIL"]);
    expect(rows).toHaveLength(lines.length + 1);
    expect(rows.find((r) => r.startsWith("browserbase"))).toMatch(/\sunauthorized\s/);
    expect(rows.find((r) => r.startsWith("docker"))).toMatch(/\sok\s+Docker answers/);
  }, 120_000);

  it("refuses a --set that names no provider, in words", async () => {
    const refused = await agentrun(["doctor", "--set", "nowhere.key=1"]);
    expect(refused.exitCode).toBe(2);
    expect(String(refused.stderr)).toContain("--set takes <provider>.<key>=<value>");
  });
});
