// lifetime: a computer does not run past its deadline (after a sweep, for a janitor provider);
// the janitor deletes what is past its deadline and keeps the rest; extend moves a deadline within
// the cap and refuses what would shorten it or pass create + maxLifetimeMs.
import { sweep } from "../../fleet/janitor.js";
import type { ComputerInfo } from "../../contract/provider.js";
import { call, check, must, mustFail, shown, until } from "../assert.js";
import { conformanceCase, type CaseContext, Skip } from "../case.js";

/** Short enough to wait out, long enough for a busy host's create. */
const SHORT_LIFETIME_MS = 30_000;
/** How long past its deadline a computer may take to stop. */
const STOP_GRACE_MS = 45_000;

const find = async (t: CaseContext, name: string): Promise<ComputerInfo | undefined> =>
  must(await t.provider.list(t.labels, { signal: t.signal }), "list").find((c) => c.ref.name === name);

/** Waits out the computer's deadline, then until it is stopped or gone; what list last said. */
async function pastDeadline(t: CaseContext, name: string, deadline: Date | undefined): Promise<ComputerInfo | undefined> {
  const at = deadline?.getTime() ?? Date.now() + SHORT_LIFETIME_MS;
  await t.sleep(Math.max(0, at - Date.now()));
  return until(
    () => find(t, name),
    (info) => info === undefined || info.state === "stopped",
    STOP_GRACE_MS,
    t.signal,
    1000,
  );
}

export const lifetimeCases = [
  conformanceCase("lifetime.deadline", "core", {}, async (t) => {
    const ref = await t.create({ lifetimeMs: SHORT_LIFETIME_MS });
    const info = await find(t, ref.name);
    check(info !== undefined, `${ref.name} is not listed after create`);
    const after = await pastDeadline(t, ref.name, info.deadline);
    check(
      after === undefined || after.state === "stopped",
      `${ref.name} still runs ${STOP_GRACE_MS / 1000} s past its deadline (${info.deadline?.toISOString()})`,
    );
    if (t.capabilities.lifetime === "janitor") {
      const swept = must(await sweep(t.provider, { labels: t.labels, signal: t.signal }), "the janitor's sweep");
      check(after === undefined || swept.deleted.includes(ref.name), `the sweep past ${ref.name}'s deadline deleted ${shown(swept.deleted)}`);
      const gone = await find(t, ref.name);
      check(gone === undefined, `${ref.name} is still listed (${gone?.state}) after the sweep`);
    }
  }),

  // The spec names it provider.janitor (so it reports under provider); it lives here with the deadline it waits out.
  conformanceCase("provider.janitor", "full", { janitor: true }, async (t) => {
    const [short, long] = await Promise.all([t.create({ lifetimeMs: SHORT_LIFETIME_MS }), t.create()]);
    must(await t.provider.release(long, "stop", { signal: t.signal }), `release(${long.name}, "stop")`);
    const info = await find(t, short.name);
    const after = await pastDeadline(t, short.name, info?.deadline);
    check(
      after?.state === "stopped",
      `${short.name} past its deadline is ${after ? after.state : "gone"}; a janitor provider keeps it stopped until the sweep`,
    );
    const swept = must(await sweep(t.provider, { labels: t.labels, signal: t.signal }), "the janitor's sweep");
    check(
      shown(swept.deleted) === shown([short.name]) && swept.kept === 1,
      `the sweep deleted ${shown(swept.deleted)} and kept ${swept.kept}, not ${short.name} and 1 (the stopped computer whose deadline is ahead)`,
    );
    const left = must(await t.provider.list(t.labels, { signal: t.signal }), "list");
    check(
      shown(left.map((c) => [c.ref.name, c.state])) === shown([[long.name, "stopped"]]),
      `after the sweep list gives ${shown(left.map((c) => [c.ref.name, c.state]))}`,
    );
  }),

  conformanceCase("lifetime.extend", "full", { methods: ["extend"] }, async (t) => {
    const extend = t.provider.extend!.bind(t.provider);
    const cap = t.capabilities.maxLifetimeMs;
    if (cap < 180_000) return new Skip(`the provider's cap is ${cap} ms, under the 3 minutes the case needs`);
    const created = Date.now();
    const ref = await t.create({ lifetimeMs: 45_000 });
    const connection = await t.connect(ref);
    const started = await call("process.start", connection.client.call("process.start", { argv: ["sleep", "600"] }, { signal: t.signal }));
    const extended = must(await extend(ref, 120_000, { signal: t.signal }), "extend to 120 s");
    const deadline = Date.parse(extended.deadline);
    check(Math.abs(deadline - (Date.now() + 120_000)) < 15_000, `extend to 120 s set the deadline ${extended.deadline}`);
    await t.sleep(Math.max(0, created + 60_000 - Date.now()));
    await call("ping 60 s after create", connection.client.call("ping", {}, { signal: t.signal }));
    const waited = await call("process.wait", connection.client.call("process.wait", { id: started.id, timeoutMs: 0 }, { signal: t.signal }));
    check(waited.running, "the process started before the extend is no longer running at 60 s");
    const listedDeadline = async () => (await find(t, ref.name))?.deadline?.getTime();
    check(Math.abs(((await listedDeadline()) ?? 0) - deadline) < 2_000, "list does not show the extended deadline");
    mustFail(await extend(ref, 10_000, { signal: t.signal }), ["invalid", "refused", "limit"], "extend to an earlier deadline");
    mustFail(await extend(ref, cap + 1, { signal: t.signal }), ["invalid", "refused", "limit"], "extend to maxLifetimeMs + 1");
    mustFail(
      await extend(ref, cap - 30_000, { signal: t.signal }),
      ["invalid", "refused", "limit"],
      "extend to maxLifetimeMs less 30 s, 60 s after create (past create + maxLifetimeMs)",
    );
    check(Math.abs(((await listedDeadline()) ?? 0) - deadline) < 2_000, "a refused extend moved the deadline");
  }),
];
