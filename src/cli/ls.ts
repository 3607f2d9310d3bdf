// agentrun ls [--label k=v]...: the provider's computers, each with its kind, state, deadline, run
// and epoch, and its drift in one word (ok, or the first field that drifted).
import type { Command } from "commander";
import { EPOCH_LABEL, RUN_LABEL } from "../labels.js";
import type { ComputerInfo, ComputerProvider } from "../provider.js";
import { bounded } from "./bounds.js";
import type { Context } from "./context.js";
import { failed } from "./errors.js";
import { collect, pairs, providerOf, type ProviderFlags, withProviderOptions } from "./settings.js";
import { table } from "./table.js";

/** Drift checks at once: each connects to a daemon, so a large fleet is read a few at a time. */
const READS_AT_ONCE = 4;

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
  /** ok, the first field that drifted (with +N for more), or unknown when it could not be read. */
  drift: string;
  /** Every mismatch in words (or why it could not be read). */
  driftWords: string[];
}

/** A drift sentence's subject: the field it names first. */
const subject = (sentence: string) => sentence.split(/[\s:]/, 1)[0] || "drift";

async function driftOf(provider: ComputerProvider, info: ComputerInfo, signal: AbortSignal): Promise<Pick<Listed, "drift" | "driftWords" | "kind">> {
  const fallback = info.ref.spec?.kind ?? provider.capabilities().kind;
  if (!provider.read) return { drift: "unknown", driftWords: [`${provider.id} cannot read a computer's drift`], kind: fallback };
  const read = await provider.read({ id: info.ref.id }, { signal: bounded(signal) });
  if (!read.ok) return { drift: "unknown", driftWords: [`could not be read (${read.error.code}): ${read.error.message}`], kind: fallback };
  const words = read.value.drift;
  const kind = read.value.hello?.kind ?? read.value.ref.spec?.kind ?? fallback;
  return { drift: words.length === 0 ? "ok" : `${subject(words[0]!)}${words.length > 1 ? `+${words.length - 1}` : ""}`, driftWords: words, kind };
}

async function listed(provider: ComputerProvider, infos: ComputerInfo[], signal: AbortSignal): Promise<Listed[]> {
  const out: Listed[] = new Array(infos.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < infos.length; i = next++) {
      const info = infos[i]!;
      out[i] = {
        name: info.ref.name,
        id: info.ref.id,
        provider: provider.id,
        state: info.state,
        deadline: info.deadline?.toISOString() ?? null,
        run: info.labels[RUN_LABEL] ?? null,
        epoch: info.labels[EPOCH_LABEL] ?? null,
        labels: info.labels,
        ...(await driftOf(provider, info, signal)),
      };
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, infos.length) }, worker));
  return out;
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
    const found = await provider.list(Object.keys(labels).length > 0 ? labels : undefined, { signal: bounded(signal) });
    if (!found.ok) throw failed(`the computers at ${provider.id} could not be listed`, found.error);
    const rows = await listed(provider, found.value, signal);
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
