// state: what a pause keeps, as the capability row says (a counting process counts on from where
// it stopped when it keeps memory; files written before it are there after it), a paused computer
// read back as paused, a fork holding its snapshot's files (owner, mode, content), forks apart
// from each other, and a secret given to the computer (its run folder's file) in no snapshot.
import { randomBytes } from "node:crypto";
import type { ComputerClient } from "../../daemon/client.js";
import type { ComputerRef, PauseHooks } from "../../contract/provider.js";
import { WORKSPACE } from "../../contract/mount.js";
import { parseSnapshotImage } from "../../contract/state.js";
import { b64, call, callFails, check, must, output, run, shown, unb64, until } from "../assert.js";
import { conformanceCase, type CaseContext, Skip } from "../case.js";

/** A process that prints 1, 2, 3… one line every COUNTER_STEP_MS. */
export const COUNTER_ARGV = ["sh", "-c", "i=0; while :; do i=$((i+1)); echo $i; sleep 0.2; done"];
export const COUNTER_STEP_MS = 200;
/** How long a pause case holds the computer paused. */
export const PAUSED_MS = 3_000;
/** The lines a count may run past the time it was running, for the calls around a pause. */
const COUNT_SLACK = 3;

const FILES = ["files", "exec"] as const;

/** The provider's pause hooks, held to its capability row. */
function pauseOf(t: CaseContext): PauseHooks {
  const hooks = t.provider.pause;
  check(hooks, `the provider declares pause ${t.capabilities.pause} but has no pause hooks (ComputerProvider.pause)`);
  check(hooks.keeps === t.capabilities.pause, `its pause hooks keep ${hooks.keeps}, but its capability row says ${t.capabilities.pause}`);
  return hooks;
}

/** What list (and read, where the provider reads) says the computer's state is. */
async function statesOf(t: CaseContext, ref: ComputerRef): Promise<string[]> {
  const listed = must(await t.provider.list(t.labels, { signal: t.signal }), "list").find((c) => c.ref.name === ref.name);
  const states = [`list: ${listed?.state ?? "not listed"}`];
  if (t.provider.read) states.push(`read: ${must(await t.provider.read({ id: ref.id }, { signal: t.signal }), `read of ${ref.name}`).state}`);
  return states;
}

const all = (states: string[], state: string) => states.every((s) => s.endsWith(`: ${state}`));

/** Pauses the computer, holds it paused (read back as paused) for PAUSED_MS, resumes it; the resumed ref and the time it was held. */
async function pauseAndResume(t: CaseContext, ref: ComputerRef): Promise<{ resumed: ComputerRef; heldMs: number }> {
  const hooks = pauseOf(t);
  must(await hooks.pause(ref, { signal: t.signal }), `pause of ${ref.name}`);
  const paused = Date.now();
  const states = await statesOf(t, ref);
  check(all(states, "paused"), `${ref.name} reads back ${states.join(", ")} while paused, not paused`);
  await t.sleep(Math.max(0, paused + PAUSED_MS - Date.now()));
  const resuming = Date.now();
  const resumed = must(await hooks.resume(ref, { signal: t.signal }), `resume of ${ref.name}`);
  const after = await statesOf(t, resumed);
  check(all(after, "running"), `${ref.name} reads back ${after.join(", ")} after its resume, not running`);
  return { resumed, heldMs: resuming - paused };
}

/** The counter's lines so far; each must be the one before it plus one, from 1. */
async function countOf(client: ComputerClient, id: string, signal: AbortSignal): Promise<number> {
  const read = await call("process.read of the counter", client.call("process.read", { id, stream: "stdout", offset: 0 }, { signal }));
  check(!read.exited, "the counting process has ended");
  const lines = unb64(read.data).split("\n").filter(Boolean);
  const broken = lines.findIndex((line, i) => line !== String(i + 1));
  check(
    broken < 0,
    () => `the counter printed ${shown(lines.slice(Math.max(0, broken - 2), broken + 2))} at line ${broken + 1}: it did not count on from where it was`,
  );
  return lines.length;
}

/** The computer's HOME, read from inside. */
const homeOf = async (t: CaseContext, client: ComputerClient) => (await output(client, ["printenv", "HOME"], { signal: t.signal })).trim();

/** The files a snapshot case writes, by name under its folder. */
function snapshotFiles(runId: string) {
  return [
    { name: "notes.txt", mode: 0o640, data: Buffer.from(`notes of run ${runId}\n`) },
    { name: "run.sh", mode: 0o750, data: Buffer.from("#!/bin/sh\necho ready\n") },
    { name: "data.bin", mode: 0o600, data: randomBytes(64 * 1024) },
  ];
}

async function write(t: CaseContext, client: ComputerClient, path: string, data: Buffer, mode = 0o644) {
  await call(`files.write ${path}`, client.call("files.write", { path, data: b64(data), mode, parents: true }, { signal: t.signal }));
}

async function read(t: CaseContext, client: ComputerClient, path: string): Promise<Buffer> {
  return Buffer.from((await call(`files.read ${path}`, client.call("files.read", { path }, { signal: t.signal }))).data, "base64");
}

const stat = (t: CaseContext, client: ComputerClient, path: string) => call(`files.stat ${path}`, client.call("files.stat", { path }, { signal: t.signal }));

/** A fork of the snapshot: a computer of the case's own made from its image, connected, and its HOME. */
async function fork(t: CaseContext, image: string) {
  const ref = await t.create({ image });
  const { client } = await t.connect(ref);
  return { ref, client, home: await homeOf(t, client) };
}

/** A snapshot of a computer that holds its image's provider. */
async function snapshotOf(t: CaseContext, ref: ComputerRef) {
  const snapshot = await t.snapshot(ref);
  const parsed = parseSnapshotImage(snapshot.image);
  check(parsed?.provider === t.provider.id, `the snapshot's image ${shown(snapshot.image)} is not snapshot://${t.provider.id}/<id>`);
  return snapshot;
}

export const stateCases = [
  conformanceCase(
    "state.pause-keeps-memory",
    "core",
    { groups: ["processes"], pause: "memory" },
    async (t) => {
      const ref = await t.create();
      const { client } = await t.connect(ref);
      const started = await call("process.start of the counter", client.call("process.start", { argv: COUNTER_ARGV }, { signal: t.signal }));
      await until(
        () => countOf(client, started.id, t.signal),
        (n) => n >= 3,
        20_000,
        t.signal,
        COUNTER_STEP_MS,
      );
      const before = await countOf(client, started.id, t.signal);
      const from = Date.now();
      const { resumed, heldMs } = await pauseAndResume(t, ref);
      const after = await t.connect(resumed);
      const resumedCount = await countOf(after.client, started.id, t.signal);
      const runningMs = Date.now() - from - heldMs;
      const most = before + Math.ceil(runningMs / COUNTER_STEP_MS) + COUNT_SLACK;
      check(resumedCount >= before, `the counter read ${resumedCount} after the resume, less than the ${before} it had reached before the pause`);
      check(
        resumedCount <= most,
        `the counter went from ${before} to ${resumedCount} across a pause of ${heldMs} ms, past the ${most} its ${runningMs} ms of running give: it counted while paused`,
      );
      await t.sleep(4 * COUNTER_STEP_MS);
      const later = await countOf(after.client, started.id, t.signal);
      check(later > resumedCount, `the counter stayed at ${resumedCount} for ${4 * COUNTER_STEP_MS} ms after the resume: it does not count on`);
    },
    { shared: false },
  ),

  conformanceCase(
    "state.pause-keeps-files",
    "core",
    { groups: [...FILES], pause: true },
    async (t) => {
      const ref = await t.create();
      const { client } = await t.connect(ref);
      const path = `${await homeOf(t, client)}/before-pause-${t.runId}.txt`;
      const data = Buffer.from(`written before the pause of run ${t.runId}\n`);
      await write(t, client, path, data, 0o640);
      const { resumed } = await pauseAndResume(t, ref);
      const after = await t.connect(resumed);
      const back = await read(t, after.client, path);
      check(back.equals(data), `${path} reads ${shown(back.toString())} after the resume, not what was written before the pause`);
      const mode = (await stat(t, after.client, path)).mode & 0o7777;
      check(mode === 0o640, `${path} has mode ${mode.toString(8)} after the resume, not 640`);
    },
    { shared: false },
  ),

  conformanceCase(
    "state.fork-has-files",
    "core",
    { groups: [...FILES], snapshot: true },
    async (t) => {
      const ref = await t.create();
      const { client } = await t.connect(ref);
      const dir = `${await homeOf(t, client)}/snapshot-${t.runId}`;
      const files = snapshotFiles(t.runId);
      for (const f of files) await write(t, client, `${dir}/${f.name}`, f.data, f.mode);
      const owners = await Promise.all(files.map((f) => stat(t, client, `${dir}/${f.name}`)));
      const snapshot = await snapshotOf(t, ref);
      const forked = await fork(t, snapshot.image);
      for (const [i, f] of files.entries()) {
        const path = `${dir}/${f.name}`;
        const had = owners[i]!;
        const has = await stat(t, forked.client, path);
        const was = `${had.uid}:${had.gid} ${(had.mode & 0o7777).toString(8)}`;
        const is = `${has.uid}:${has.gid} ${(has.mode & 0o7777).toString(8)}`;
        check(is === was, `${path} is ${is} (owner, mode) in the fork, not ${was} as in the computer the snapshot was taken of`);
        const back = await read(t, forked.client, path);
        check(back.equals(f.data), `${path} holds ${back.length} other bytes in the fork than the ${f.data.length} written before the snapshot`);
      }
    },
    { shared: false },
  ),

  conformanceCase(
    "state.forks-apart",
    "core",
    { groups: [...FILES], snapshot: true },
    async (t) => {
      const ref = await t.create();
      const { client } = await t.connect(ref);
      const dir = `${await homeOf(t, client)}/forks-${t.runId}`;
      const base = Buffer.from("the snapshot's\n");
      await write(t, client, `${dir}/shared.txt`, base);
      const snapshot = await snapshotOf(t, ref);
      // One after the other: no create is still making a computer from the snapshot when the case ends and removes it.
      const forks = [await fork(t, snapshot.image), await fork(t, snapshot.image)];
      for (const [i, f] of forks.entries()) {
        await write(t, f.client, `${dir}/fork-${i}.txt`, Buffer.from(`fork ${i}\n`));
        await write(t, f.client, `${dir}/shared.txt`, Buffer.from(`changed by fork ${i}\n`));
      }
      for (const [i, f] of forks.entries()) {
        const other = 1 - i;
        const seen = await run(f.client, ["cat", `${dir}/fork-${other}.txt`], { signal: t.signal });
        check(seen.exitCode !== 0, `fork ${i} (${f.ref.name}) sees the file fork ${other} wrote: ${shown(seen.stdout)}`);
        const shared = (await read(t, f.client, `${dir}/shared.txt`)).toString();
        check(shared === `changed by fork ${i}\n`, `fork ${i}'s shared.txt reads ${shown(shared)}, not its own write`);
      }
      const parent = (await read(t, client, `${dir}/shared.txt`)).toString();
      check(parent === base.toString(), `the computer the snapshot was taken of reads ${shown(parent)} in shared.txt after its forks wrote theirs`);
    },
    { shared: false },
  ),

  conformanceCase(
    "state.secret-left-out",
    "core",
    { groups: [...FILES], snapshot: true, mount: "bind" },
    async (t) => {
      const folder = await t.runFolder("bind");
      if (!folder) return new Skip("the run has no run folder of kind bind (its module's mountFor gives none)");
      // The secret a computer is given: a file its host put in the run folder, at /workspace inside.
      const secret = `agentrun-conformance-secret-${randomBytes(12).toString("hex")}`;
      await folder.write("secret.txt", Buffer.from(secret));
      const ref = await t.create({ mount: folder.mount });
      const { client } = await t.connect(ref);
      const given = (await read(t, client, `${WORKSPACE}/secret.txt`)).toString();
      check(given === secret, `the computer reads ${given.length} bytes at ${WORKSPACE}/secret.txt, not the ${secret.length} its run folder holds`);
      const snapshot = await snapshotOf(t, ref);
      check(!JSON.stringify(snapshot).includes(secret), "the snapshot as taken holds the secret");
      const forked = await fork(t, snapshot.image);
      await callFails(
        `files.stat of ${WORKSPACE}/secret.txt in the fork`,
        forked.client.call("files.stat", { path: `${WORKSPACE}/secret.txt` }, { signal: t.signal }),
        ["not_found"],
      );
      const grep = ["grep", "-rlsF", "--exclude-dir=proc", "--exclude-dir=sys", "--exclude-dir=dev", secret, "/"];
      const found = await run(forked.client, grep, { signal: t.signal, timeoutMs: 120_000 });
      check(!found.timedOut, "the fork's files could not be searched for the secret within 120 s");
      check(
        found.exitCode === 0 || found.exitCode === 1 || found.exitCode === 2,
        `grep in the fork exited ${found.exitCode}: ${found.stderr.trim().slice(0, 200)}`,
      );
      check(found.stdout.trim() === "", `the fork of the snapshot holds the secret in ${shown(found.stdout.trim().split("\n"))}`);
    },
    { shared: false },
  ),
];
