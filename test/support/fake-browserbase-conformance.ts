// The conformance module of the Browserbase provider on its fake (test only):
// npm run conformance -- --provider ./dist/test/support/fake-browserbase-conformance.js --kind browser
// The fake runs in the CLI's process; its sessions' containers carry the fake's run label
// AGENTRUN_BROWSERBASE_FAKE_RUN (one made up when unset), by which a caller removes any left.
import { randomBytes } from "node:crypto";
import { create } from "../../src/browserbase/create.js";
import type { BrowserbaseProvider } from "../../src/browserbase/provider.js";
import { BROWSER_IMAGE } from "../../src/kits/browser/labels.js";
import { FakeBrowserbase } from "./fake-browserbase.js";

export const ENV = ["AGENTRUN_BROWSERBASE_FAKE_RUN"] as const;
const run = process.env.AGENTRUN_BROWSERBASE_FAKE_RUN || `conformance-${randomBytes(6).toString("hex")}`;
const apiKey = `bb_fake_${randomBytes(8).toString("hex")}`;
const projectId = `proj-${randomBytes(4).toString("hex")}`;
let fake: Promise<FakeBrowserbase> | undefined;

export async function createProvider(): Promise<BrowserbaseProvider> {
  fake ??= FakeBrowserbase.start({ apiKey, projectId, run, prefix: `agentrun-bbconf-${run}` });
  return create({ apiKey, projectId, apiUrl: (await fake).apiUrl });
}

export function conformanceImage(): string {
  return BROWSER_IMAGE;
}

export const conformanceNotes: string[] = [
  `Browserbase on its fake (run label ${run}): every session a hardened headless Chromium container, CDP on 127.0.0.1`,
];
