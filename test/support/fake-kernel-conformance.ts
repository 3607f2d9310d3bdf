// The conformance module of the Kernel provider on its fake (test only):
// npm run conformance -- --provider ./dist/test/support/fake-kernel-conformance.js --kind browser
// The fake runs in the CLI's process; its browsers' containers carry the fake's run label
// AGENTRUN_KERNEL_FAKE_RUN (one made up when unset), by which a caller removes any left.
import { randomBytes } from "node:crypto";
import { BROWSER_IMAGE } from "../../src/kits/browser/labels.js";
import { create } from "../../src/kernel/create.js";
import type { KernelProvider } from "../../src/kernel/provider.js";
import { FakeKernel } from "./fake-kernel.js";

export const ENV = ["AGENTRUN_KERNEL_FAKE_RUN"] as const;
const run = process.env.AGENTRUN_KERNEL_FAKE_RUN || `conformance-${randomBytes(6).toString("hex")}`;
const apiKey = `kernel_fake_${randomBytes(8).toString("hex")}`;
let fake: Promise<FakeKernel> | undefined;

export async function createProvider(): Promise<KernelProvider> {
  fake ??= FakeKernel.start({ apiKey, run, prefix: `agentrun-kconf-${run}` });
  return create({ apiKey, apiUrl: (await fake).apiUrl });
}

export function conformanceImage(): string {
  return BROWSER_IMAGE;
}

export const conformanceNotes: string[] = [`Kernel on its fake (run label ${run}): every browser a hardened headless Chromium container, CDP on 127.0.0.1`];
