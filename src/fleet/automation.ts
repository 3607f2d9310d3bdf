// A run's computers as a stack, brought up, checked and torn down from a Node service: Pulumi's
// Automation API runs the caller's program (a function declaring resources with the SDK,
// @agentrun/computer/pulumi) inline through the real engine with this package's plugin, so no
// Node.js language host is needed. State is a local folder by default. Failures are results.
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { Unwrap } from "@pulumi/pulumi";
import { LocalWorkspace, PulumiCommand, type EngineEvent, type OpMap, type OpType, type ProjectSettings, type Stack } from "@pulumi/pulumi/automation/index.js";
import { packageRoot } from "../package.js";
import { pulumiFolder } from "./pulumi-cli.js";
import { fail, ok, type Result } from "../daemon/result.js";

/** A setting's value; `{ secret }` keeps its provider's settings encrypted in state and out of every message. */
export type Setting = string | number | boolean | string[] | { secret: string } | { [key: string]: Setting };

export interface ComputerStackOptions<O> {
  /** The stack's name: one per run, say. */
  stack: string;
  /** The program: declares the run's resources and returns its outputs, which up hands back typed. */
  program: () => O | Promise<O>;
  /** Encrypts the stack's secrets in state; the same one opens the stack again. */
  passphrase: string;
  /** The Pulumi project's name (default agentrun-computers); a stack's name is unique within it. */
  project?: string;
  /** Where state is kept: a folder (default ~/.agentrun/state, made 0700), or any Pulumi backend's URL. */
  state?: string;
  /** The stack's agentrun settings, by provider, as `agentrun:<provider>` config: `{ docker: { image } }`. */
  settings?: Record<string, Record<string, Setting>>;
  /** The folder holding the `pulumi` executable (default: the one `npm run setup` built, else PATH). */
  pulumi?: string;
  /** More environment for the CLI (PULUMI_HOME, say); the rest is this process's. */
  env?: Record<string, string>;
  /** Each resource's step as it starts and ends, and each line said on it (the plugin's waits). */
  onProgress?: (progress: Progress) => void;
  /** The engine's events, as the Automation API gives them. */
  onEvent?: (event: EngineEvent) => void;
}

/** What the engine is doing to one resource, or a line it or the plugin said. */
export type Progress =
  | { kind: "step"; op: OpType; type: string; name: string; status: "started" | "done" | "failed" }
  | { kind: "note"; severity: "info" | "info#err" | "warning" | "error"; message: string; type?: string; name?: string };

/** Changes by kind of step ({ create: 5 }, { same: 7 }). */
export type Changes = OpMap;

export interface Up<O> {
  outputs: Unwrap<O>;
  changes: Changes;
}

/** A resource the next up would change, and why. */
export interface Drifted {
  name: string;
  type: string;
  op: OpType;
  /** The fields that differ from what was declared. */
  fields: string[];
  /** A Computer's own words for each mismatch, as refresh read it back. */
  drift: string[];
}

export interface Check {
  /** True when the preview with refresh plans no change: everything is as declared. */
  asDeclared: boolean;
  changes: Changes;
  drifted: Drifted[];
}

export interface StepOptions {
  /** Cancels the step (the engine's cancel: the plugin ends its vendor calls). */
  signal?: AbortSignal;
}

export interface ComputerStack<O> {
  readonly name: string;
  /** Makes what the program declares, and hands back its outputs. */
  up(options?: StepOptions): Promise<Result<Up<O>>>;
  /** Reads every resource back and plans nothing: drift, changing nothing (preview with refresh). */
  check(options?: StepOptions): Promise<Result<Check>>;
  /** The outputs of the last up. */
  outputs(): Promise<Result<Unwrap<O>>>;
  /** Releases everything the stack made; with remove, forgets the stack too. */
  destroy(options?: StepOptions & { remove?: boolean }): Promise<Result<{ changes: Changes }>>;
  /** The Automation API's stack, for what this does not cover. */
  readonly stack: Stack;
}

const DEFAULT_PROJECT = "agentrun-computers";
// Steps that change nothing: a read-back, a resource as it was.
const UNCHANGED: ReadonlySet<OpType> = new Set(["same", "read", "refresh"]);
// A replace's own parts, said beside its replace step.
const PART_OF_REPLACE: ReadonlySet<OpType> = new Set([
  "create-replacement",
  "delete-replaced",
  "read-replacement",
  "discard-replaced",
  "remove-pending-replace",
]);

const urnParts = (urn: string) => {
  const parts = urn.split("::");
  const type = parts[2] ?? "";
  return { type: type.slice(type.lastIndexOf("$") + 1), name: parts[3] ?? "" };
};

/** A provider's settings as one config value, and whether it holds a secret. */
function settingValue(setting: Record<string, Setting>): { value: string; secret: boolean } {
  let secret = false;
  const plain = (v: Setting): unknown => {
    if (Array.isArray(v) || typeof v !== "object") return v;
    if ("secret" in v && typeof v.secret === "string" && Object.keys(v).length === 1) {
      secret = true;
      return v.secret;
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  };
  const value = JSON.stringify(plain(setting));
  return { value, secret };
}

const words = (error: unknown) => (error instanceof Error ? error.message : String(error)).trim();

/**
 * A project whose programs use this package's plugin from its own folder, so the engine never
 * looks for it elsewhere, and whose every up reads its resources back first (`refresh: always`),
 * so an up heals drift. The SDK's ProjectSettings type has neither `plugins` nor `options`, which the CLI reads.
 */
export function projectWithPlugin(name: string): ProjectSettings {
  const settings: ProjectSettings & { plugins: { providers: Array<{ name: string; path: string }> }; options: { refresh: "always" } } = {
    name,
    runtime: "nodejs",
    plugins: { providers: [{ name: "agentrun", path: path.join(packageRoot(), "provider", "bin") }] },
    options: { refresh: "always" },
  };
  return settings;
}

/**
 * Opens (or makes) the stack and sets its settings. The plugin is this package's provider/bin;
 * the program runs in this process.
 */
export async function computerStack<O>(options: ComputerStackOptions<O>): Promise<Result<ComputerStack<O>>> {
  const project = options.project ?? DEFAULT_PROJECT;
  const state = options.state ?? path.join(homedir(), ".agentrun", "state");
  const isUrl = /^[a-z][\w+.-]*:\/\//i.test(state);
  if (!options.passphrase) return fail("invalid", "computerStack needs a passphrase: it encrypts the stack's secrets in state", { field: "passphrase" });
  if (!isUrl && !path.isAbsolute(state))
    return fail("invalid", `state is a folder's absolute path or a backend's URL, not ${JSON.stringify(state)}`, { field: "state" });
  if (!isUrl) mkdirSync(state, { recursive: true, mode: 0o700 });
  // The project's files (Pulumi.yaml, the stack's config) beside its local state, else in a folder of the user's.
  const workDir = path.join(isUrl ? path.join(homedir(), ".agentrun", "projects") : path.join(state, "projects"), project);
  mkdirSync(workDir, { recursive: true, mode: 0o700 });

  const folder = options.pulumi ?? pulumiFolder();
  let stack: Stack;
  try {
    // The Automation API's root is the folder above bin/pulumi.
    const pulumiCommand = await PulumiCommand.get(folder && path.basename(folder) === "bin" ? { root: path.dirname(folder) } : {});
    const projectSettings = projectWithPlugin(project);
    stack = await LocalWorkspace.createOrSelectStack(
      { stackName: options.stack, projectName: project, program: async () => (await options.program()) as Record<string, unknown> },
      {
        workDir,
        pulumiCommand,
        projectSettings,
        secretsProvider: "passphrase",
        envVars: {
          PULUMI_BACKEND_URL: isUrl ? state : `file://${state}`,
          PULUMI_CONFIG_PASSPHRASE: options.passphrase,
          PULUMI_SKIP_UPDATE_CHECK: "true",
          ...options.env,
        },
      },
    );
    for (const [provider, setting] of Object.entries(options.settings ?? {})) {
      await stack.setConfig(`agentrun:${provider}`, settingValue(setting));
    }
  } catch (error) {
    return fail("failed", `the stack ${options.stack} could not be opened: ${words(error)}`);
  }
  return ok(stackOf<O>(stack, options));
}

function stackOf<O>(stack: Stack, options: ComputerStackOptions<O>): ComputerStack<O> {
  const outputsOf = (map: Record<string, { value: unknown }>) => Object.fromEntries(Object.entries(map).map(([k, v]) => [k, v.value])) as Unwrap<O>;

  /** Runs one engine operation with progress forwarded; a failure is a result in the engine's own words. */
  async function step<T>(
    what: string,
    signal: AbortSignal | undefined,
    work: (on: { onEvent: (e: EngineEvent) => void; signal?: AbortSignal }) => Promise<T>,
  ): Promise<Result<T>> {
    const errors: string[] = [];
    const onEvent = (event: EngineEvent) => {
      options.onEvent?.(event);
      const said = event.diagnosticEvent;
      if (said?.severity === "error") errors.push(said.message.trim());
      const progress = progressOf(event);
      if (progress) options.onProgress?.(progress);
    };
    try {
      return ok(await work({ onEvent, ...(signal ? { signal } : {}) }));
    } catch (error) {
      if (signal?.aborted) return fail("aborted", `${what} of the stack ${stack.name} was cancelled`);
      const said = errors.length > 0 ? errors.join("; ") : words(error);
      return fail("failed", `${what} of the stack ${stack.name} failed: ${said}`);
    }
  }

  return {
    name: stack.name,
    stack,
    up: ({ signal } = {}) =>
      step("up", signal, async (on) => {
        const r = await stack.up({ ...on, color: "never" });
        return { outputs: outputsOf(r.outputs), changes: r.summary.resourceChanges ?? {} };
      }),
    check: ({ signal } = {}) =>
      step("check", signal, async (on) => {
        const drifted: Drifted[] = [];
        const r = await stack.preview({
          ...on,
          refresh: true,
          color: "never",
          onEvent: (event) => {
            on.onEvent(event);
            const meta = event.resourcePreEvent?.metadata;
            if (!meta || UNCHANGED.has(meta.op) || PART_OF_REPLACE.has(meta.op) || meta.type === "pulumi:pulumi:Stack") return;
            const drift = meta.old?.outputs?.drift;
            drifted.push({
              ...urnParts(meta.urn),
              op: meta.op,
              fields: [...new Set([...(meta.diffs ?? []), ...(meta.keys ?? [])])],
              drift: Array.isArray(drift) ? drift.filter((d): d is string => typeof d === "string") : [],
            });
          },
        });
        const changes = r.changeSummary ?? {};
        return { asDeclared: Object.entries(changes).every(([op, n]) => UNCHANGED.has(op as OpType) || !n), changes, drifted };
      }),
    outputs: async () => {
      try {
        return ok(outputsOf(await stack.outputs()));
      } catch (error) {
        return fail("failed", `the outputs of the stack ${stack.name} could not be read: ${words(error)}`);
      }
    },
    destroy: async ({ signal, remove = false } = {}) => {
      const done = await step("destroy", signal, async (on) => ({ changes: (await stack.destroy({ ...on, color: "never" })).summary.resourceChanges ?? {} }));
      if (!done.ok || !remove) return done;
      try {
        await stack.workspace.removeStack(stack.name);
      } catch (error) {
        return fail("failed", `the stack ${stack.name} was destroyed but could not be removed: ${words(error)}`);
      }
      return done;
    },
  };
}

/** One engine event as progress: a step starting, done or failed, or a line said (debug lines left out). */
export function progressOf(event: EngineEvent): Progress | undefined {
  const started = event.resourcePreEvent?.metadata;
  if (started) return { kind: "step", op: started.op, ...urnParts(started.urn), status: "started" };
  const done = event.resOutputsEvent?.metadata;
  if (done) return { kind: "step", op: done.op, ...urnParts(done.urn), status: "done" };
  const failed = event.resOpFailedEvent?.metadata;
  if (failed) return { kind: "step", op: failed.op, ...urnParts(failed.urn), status: "failed" };
  const said = event.diagnosticEvent;
  if (said && (said.severity as string) !== "debug") {
    return { kind: "note", severity: said.severity, message: said.message.trim(), ...(said.urn ? urnParts(said.urn) : {}) };
  }
  return undefined;
}
