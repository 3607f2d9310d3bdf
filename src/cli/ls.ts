// agentrun ls [--label k=v]...: the provider's computers, each with its kind, state, deadline, run
// and epoch, and its drift in a word (ok, stopped, or how many mismatches; --json has each in words).
import type { Command } from "commander";
import { EPOCH_LABEL, RUN_LABEL } from "../contract/labels.js";
import { listComputers, type Listing } from "../fleet/listing.js";
import type { ComputerProvider } from "../contract/provider.js";
import type { Context } from "./context.js";
import { everyOwn } from "./computer.js";
import { failed } from "./errors.js";
import { collect, pairs, providerOf, type ProviderFlags, withProviderOptions } from "./settings.js";
import { table } from "./table.js";

export interface Listed {
  name: string;
  id: string;
  provider: string;
  kind: string;
  state: string;
  deadline: string | null;
  run: string | null;
  epoch: string | null;
  labels: Record<string, string>;
  /** ok, stopped, how many mismatches the drift check found (each in driftWords), or unknown when it could not be read. */
  drift: string;
  /** Every mismatch in words (or why it could not be read). */
  driftWords: string[];
}

/** ok; stopped (the first of the drift's sentences says how); and how many mismatches besides. */
export function driftInAWord(state: string, mismatches: number): string {
  const others = state === "stopped" ? mismatches - 1 : mismatches;
  const counted = others > 0 ? `${others} mismatch${others > 1 ? "es" : ""}` : "";
  if (state !== "stopped") return counted || "ok";
  return counted ? `stopped, ${counted}` : "stopped";
}

/** One listed computer as ls shows it (agentrun ui's tiles too): the drift in a word and in words. */
export function listedOf(provider: ComputerProvider, { info, kind, state, drift, readBack }: Listing): Listed {
  return {
    name: info.ref.name,
    id: info.ref.id,
    provider: provider.id,
    kind,
    state,
    deadline: info.deadline?.toISOString() ?? null,
    run: info.labels[RUN_LABEL] ?? null,
    epoch: info.labels[EPOCH_LABEL] ?? null,
    labels: info.labels,
    drift: !readBack ? "unknown" : driftInAWord(state, drift.length),
    driftWords: drift,
  };
}

export function lsCommand(program: Command, context: Context): Command {
  const command = program
    .command("ls")
    .description("list the computers: name, kind, state, deadline, run, epoch and drift")
    .option("--label <k=v>", "only computers with this label (repeatable)", collect)
    .option("--json", "the list as JSON on stdout");
  withProviderOptions(command);
  return command.action(async (flags: ProviderFlags & { label?: string[]; json?: boolean }) => {
    const { signal } = context;
    const labels = pairs(flags.label, "--label", "ls");
    const provider = await providerOf(flags, "ls", signal);
    const found = await listComputers(provider, Object.keys(labels).length > 0 ? labels : (everyOwn(provider) ?? {}), { signal });
    if (!found.ok) throw failed(`the computers at ${provider.id} could not be listed`, found.error);
    const rows = found.value.map((l) => listedOf(provider, l));
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    if (rows.length === 0) {
      process.stdout.write(`no computers at ${provider.id}${Object.keys(labels).length > 0 ? " with those labels" : ""}\n`);
      return;
    }
    process.stdout.write(
      table(
        ["NAME", "KIND", "STATE", "DEADLINE", "RUN", "EPOCH", "DRIFT"],
        rows.map((r) => [r.name, r.kind, r.state, r.deadline ?? "-", r.run ?? "-", r.epoch ?? "-", r.drift]),
      ),
    );
  });
}
