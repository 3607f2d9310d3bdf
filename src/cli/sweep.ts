// agentrun sweep [--dry-run] [--label k=v]...: the janitor's sweep, saying what it released, or with
// --dry-run what it would release, by the same rule and touching nothing.
import type { Command } from "commander";
import { sweep, sweepPlan } from "../fleet/janitor.js";
import { bounded } from "./bounds.js";
import type { Context } from "./context.js";
import { failed } from "./errors.js";
import { collect, pairs, providerOf, type ProviderFlags, withProviderOptions } from "./settings.js";

/** A sweep deletes one computer after another; a large fleet of due ones takes a while. */
const SWEEP_BOUND_MS = 10 * 60_000;

export function sweepCommand(program: Command, context: Context): Command {
  const command = program
    .command("sweep")
    .description("release the computers past their deadline (the janitor's sweep)")
    .option("--dry-run", "say what would be released, and release nothing")
    .option("--label <k=v>", "only computers with this label (repeatable)", collect)
    .option("--json", "what was (or would be) released, as JSON on stdout");
  withProviderOptions(command);
  return command.action(async (flags: ProviderFlags & { dryRun?: boolean; label?: string[]; json?: boolean }) => {
    const { signal } = context;
    const labels = pairs(flags.label, "--label", "sweep");
    const provider = await providerOf(flags, "sweep", signal);
    const options = { ...(Object.keys(labels).length > 0 ? { labels } : {}), signal: bounded(signal, SWEEP_BOUND_MS) };
    let released: string[];
    let kept: number;
    if (flags.dryRun) {
      const plan = await sweepPlan(provider, options);
      if (!plan.ok) throw failed("the sweep could not be planned", plan.error);
      released = plan.value.due.map((info) => info.ref.name);
      kept = plan.value.kept;
    } else {
      const swept = await sweep(provider, options);
      if (!swept.ok) throw failed("the sweep did not finish", swept.error);
      released = swept.value.deleted;
      kept = swept.value.kept;
    }
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ dryRun: Boolean(flags.dryRun), [flags.dryRun ? "wouldRelease" : "released"]: released, kept }, null, 2)}\n`);
      return;
    }
    const verb = flags.dryRun ? "would release" : "released";
    process.stdout.write(`${verb} ${released.length > 0 ? released.join(", ") : "none"}; kept ${kept} (deadline ahead)\n`);
  });
}
