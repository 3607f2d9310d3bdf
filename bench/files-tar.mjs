#!/usr/bin/env node
// Throughput of the file helpers through a real computerd, each beside `docker cp` of the same
// data into and out of the same container, measured in the same run: writeFile and readFile of
// 100 MiB, and a 100 MiB tree of 1,000 files through pushTar and pullTarStream. The computer is
// the provider's own (create, then its connection: init's socket from this machine on an engine
// here, else the bridge, an exec attached over the Engine API). Beside them, the floor of each
// way: the same 100 MiB streamed raw, in and out, with no JSON and no daemon, through a unix
// socket in the computer reached as init's is (the floor the columns show when the connection
// took that way) and through an exec attached as the bridge is, as bytes (what frames carry) and
// as base64 (what the spec's lines carry); and one 512 KiB chunk's line sent through the exec to
// a program that answers its length (a round trip of the spec's wire over the bridge). The
// computer and the folder here are removed at the end, and when stopped half-way (SIGINT, SIGTERM) too.
//
// Usage: npm run build && node bench/files-tar.mjs [--runs N]   (needs bash scripts/setup.sh once)
import { execFile, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const ROOT = join(import.meta.dirname, "..");
const { MAX_CHUNK_BYTES, pullTarStream, pushTar, readFile, writeFile } = await import(join(ROOT, "dist", "src", "index.js"));
const { makeComputer, rawExec, rawLocal } = await import(join(ROOT, "bench", "computer.mjs"));
const { onStop } = await import(join(ROOT, "bench", "stop.mjs"));
const run = promisify(execFile);
const MiB = 1 << 20;
const SIZE = 100 * MiB;
const FILES = 1000;
const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;

let computer;
let name;
const host = mkdtempSync(join(tmpdir(), "agentrun-bench-"));
// The computer (its own removal is registered as its create starts) before the folder.
const cleanup = onStop(async () => {
  await computer?.remove().catch(() => {});
  rmSync(host, { recursive: true, force: true });
});
const docker = (...args) => run("docker", args, { maxBuffer: 64 * MiB, timeout: 300_000 });

/** Runs fn RUNS times and gives the median seconds. */
async function median(fn, before) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    if (before) await before();
    const t0 = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

function must(result, what) {
  if (!result.ok) throw new Error(`${what}: ${result.error.code}: ${result.error.message}`);
  return result.value;
}

/**
 * The median time for one line of the given bytes to cross the attached exec into a program that
 * answers with its length (head -c and wc -c per line: no daemon and no JSON), until its input ends.
 */
async function lineRoundTrip(line) {
  const script = `while n=$(head -c ${line.length + 1} | wc -c) && [ "$n" -gt 0 ]; do echo "$n"; done`;
  const answers = [];
  let wake;
  let stdin;
  const stdinReady = new Promise((resolve) => (wake = resolve));
  const done = rawExec(computer, ["sh", "-c", script], {
    input: (socket) => {
      stdin = socket;
      wake();
    },
    onStdout: (chunk) => {
      answers.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      wake?.();
    },
  });
  await stdinReady;
  const trip = async () => {
    const t0 = process.hrtime.bigint();
    const before = answers.length;
    stdin.write(Buffer.concat([line, Buffer.from("\n")]));
    while (answers.length === before) await new Promise((resolve) => (wake = resolve));
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  await trip();
  const times = [];
  for (let i = 0; i < 20; i++) times.push(await trip());
  stdin.end();
  await done;
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

async function sh(client, script) {
  const ran = await client.call("exec.run", { argv: ["sh", "-c", script], timeoutMs: 120_000 });
  if (ran.exitCode !== 0) throw new Error(`${script}: ${Buffer.from(ran.stderr, "base64")}`);
  return Buffer.from(ran.stdout, "base64").toString();
}

try {
  // /work (a tmpfs of half the memory) holds the file, the tree and docker cp's copies of both.
  computer = await makeComputer({ memoryMb: 2400 });
  name = computer.ref.name;
  const { client, hello } = computer;

  // One file of 100 MiB.
  const bytes = randomBytes(SIZE);
  const sha = createHash("sha256").update(bytes).digest("hex");
  writeFileSync(join(host, "file.bin"), bytes);
  const wf = await median(async () => must(await writeFile(client, "/work/file.bin", bytes), "writeFile"));
  if ((await sh(client, "sha256sum /work/file.bin")).slice(0, 64) !== sha) throw new Error("writeFile wrote other bytes");
  const cpIn = await median(() => docker("cp", join(host, "file.bin"), `${name}:/work/cp.bin`));
  let read;
  const rf = await median(async () => (read = must(await readFile(client, "/work/file.bin"), "readFile")));
  if (createHash("sha256").update(read).digest("hex") !== sha) throw new Error("readFile read other bytes");
  const cpOut = await median(
    () => docker("cp", `${name}:/work/cp.bin`, join(host, "out.bin")),
    () => rmSync(join(host, "out.bin"), { force: true }),
  );
  // The bridge's floor: the same bytes, raw through an attached exec both ways; then as base64.
  const binIn = await median(() => rawExec(computer, ["sh", "-c", "cat > /dev/null"], { input: bytes }));
  let binBytes = 0;
  const binOut = await median(
    () => rawExec(computer, ["cat", "/work/file.bin"], { onStdout: (chunk) => (binBytes += chunk.length) }),
    () => (binBytes = 0),
  );
  if (binBytes !== SIZE) throw new Error(`the raw read gave ${binBytes} bytes, not ${SIZE}`);
  // The local socket's floor: the same bytes, raw through a unix socket in the computer.
  const localIn = await median(() => rawLocal(computer, ["sh", "-c", "cat > /dev/null"], { input: bytes }));
  let localBytes = 0;
  const localOut = await median(
    () => rawLocal(computer, ["cat", "/work/file.bin"], { onStdout: (chunk) => (localBytes += chunk.length) }),
    () => (localBytes = 0),
  );
  if (localBytes !== SIZE) throw new Error(`the local socket's raw read gave ${localBytes} bytes, not ${SIZE}`);
  const b64 = Buffer.from(bytes.toString("base64"));
  const rawIn = await median(() => rawExec(computer, ["sh", "-c", "cat > /dev/null"], { input: b64 }));
  let outBytes = 0;
  const rawOut = await median(
    () => rawExec(computer, ["base64", "-w0", "/work/file.bin"], { onStdout: (chunk) => (outBytes += chunk.length) }),
    () => (outBytes = 0),
  );
  if (outBytes !== b64.length) throw new Error(`the raw read gave ${outBytes} bytes of base64, not ${b64.length}`);
  const chunkTrip = await lineRoundTrip(b64.subarray(0, (MAX_CHUNK_BYTES / 3) * 4));
  await sh(client, "rm -f /work/file.bin /work/cp.bin");

  // A tree of 1,000 files, 100 MiB in all, in 10 directories.
  const tree = join(host, "tree");
  for (let i = 0; i < FILES; i++) {
    mkdirSync(join(tree, `d${i % 10}`), { recursive: true });
    writeFileSync(join(tree, `d${i % 10}`, `f${i}`), bytes.subarray(i * (SIZE / FILES), (i + 1) * (SIZE / FILES)));
  }
  const hostTar = () => {
    const tar = spawn("tar", ["-C", tree, "-cf", "-", "."], { stdio: ["ignore", "pipe", "inherit"] });
    return tar.stdout;
  };
  const push = await median(
    async () => must(await pushTar(client, "/work/tree", hostTar()), "pushTar"),
    () => sh(client, "rm -rf /work/tree"),
  );
  const treeSum = "cd /work/tree && find . -type f -exec sha256sum {} + | sort | sha256sum";
  const pushedSum = await sh(client, treeSum);
  const cpTreeIn = await median(
    () => docker("cp", `${tree}/.`, `${name}:/work/tree-cp`),
    () => sh(client, "rm -rf /work/tree-cp"),
  );
  const pull = await median(async () => {
    const out = join(host, "pulled");
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out);
    const tar = spawn("tar", ["-C", out, "-xf", "-"], { stdio: ["pipe", "ignore", "inherit"] });
    const exited = new Promise((resolve) => tar.on("close", resolve));
    const { chunks, done } = pullTarStream(client, "/work/tree");
    for await (const chunk of chunks) if (!tar.stdin.write(chunk)) await new Promise((r) => tar.stdin.once("drain", r));
    tar.stdin.end();
    must(await done, "pullTarStream");
    if ((await exited) !== 0) throw new Error("tar -x failed on the pulled archive");
  });
  const cpTreeOut = await median(
    () => docker("cp", `${name}:/work/tree-cp`, join(host, "tree-cp-out")),
    () => rmSync(join(host, "tree-cp-out"), { recursive: true, force: true }),
  );
  const pulledSum = (await run("sh", ["-c", `cd ${join(host, "pulled")} && find . -type f -exec sha256sum {} + | sort | sha256sum`])).stdout;
  if (pulledSum !== pushedSum) throw new Error("the pulled tree is not the pushed one");

  const rate = (s) => `${(SIZE / MiB / s).toFixed(0).padStart(5)} MiB/s`;
  const row = (what, s, anchor, anchorS, floorS) =>
    `${what.padEnd(34)} ${s.toFixed(2).padStart(6)} s ${rate(s)}   ${anchor.padEnd(20)} ${anchorS.toFixed(2).padStart(6)} s ${(anchorS / s).toFixed(2).padStart(5)}x   floor ${floorS.toFixed(2).padStart(5)} s ${(floorS / s).toFixed(2).padStart(5)}x`;
  const local = computer.way.startsWith("init's socket");
  const [floorIn, floorOut] = local ? [localIn, localOut] : [binIn, binOut];
  console.log(`computerd ${hello.version} ${hello.arch}, the provider's connection: ${computer.way}; median of ${RUNS} runs; 100 MiB each`);
  console.log(`computerd took up frames on this connection: ${client.framed === true}`);
  console.log(row("writeFile 100 MiB", wf, "docker cp in", cpIn, floorIn));
  console.log(row("readFile 100 MiB", rf, "docker cp out", cpOut, floorOut));
  console.log(row("pushTar tree (1,000 files)", push, "docker cp tree in", cpTreeIn, floorIn));
  console.log(row("pullTarStream tree (1,000 files)", pull, "docker cp tree out", cpTreeOut, floorOut));
  console.log(
    `the columns: the helper's throughput as a share of docker cp's (goal: 1.0x for a file, 0.8x for a tree), and of the raw binary floor of the way the connection took (${local ? "the local socket's" : "the bridge's"}; goal: 0.8x or more)`,
  );
  console.log(
    `the local socket's floor: 100 MiB raw through a unix socket in the computer reached as init's is, in ${localIn.toFixed(2)} s, out ${localOut.toFixed(2)} s`,
  );
  console.log(`the bridge's floor: 100 MiB raw through an exec attached over the Engine API, in ${binIn.toFixed(2)} s, out ${binOut.toFixed(2)} s`);
  console.log(`the same as base64 (133 MiB, the spec's lines): in ${rawIn.toFixed(2)} s, out ${rawOut.toFixed(2)} s`);
  console.log(
    `one 512 KiB chunk's line (${(((MAX_CHUNK_BYTES / 3) * 4) / 1024).toFixed(0)} KiB) into an attached exec and its length back: median ${chunkTrip.toFixed(1)} ms; a push or pull waits one such trip per chunk (200 for 100 MiB)`,
  );
} finally {
  await cleanup();
}
