// agentrun:index:listComputers: the provider's computers carrying the given labels, each with its
// name, state, deadline and drift read back, and whether it has outlived its deadline; the names
// of those that have, apart (a CI check fails on them). Reads; changes nothing.
import { listComputers as list } from "../../src/fleet/listing.js";
import { orThrow } from "../../src/daemon/result.js";
import type { FunctionHandler } from "../function.js";
import type { Context } from "../resource.js";
import type { Props } from "../secrets.js";
import { CHOOSING, chosen } from "./args.js";
import { fieldsOf } from "../inputs.js";

const TOKEN = "agentrun:index:listComputers";
const Given = CHOOSING;
const INPUTS = fieldsOf(Given);

async function invoke(ctx: Context, raw: Props) {
  const args = await chosen(ctx, raw, INPUTS, TOKEN);
  if (!args.ok) return { failures: args.failures };
  const { provider, labels } = args.value;
  const listed = orThrow(await list(provider, labels, { signal: ctx.signal }));
  const computers = listed.map(({ info, kind, state, drift, readBack, overdue }) => ({
    name: info.ref.name,
    vendorId: info.ref.id,
    provider: provider.id,
    kind,
    state,
    // An output holds no undefined: a deadline that could not be read is left out.
    ...(info.deadline && !Number.isNaN(info.deadline.getTime()) ? { deadline: info.deadline.toISOString() } : {}),
    overdue,
    labels: info.labels,
    drift,
    readBack,
  }));
  return { outputs: { computers, overdue: computers.filter((c) => c.overdue).map((c) => c.name) } };
}

export const listComputers: FunctionHandler = { given: Given, inputs: INPUTS, outputs: ["computers", "overdue"], invoke };
