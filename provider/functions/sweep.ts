// agentrun:index:sweep: the janitor's sweep as a function: deletes the provider's computers
// carrying the given labels whose deadline has passed (or is missing or unreadable), and says
// what it deleted and how many it kept. The engine calls a function at preview as at up, so a
// sweep deletes then too; dryRun says what it would delete and deletes nothing.
import { sweep as sweepNow, sweepPlan } from "../../src/fleet/janitor.js";
import { orThrow } from "../../src/daemon/result.js";
import type { FunctionHandler } from "../function.js";
import type { Context } from "../resource.js";
import { bounded } from "../resource.js";
import type { Props } from "../secrets.js";
import { z } from "zod";
import { CHOOSING, chosen } from "./args.js";
import { fieldsOf } from "../inputs.js";

const TOKEN = "agentrun:index:sweep";
const Given = CHOOSING.extend({ dryRun: z.boolean().optional() });
const INPUTS = fieldsOf(Given);
// A sweep deletes one computer after another: a large fleet's may take minutes.
const SWEEP_MS = 10 * 60_000;

async function invoke(ctx: Context, raw: Props) {
  const args = await chosen(ctx, raw, INPUTS, TOKEN);
  if (!args.ok) return { failures: args.failures };
  const { provider, labels, rest } = args.value;
  const dryRun = rest.dryRun ?? false;
  if (typeof dryRun !== "boolean") return { failures: [{ property: "dryRun", reason: "dryRun must be true or false" }] };
  const options = { labels, signal: bounded(ctx, SWEEP_MS) };
  if (dryRun) {
    const plan = orThrow(await sweepPlan(provider, options));
    return { outputs: { deleted: [], due: plan.due.map((i) => i.ref.name), kept: plan.kept } };
  }
  const swept = orThrow(await sweepNow(provider, options));
  return { outputs: { deleted: swept.deleted, due: swept.deleted, kept: swept.kept } };
}

export const sweep: FunctionHandler = { given: Given, inputs: INPUTS, outputs: ["deleted", "due", "kept"], invoke };
