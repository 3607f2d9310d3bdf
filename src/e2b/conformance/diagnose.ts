#!/usr/bin/env node
// The live network diagnostic on E2B (AGENTRUN_COMPUTER_LIVE_E2B=1, the settings through the
// conformance module): one sandbox made as create makes one for network none, with a 10-minute
// E2B timeout; its read-back and the provider's check of it; computerd probe --diagnose run in it;
// one JSON line printed; the sandbox killed and read back gone, after an error or an abort too
// (SIGINT, SIGTERM, or its own 8-minute bound). The sandbox is linux on the base template unless
// COMPUTER_E2B_KIND or COMPUTER_E2B_TEMPLATE says otherwise: the network is the same on a desktop,
// which would start an X server for nothing. Exit 0 when a diagnosis came back and the sandbox
// reads gone, 1 otherwise, 2 with no live switch or a refused setting.
import { pathToFileURL } from "node:url";
import { create } from "../create.js";
import type { E2BSandboxClass } from "../sdk.js";
import { conformanceImage, liveProblem, settingsFromEnv } from "./module.js";

export const DIAGNOSE_BOUND_MS = 8 * 60_000;

export async function main(
  env: Record<string, string | undefined>,
  options: { signal?: AbortSignal; sdk?: E2BSandboxClass } = {},
): Promise<{ code: number; out: string; err: string }> {
  const problem = liveProblem(env);
  if (problem) return { code: 2, out: "", err: `e2b-diagnose: ${problem}` };
  let provider;
  try {
    provider = create({ ...settingsFromEnv(env), ...(options.sdk ? { sdk: options.sdk } : {}) });
  } catch (error) {
    return { code: 2, out: "", err: `e2b-diagnose: ${(error as Error).message}` };
  }
  const bound = AbortSignal.timeout(DIAGNOSE_BOUND_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, bound]) : bound;
  const read = await provider.diagnose(conformanceImage({ kind: env.COMPUTER_E2B_KIND || "linux" }, env), { signal });
  if (!read.ok) return { code: 1, out: JSON.stringify({ ok: false, error: read.error }), err: "" };
  return { code: read.value.gone ? 0 : 1, out: JSON.stringify({ ok: true, ...read.value }), err: "" };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const stop = new AbortController();
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => stop.abort(new Error(`${sig} received`)));
  const { code, out, err } = await main(process.env, { signal: stop.signal });
  if (out) process.stdout.write(`${out}\n`);
  if (err) process.stderr.write(`${err}\n`);
  process.exit(code);
}
