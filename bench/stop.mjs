// A bench stopped half-way (Ctrl-C, a timeout's SIGTERM, its output's reader gone) removes what it made, as it does when it
// ends: its programs (the Pulumi CLI and the plugin under it) are ended first, so nothing goes on
// making, then every cleanup registered runs once, the last registered first, and it exits as the
// signal would have ended it.
import { readdir, readFile } from "node:fs/promises";

/** A process's parent and session, from /proc; undefined once it is gone. */
async function statOf(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  if (!stat) return undefined;
  // The command sits in parentheses and may hold spaces: state, ppid, pgrp and session follow it.
  const [, ppid, , session] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { ppid: Number(ppid), session: Number(session) };
}

/**
 * Every process under pid in this one's session, deepest first: a child's children end before it.
 * One in a session of its own (a daemon the bench started detached, as a second dockerd) is left
 * with what runs under it to the bench's cleanup, which stops it in its order.
 */
async function descendants(pid) {
  const own = (await statOf(process.pid)).session;
  const parents = new Map();
  for (const entry of await readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await statOf(entry);
    if (stat?.ppid && stat.session === own) parents.set(Number(entry), stat.ppid);
  }
  const under = (p) => [...parents].filter(([, parent]) => parent === p).flatMap(([child]) => [...under(child), child]);
  return under(pid);
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Ends every process this one started, waiting up to 10 s for each to go before it is killed. */
async function endChildren() {
  const children = await descendants(process.pid);
  for (const pid of children) if (alive(pid)) process.kill(pid, "SIGTERM");
  const until = Date.now() + 10_000;
  while (children.some(alive) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  for (const pid of children) if (alive(pid)) process.kill(pid, "SIGKILL");
}

/** Every cleanup registered, in the order of registration, each made to run once. */
const cleanups = [];

let stopping;
/** The stop, run once whatever comes after it (a signal, or a write to a reader gone while it runs). */
const stopped = (signal, code) => (stopping ??= stop(signal, code));

async function stop(signal, code) {
  console.error(`${signal}: removing what the bench made`);
  // From here the process ends with the signal's code once the cleanups are done: an error the
  // bench's own flow meets as its things go (a computer removed under a call) is said, not fatal.
  const said = (error) => console.error(`(after ${signal}) ${error?.message ?? error}`);
  process.on("uncaughtException", said).on("unhandledRejection", said);
  await endChildren();
  // A cleanup registered while these run (a computer whose create was in flight) runs too.
  const done = new Set();
  for (let next; (next = cleanups.findLast((c) => !done.has(c)));) {
    done.add(next);
    await next().catch((error) => console.error(`a cleanup failed: ${error.message}`));
  }
  process.exit(code);
}

/**
 * cleanup, made to run once: on SIGINT or SIGTERM (after this process's children end, after the
 * cleanups registered later than it), and where the bench calls what this returns (its finally).
 * A cleanup runs whenever the signal comes: it references only what exists by then. With none, a
 * stop only ends the programs this process started (which would outlive it).
 */
export function onStop(cleanup = () => undefined) {
  let ran;
  const once = () => (ran ??= Promise.resolve().then(cleanup));
  if (cleanups.length === 0) {
    process.once("SIGINT", () => stopped("SIGINT", 130));
    process.once("SIGTERM", () => stopped("SIGTERM", 143));
    // A reader of its output gone (`| head`): a stop too, where the write's error would end the
    // bench at once, past its finally; its code is a shell's for a SIGPIPE.
    for (const stream of [process.stdout, process.stderr])
      stream.on("error", (error) => {
        if (error.code !== "EPIPE") throw error;
        void stopped("EPIPE", 141);
      });
  }
  cleanups.push(once);
  return once;
}

/**
 * The provider's computers released on a stop: create and release are watched on this provider
 * object, so a computer whose create is in flight when the signal comes is awaited and released,
 * and one the bench released is not released again. then runs after (the engine's connections
 * closed). What this returns is the cleanup made once, for the bench's finally.
 */
export function releaseOnStop(provider, then) {
  const pending = new Set();
  const live = new Map();
  const { create, release } = provider;
  // The bench's own flow goes on while the cleanup runs: once stopping, it makes nothing more.
  let stopping = false;
  provider.create = (...args) => {
    if (stopping) return Promise.resolve({ ok: false, error: { code: "aborted", message: "the bench is stopping: no computer is made" } });
    const making = create.apply(provider, args);
    pending.add(making);
    making
      .then(
        (made) => made.ok && live.set(made.value.id, made.value),
        () => undefined,
      )
      .finally(() => pending.delete(making));
    return making;
  };
  // A computer leaves the list once its release is answered: a stop that comes while the bench's
  // own release is in flight waits for it, and releases it again if it failed.
  const releasing = new Set();
  provider.release = (ref, ...rest) => {
    const going = release.call(provider, ref, ...rest);
    releasing.add(going);
    going
      .then(
        (gone) => gone.ok && live.delete(ref.id),
        () => undefined,
      )
      .finally(() => releasing.delete(going));
    return going;
  };
  // The bench's own flow may start a release while this runs (its batch's creates answered): wait
  // until none is in flight, before and after these releases, so nothing is left being removed.
  const settled = async () => {
    while (pending.size + releasing.size > 0) await Promise.allSettled([...pending, ...releasing]);
  };
  return onStop(async () => {
    stopping = true;
    await settled();
    for (const ref of live.values()) await release.call(provider, ref, "delete").catch(() => undefined);
    live.clear();
    await settled();
    await then?.();
  });
}
