// process: the process.* methods as the spec words them: a program that keeps running after its
// call, its streams by offset, stdin, signals, waits, the table, a terminal, a log, and its whole
// tree ending with it.
import { listProcesses, readAll } from "../../daemon/processes.js";
import { b64, call, callFails, check, must, shown, until } from "../assert.js";
import { conformanceCase, type CaseContext } from "../case.js";
import { holding, marker } from "../markers.js";

const PROCESSES = { groups: ["processes" as const] };
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8");

async function ended(t: CaseContext, id: string) {
  const waited = await call("process.wait", t.client.call("process.wait", { id, timeoutMs: 20_000 }, { signal: t.signal }));
  check(!waited.running, `process ${id} still runs 20 s after it was ended`);
  return waited;
}

export const processCases = [
  conformanceCase("process.start-read", "core", PROCESSES, async (t) => {
    const started = await call("process.start", t.client.call("process.start", { argv: ["sh", "-c", "echo out; echo err >&2; exit 3"] }, { signal: t.signal }));
    check(/^p\d+$/.test(started.id) && started.pid > 0, `process.start answered ${shown(started)}, not an id p<n> and a pid`);
    const out = must(await readAll(t.client, started.id, "stdout", { signal: t.signal }), "reading stdout to its end");
    const err = must(await readAll(t.client, started.id, "stderr", { signal: t.signal }), "reading stderr to its end");
    check(
      text(out.data) === "out\n" && text(err.data) === "err\n",
      `the streams read ${shown(text(out.data))} and ${shown(text(err.data))}, not "out\\n" and "err\\n" apart`,
    );
    check(out.nextOffset === 4 && out.dropped === 0, `stdout ended at offset ${out.nextOffset} with ${out.dropped} dropped, not 4 and 0`);
    const waited = await ended(t, started.id);
    check(waited.exitCode === 3 && waited.signal === null, `the process ended ${shown(waited)}, not with exit code 3`);
  }),

  conformanceCase("process.stdin", "core", PROCESSES, async (t) => {
    const started = await call("process.start", t.client.call("process.start", { argv: ["cat"], stdin: true }, { signal: t.signal }));
    await call("process.write", t.client.call("process.write", { id: started.id, data: b64("abc") }, { signal: t.signal }));
    await call("process.write close", t.client.call("process.write", { id: started.id, data: b64("def"), close: true }, { signal: t.signal }));
    const out = must(await readAll(t.client, started.id, "stdout", { signal: t.signal }), "reading cat's stdout");
    check(text(out.data) === "abcdef", `cat echoed ${shown(text(out.data))}, not "abcdef"`);
    const waited = await ended(t, started.id);
    check(waited.exitCode === 0, `cat ended ${shown(waited)} after its stdin closed`);
  }),

  conformanceCase("process.signal", "core", PROCESSES, async (t) => {
    const started = await call("process.start", t.client.call("process.start", { argv: ["sleep", "300"] }, { signal: t.signal }));
    await call("process.signal TERM", t.client.call("process.signal", { id: started.id, signal: "TERM" }, { signal: t.signal }));
    const waited = await ended(t, started.id);
    check(waited.signal === "TERM" && waited.exitCode === null, `a TERMed sleep ended ${shown(waited)}, not by signal "TERM"`);
    await call("process.signal of an ended process", t.client.call("process.signal", { id: started.id, signal: "KILL" }, { signal: t.signal }));
    await callFails("process.signal of no such process", t.client.call("process.signal", { id: "p999999", signal: "TERM" }, { signal: t.signal }), [
      "not_found",
    ]);
  }),

  conformanceCase("process.wait", "core", PROCESSES, async (t) => {
    const started = await call("process.start", t.client.call("process.start", { argv: ["sleep", "300"] }, { signal: t.signal }));
    const before = Date.now();
    const waiting = await call("process.wait", t.client.call("process.wait", { id: started.id, timeoutMs: 500 }, { signal: t.signal }));
    check(waiting.running && Date.now() - before >= 400, `a wait of 500 ms on a running sleep answered ${shown(waiting)} after ${Date.now() - before} ms`);
    await call("process.signal KILL", t.client.call("process.signal", { id: started.id, signal: "KILL" }, { signal: t.signal }));
    const waited = await ended(t, started.id);
    check(waited.signal === "KILL", `a KILLed sleep ended ${shown(waited)}`);
  }),

  conformanceCase("process.list", "core", PROCESSES, async (t) => {
    const argv = ["sh", "-c", "sleep 300", "agentrun-conformance-list"];
    const running = await call("process.start", t.client.call("process.start", { argv }, { signal: t.signal }));
    const done = await call("process.start", t.client.call("process.start", { argv: ["true"] }, { signal: t.signal }));
    await ended(t, done.id);
    const listed = must(await listProcesses(t.client, { signal: t.signal }), "process.list");
    const a = listed.find((p) => p.id === running.id);
    const b = listed.find((p) => p.id === done.id);
    check(a?.running === true && shown(a.argv) === shown(argv) && a.pid === running.pid && a.endedAt === null, `the running process is listed as ${shown(a)}`);
    check(b?.running === false && b.exitCode === 0 && typeof b.endedAt === "number", `the ended process is listed as ${shown(b)}`);
    check(listed.indexOf(a) < listed.indexOf(b), "the table is not in start order");
    await call("process.signal KILL", t.client.call("process.signal", { id: running.id, signal: "KILL" }, { signal: t.signal }));
    await ended(t, running.id);
  }),

  conformanceCase("process.pty", "core", PROCESSES, async (t) => {
    const script = "stty size; read line; stty size";
    const started = await call(
      "process.start",
      t.client.call("process.start", { argv: ["sh", "-c", script], pty: { cols: 100, rows: 30 } }, { signal: t.signal }),
    );
    let offset = 0;
    let seen = "";
    const readSome = async () => {
      const read = await call("process.read pty", t.client.call("process.read", { id: started.id, stream: "pty", offset, waitMs: 2000 }, { signal: t.signal }));
      offset = read.nextOffset;
      seen += Buffer.from(read.data, "base64").toString("utf8");
      return seen;
    };
    await until(readSome, (s) => s.includes("30 100"), 10_000, t.signal, 0);
    check(seen.includes("30 100"), `stty size in a 100x30 terminal printed ${shown(seen)}`);
    await call("process.resize", t.client.call("process.resize", { id: started.id, cols: 120, rows: 40 }, { signal: t.signal }));
    await call("process.write to the terminal", t.client.call("process.write", { id: started.id, data: b64("\n") }, { signal: t.signal }));
    await until(readSome, (s) => s.includes("40 120"), 10_000, t.signal, 0);
    check(seen.includes("40 120"), `after a resize to 120x40 stty size printed ${shown(seen)}`);
    const waited = await ended(t, started.id);
    check(waited.exitCode === 0, `the shell in the terminal ended ${shown(waited)}`);
  }),

  conformanceCase("process.log", "core", { groups: ["processes", "files"] }, async (t) => {
    const log = `${t.dir}/logs/run.log`;
    const started = await call(
      "process.start",
      t.client.call("process.start", { argv: ["sh", "-c", "echo logged; echo also >&2"], log }, { signal: t.signal }),
    );
    await ended(t, started.id);
    const read = must(await readAll(t.client, started.id, "log", { signal: t.signal }), "reading the log stream");
    const logged = text(read.data);
    check(
      logged.includes("logged\n") && logged.includes("also\n") && logged.length === 12,
      `the log stream reads ${shown(logged)}, not stdout and stderr as they came`,
    );
    const file = await call("files.read of the log", t.client.call("files.read", { path: log }, { signal: t.signal }));
    check(
      Buffer.from(file.data, "base64").toString() === logged,
      `the log file reads ${shown(Buffer.from(file.data, "base64").toString())}, not what the log stream read`,
    );
    await callFails("process.start with a log already there", t.client.call("process.start", { argv: ["true"], log }, { signal: t.signal }), ["exists"]);
  }),

  conformanceCase("process.outlives-connection", "core", PROCESSES, async (t) => {
    const other = await t.connect(t.computer);
    const started = await call("process.start on a second connection", other.client.call("process.start", { argv: ["sleep", "300"] }, { signal: t.signal }));
    await other.close();
    const listed = must(await listProcesses(t.client, { signal: t.signal }), "process.list on the first connection");
    const seen = listed.find((p) => p.id === started.id);
    check(seen?.running === true, `a process started on a connection since closed is listed as ${shown(seen)}, not running`);
    await call("process.signal KILL", t.client.call("process.signal", { id: started.id, signal: "KILL" }, { signal: t.signal }));
    await ended(t, started.id);
  }),

  conformanceCase("process.tree-ends", "core", { groups: ["processes", "exec"] }, async (t) => {
    const mark = marker();
    // The shell waits for a line on its stdin, so the child is looked for while the process runs,
    // however slow a look is; then the line lets the process end on its own.
    const script = `setsid sleep ${mark.inScript} & read -r _`;
    const started = await call("process.start", t.client.call("process.start", { argv: ["sh", "-c", script], stdin: true }, { signal: t.signal }));
    const seen = await until(
      () => holding(t.client, mark, t.signal),
      (pids) => pids.length > 0,
      30_000,
      t.signal,
      100,
    );
    check(seen.length > 0, "the process's setsid child never showed, so its end proved nothing");
    await call("process.write close", t.client.call("process.write", { id: started.id, data: b64("go\n"), close: true }, { signal: t.signal }));
    const waited = await ended(t, started.id);
    check(waited.exitCode === 0, `the shell ended ${shown(waited)} after its line, not with exit code 0`);
    const left = await until(
      () => holding(t.client, mark, t.signal),
      (pids) => pids.length === 0,
      8_000,
      t.signal,
    );
    check(left.length === 0, `what the process started with setsid still runs after it ended (pid ${left.join(", ")})`);
  }),
];
