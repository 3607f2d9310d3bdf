// One conformance run's state, shared by its steps (run-cases.ts, run-end.ts, run-report.ts):
// the options it was given, its bounds, its ledger of what it made, and each case's result.
import { randomBytes } from "node:crypto";
import type { CallOptions } from "../daemon/client.js";
import type { Hello } from "../daemon/protocol.js";
import { coreGroups } from "../contract/kinds.js";
import type { Capabilities, ComputerProvider, ComputerSpec } from "../contract/provider.js";
import { capabilitiesUnder } from "../contract/runtime-capabilities.js";
import type { Runtime } from "../contract/runtime.js";
import type { CaseGroup, ConformanceCase, MountFor } from "./case.js";
import { CONFORMANCE_LABEL, Ledger } from "./ledger.js";
import type { CaseResult } from "./report.js";
import type { Shared } from "./shared.js";

export const LIFETIME_MS = 30 * 60_000;
export const CASE_TIMEOUT_MS = 3 * 60_000;
export const CLEANUP_TIMEOUT_MS = 60_000;
export const SHARED_TIMEOUT_MS = 3 * 60_000;
/** Cases in flight at once. */
export const CONCURRENCY = 8;

export type Progress =
  | { type: "shared"; state: "making" | "ready" | "failed"; words?: string }
  | { type: "group-start"; group: CaseGroup; cases: number }
  | { type: "group-end"; group: CaseGroup; passed: number; failed: number; skipped: number; ms: number }
  | { type: "cleanup" };

export interface ConformanceOptions extends CallOptions {
  image: string;
  /** Groups or case ids; leaving a Core case out makes the run partial. */
  only?: string[];
  /** A setting or machine kind: runs kindCases(kind) and adds the kind's verdict. Never with only. */
  kind?: string;
  /** Every computer of the run under this runtime, held to what the provider declares for it (default runc). */
  runtime?: Runtime;
  drifted?: ComputerProvider;
  mountFor?: MountFor;
  caseTimeoutMs?: number;
  cleanupTimeoutMs?: number;
  /** The bound on the shared computer's create and connect. */
  sharedTimeoutMs?: number;
  fixture?: string;
  fetch?: typeof fetch;
  /** The cases to run (default casesFor(kind)). */
  cases?: readonly ConformanceCase[];
  concurrency?: number;
  /** Words the provider's conformance module adds (conformanceNotes). */
  notes?: string[];
  onProgress?(event: Progress): void;
}

export interface Run {
  provider: ComputerProvider;
  caps: Capabilities;
  options: ConformanceOptions;
  runId: string;
  caseTimeoutMs: number;
  cleanupTimeoutMs: number;
  sharedTimeoutMs: number;
  progress: (event: Progress) => void;
  ledger: Ledger;
  /** The label every computer of the run carries. */
  runLabel: Record<string, string>;
  /** The spec each case's computers start from. */
  base: ComputerSpec;
  results: Map<string, CaseResult>;
  signal: AbortSignal | undefined;
}

/** The shared computer, or why there is none (only when a selected case runs on it). */
export interface SharedOutcome {
  shared?: Shared;
  problem?: string;
  hello?: Hello;
}

export function newRun(provider: ComputerProvider, options: ConformanceOptions): Run {
  const runId = randomBytes(4).toString("hex");
  const cleanupTimeoutMs = options.cleanupTimeoutMs ?? CLEANUP_TIMEOUT_MS;
  const runLabel = { [CONFORMANCE_LABEL]: runId };
  const caps = runCapabilities(provider.capabilities(), options.runtime);
  return {
    provider,
    caps,
    options,
    runId,
    caseTimeoutMs: options.caseTimeoutMs ?? CASE_TIMEOUT_MS,
    cleanupTimeoutMs,
    sharedTimeoutMs: options.sharedTimeoutMs ?? SHARED_TIMEOUT_MS,
    progress: options.onProgress ?? (() => {}),
    ledger: new Ledger(cleanupTimeoutMs),
    runLabel,
    base: {
      image: options.image,
      lifetimeMs: Math.min(LIFETIME_MS, caps.maxLifetimeMs),
      network: baseNetwork(caps),
      labels: runLabel,
      ...(options.runtime ? { runtime: options.runtime } : {}),
    },
    results: new Map(),
    signal: options.signal,
  };
}

/** The provider's row for the run's runtime; throws when it declares none (casesOfRun refuses such a run first). */
export function runCapabilities(caps: Capabilities, runtime: Runtime | undefined): Capabilities {
  const under = runtime === undefined ? caps : capabilitiesUnder(caps, runtime);
  if (typeof under === "string") throw new TypeError(under);
  return under;
}

/** None, unless the provider offers no none and its kind does not require it (a browser's is open alone). */
function baseNetwork(caps: Capabilities): "none" | "open" {
  const requiresNone = coreGroups(caps.kind, caps.daemon).includes("network:none");
  return caps.network.includes("none") || requiresNone ? "none" : "open";
}
