// Example READMEs followed literally, each from a fresh copy of the repository's layout to its
// teardown: every line exits as the README says (0), and what it leaves is what it says it leaves.
import { rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { docker, egressParts } from "../support/docker.js";
import { computersNamed, expectGone, followedAsWritten } from "../support/readme.js";

const RUN_FOLDER = "/var/tmp/agentrun/examples/runs/r1/work";
followedAsWritten(
  "run-folder",
  "its mode changed by hand and put back by a plain up; the folder is kept after destroy, 1000:1000 and 0700",
  async ({ ran }) => {
    expect(ran.stdout).toMatch(/agentrun:index:Mount\s+work\s+updated/);
    const st = await stat(RUN_FOLDER);
    expect([st.uid, st.gid, st.mode & 0o7777]).toEqual([1000, 1000, 0o700]);
  },
  { after: () => rm(RUN_FOLDER, { recursive: true, force: true }), timeoutMs: 300_000 },
);

followedAsWritten("fleet", "up, a clean preview, one stopped by hand healed by a plain up, a new epoch, destroy and the stack removed", ({ ran }) => {
  const healed = ran.stdout.split("Updating (dev)")[2] ?? "";
  expect(healed).toMatch(/agentrun:index:Computer\s+\w+\s+replaced\b.*\[diff: ~state\]/);
  expect(healed).toMatch(/\+-1 replaced/);
});

const AUTOMATION_STATE = join(tmpdir(), `agentrun-readme-automation-${process.pid}`);
followedAsWritten(
  "automation",
  "compiled, five computers each ran the command, and none is left",
  async ({ ran }) => {
    const lines = ran.stdout.split("\n").filter((l) => / exited /.test(l));
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line).toMatch(/^computer-[0-9a-f]{12} exited 0: Linux /);
    await expectGone(lines.map((l) => l.split(" ")[0]!));
  },
  { env: { STATE: AUTOMATION_STATE }, at: "root", after: () => rm(AUTOMATION_STATE, { recursive: true, force: true }) },
);

followedAsWritten(
  "allowlist",
  "the proxy and its computers, a clean preview, the proxy stopped by hand named state and healed by a plain up, the list narrowed as an update of the proxy alone, nothing left",
  async ({ ran }) => {
    // Stopped by hand: the proxy's preview names state, and each computer behind it says so in its own drift.
    expect(ran.stdout).toMatch(/agentrun:index:EgressProxy\s+pypi\s+updated\b.*\[diff: ~state\]/);
    expect(ran.stdout.match(/its egress proxy proxy-[0-9a-f]{12} is stopped, so it reaches nothing/g)?.length).toBeGreaterThanOrEqual(2);
    expect(ran.stdout.match(/agentrun:index:EgressProxy\s+pypi\s+updated/g)).toHaveLength(2);
    // The computers were made once, by the first up, and never again.
    expect(ran.stdout.match(/agentrun:index:Computer\s+builder\s+created/g)).toHaveLength(1);
    expect(ran.stdout).not.toMatch(/agentrun:index:Computer\s+(builder|tester)\s+replaced/);
    const proxy = /proxy\s*:\s*"(proxy-[0-9a-f]{12})"/.exec(ran.stdout)?.[1];
    expect(proxy, ran.stdout).toBeDefined();
    expect(await egressParts(proxy!)).toEqual({ containers: "", volumes: "" });
  },
);

followedAsWritten("drift-check", "as declared, 7 once stopped by hand naming state and saying it stopped, as declared after a plain up", async ({ ran }) => {
  expect(ran.stdout).toMatch(/\[diff: ~state\]/);
  expect(ran.stdout).toMatch(/stopped before its deadline \S+ \(by hand, or its programs ended\)/);
  expect(ran.stderr).toMatch(/drift check: the stack dev has drifted/);
  await expectGone(computersNamed(ran.stdout));
});

followedAsWritten("desktop", "a desktop of 1280x800, as declared, stopped by hand and made again by a plain up, then nothing left", async ({ ran }) => {
  expect(ran.stdout).toMatch(/\{"height":800,"width":1280\}/);
  expect(ran.stdout).toMatch(/agentrun:index:Computer\s+desktop\s+replaced\b.*\[diff: ~state\]/);
  await expectGone(computersNamed(ran.stdout));
});

followedAsWritten(
  "desktop-browser",
  "a desktop with Chromium on its display, the page's window found, Chromium killed by hand shown as drift and launched again by a plain up, then nothing left",
  async ({ ran }) => {
    expect(ran.stdout).toMatch(/"title"\s*:\s*"Welcome, agent - Chromium"/);
    // Killed by hand: the app alone is planned, and the up launches it again; the desktop stays.
    expect(ran.stdout).toMatch(/agentrun:index:ComputerApp\s+browser\s+update\s+\[diff: ~drift\]/);
    expect(ran.stdout).toMatch(/agentrun:index:ComputerApp\s+browser\s+updated/);
    expect(ran.stdout).not.toMatch(/agentrun:index:Computer\s+desktop\s+replaced/);
    await expectGone(computersNamed(ran.stdout));
  },
);

followedAsWritten(
  "docker-browsers",
  "three browsers from a Fleet, a clean preview, one Chromium killed by hand shown as drift and made again by a plain up, then nothing left",
  async ({ ran }) => {
    expect(ran.stdout).toContain("the browser has ended: Chromium was killed (SIGKILL");
    expect(ran.stdout).toMatch(/agentrun:index:Computer\s+browsers-0\s+replaced\b.*\[diff: ~drift\]/);
    expect(ran.stdout).not.toMatch(/browsers-[12]\s+replaced/);
    await expectGone(computersNamed(ran.stdout));
  },
);

followedAsWritten(
  "ci-deadline",
  "the check passes within the deadline, fails naming the computer past it, and passes once the sweep deleted it",
  async ({ ran }) => {
    const [name] = computersNamed(ran.all);
    expect(ran.stderr).toContain(`deadline check: these computers have outlived their deadline: ${name}`);
    expect(ran.stdout.match(/deadline check: no computer has outlived its deadline/g)).toHaveLength(2);
    await expectGone([name!]);
  },
);

// A vendor's example runs here up to its `pulumi up` (these machines reach no vendor): the stack,
// its settings from the reader's variables, and a preview that checks every field and makes nothing.
// The plugin's connection test of the keys is off for it (a test's seam, under the test flag):
// each vendor's key check is held at its fake (test/pulumi/<vendor>.e2e.test.ts).
const KEYS_UNCHECKED = { AGENTRUN_COMPUTER_TEST: "1", AGENTRUN_COMPUTER_TEST_KEYS_UNCHECKED: "1" };
// not a list of vendors: the examples that run here by their folders' names, each with its own variables.
const STAND_INS: Record<string, Record<string, string>> = {
  e2b: { E2B_API_KEY: "e2b_stand-in" },
  daytona: { DAYTONA_API_KEY: "dtn_stand-in" },
  modal: { MODAL_TOKEN_ID: "ak-stand-in", MODAL_TOKEN_SECRET: "as-stand-in" },
  browser: { BROWSERBASE_API_KEY: "bb_stand-in", BROWSERBASE_PROJECT_ID: "stand-in" },
  phone: { PHONE_HARNESS_API_KEY: "ph_stand-in" },
};
for (const [example, env] of Object.entries(STAND_INS)) {
  followedAsWritten(
    example,
    "up to pulumi up, with stand-in keys: the stack, its secrets kept secret, a preview that makes nothing",
    async ({ ran, steps }) => {
      expect(steps.at(-1)).toMatch(/^pulumi preview\b/);
      expect(ran.stdout).toMatch(/Resources:\s*\n\s*\+ \d+ to create/);
      for (const value of Object.values(env)) expect(ran.all).not.toContain(value);
    },
    { env: { ...env, ...KEYS_UNCHECKED }, until: /^pulumi up\b/, timeoutMs: 120_000 },
  );
}

followedAsWritten(
  "task-env",
  "the verifier's reward 1, a clean preview, the CSV edited inside planned and healed as the file's update alone, then nothing left",
  async ({ ran }) => {
    expect(ran.stdout).toMatch(/passed\s*:\s*true/);
    // The preview after the edit plans what the up then does: the file's update, no command run again.
    // (The edit's preview, and the heal's own preview before it updates.)
    const planned = ran.stdout.split("Previewing update (dev)").filter((p) => /~ 1 to update/.test(p));
    expect(planned.length, ran.stdout).toBe(2);
    for (const p of planned) {
      expect(p).toMatch(/~\s+agentrun:index:ComputerFiles\s+task-files\s+update\s+\[diff: ~drift\]/);
      expect(p).not.toMatch(/to replace/);
    }
    const healed = ran.stdout.split("Updating (dev)")[2] ?? "";
    expect(healed).toMatch(/agentrun:index:ComputerFiles\s+task-files\s+updated\b.*\[diff: ~drift\]/);
    expect(healed).toMatch(/~ 1 updated/);
    expect(healed).not.toMatch(/replaced/);
    expect(ran.stdout).toMatch(/reward\s*:\s*1\b/);
    await expectGone(computersNamed(ran.stdout));
  },
);

const FLEET_FOLDER = "/var/tmp/agentrun/examples/fleet-component";
followedAsWritten(
  "fleet-component",
  "ten computers and a pool, a clean preview, one child stopped by hand made again by a plain up, a size of 12 adding two at the tail alone, nothing left",
  async ({ ran }) => {
    expect(ran.stdout.split("Updating (dev)")[2]).toMatch(/agentrun:index:Computer\s+agents-\d+\s+replaced\b.*\[diff: ~state\]/);
    const grown = ran.stdout.slice(ran.stdout.lastIndexOf("Updating (dev)"), ran.stdout.indexOf("Destroying (dev)"));
    expect(grown).toMatch(/agentrun:index:Computer\s+agents-10\s+created/);
    expect(grown).toMatch(/agentrun:index:Computer\s+agents-11\s+created/);
    expect(grown).not.toMatch(/agents-\d\s+(replaced|deleted|updated)/);
    await expectGone(computersNamed(ran.stdout));
  },
  { after: () => rm(FLEET_FOLDER, { recursive: true, force: true }) },
);

followedAsWritten(
  "api-key",
  "the agent's read answered with the items (the proxy set the key), its write refused in the proxy's words and never arriving, a clean preview, nothing left",
  async ({ ran }) => {
    expect(ran.stdout).toMatch(/HTTP\/1\.0 200 OK\n+\{"items":\[/);
    expect(ran.stdout).toContain(
      "403 POST /v1/items is not allowed for api.example.test on this box's network list: ask the platform team to widen examples/api-key",
    );
    expect(ran.stdout).toContain("GET /v1/items: 200 OK, the key matched");
    expect(ran.stdout).not.toMatch(/^POST /m);
    expect(ran.stdout).toMatch(/^0$/m);
    // Stopped by hand and healed by a plain up: the proxy's update alone, the agent made once.
    expect(ran.stdout).toMatch(/agentrun:index:EgressProxy\s+api\s+updated\b.*\[diff: ~state\]/);
    expect(ran.stdout.match(/agentrun:index:Computer\s+agent\s+created/g)).toHaveLength(1);
    expect(ran.stdout).not.toMatch(/agentrun:index:Computer\s+agent\s+replaced/);
    const proxy = /proxy\s*:\s*"(proxy-[0-9a-f]{12})"/.exec(ran.stdout)?.[1];
    expect(proxy, ran.stdout).toBeDefined();
    expect(await egressParts(proxy!)).toEqual({ containers: "", volumes: "" });
    await expectGone(computersNamed(ran.stdout));
    expect((await docker("network", "inspect", "agentrun-example-api")).exitCode).not.toBe(0);
  },
  // The stand-in API the README starts, removed by its name when a line before its own removal failed.
  { after: async () => void (await docker("rm", "--force", "agentrun-example-api"), await docker("network", "rm", "agentrun-example-api")) },
);
