// agentrun ls and agentrun cdp on Browserbase's fake: browsers listed beside the rest, and a
// browser's CDP URL printed on demand, asked of the vendor now (a process that did not make it).
import { beforeAll, describe, expect, it } from "vitest";
import { create } from "../../src/browserbase/create.js";
import type { BrowserbaseProvider } from "../../src/browserbase/provider.js";
import { openCdp } from "../../src/conformance/cdp.js";
import { orThrow } from "../../src/daemon/result.js";
import type { ComputerRef } from "../../src/contract/provider.js";
import { useBrowserbaseFake } from "../support/browser-helpers.js";
import { agentrun } from "../support/cli-helpers.js";
import { afterAll } from "vitest";

const KEYS = { apiKey: `bb_cli_${process.pid}_0123456789`, projectId: "proj-cli" };
const held = useBrowserbaseFake(KEYS.apiKey, KEYS.projectId);
let provider: BrowserbaseProvider;
let ref: ComputerRef;
const settings = () => [
  "--provider",
  "browserbase",
  "--set",
  `apiKey=${KEYS.apiKey}`,
  "--set",
  `projectId=${KEYS.projectId}`,
  "--set",
  `apiUrl=${held.fake.apiUrl}`,
];

beforeAll(async () => {
  provider = create({ ...KEYS, apiUrl: held.fake.apiUrl });
  ref = orThrow(await provider.create({ image: "chromium", lifetimeMs: 300_000, network: "open", labels: { "agentrun.test": "bb-cli" } }));
}, 120_000);

afterAll(async () => {
  if (ref) orThrow(await provider.release(ref, "delete"));
});

describe("agentrun on browsers", () => {
  it("ls shows the browser with its kind, with no label given", async () => {
    const ls = await agentrun(["ls", ...settings()]);
    expect(ls.exitCode, String(ls.stderr)).toBe(0);
    const rows = String(ls.stdout).trim().split("\n");
    expect(rows[0]!.split(/\s+/)).toEqual(["NAME", "KIND", "STATE", "DEADLINE", "RUN", "EPOCH", "DRIFT"]);
    expect(rows[1]!.split(/\s+/).slice(0, 3)).toEqual([ref.name, "browser", "running"]);
    expect(String(ls.stdout)).not.toContain("signingKey");
  });

  it("cdp prints the URL, piped, and a driver reaches the browser through it", async () => {
    const printed = await agentrun(["cdp", ref.name, ...settings()]);
    expect(printed.exitCode, String(printed.stderr)).toBe(0);
    const url = String(printed.stdout).trim();
    const cdp = await openCdp(url);
    try {
      expect(String((await cdp.send("Browser.getVersion")).product)).toMatch(/Chrome\//);
    } finally {
      cdp.close();
    }
  });

  it("cdp of a name that is not there is a usage refusal naming what there is", async () => {
    const printed = await agentrun(["cdp", "computer-000000000000", ...settings()]);
    expect(printed.exitCode).toBe(2);
    expect(String(printed.stderr)).toContain(`there is no computer "computer-000000000000" at browserbase (there are ${ref.name})`);
  });
});
