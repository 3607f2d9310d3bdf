// The egress proxy's own figures, on this machine's loopback: a 100 MiB download through
// computerd egress (its Unix socket, absolute-form HTTP and CONNECT) beside the same download
// straight from the server, interleaved round by round; each figure is the median of the
// rounds' own ratios, so load that comes and goes weighs on both sides alike. With --before
// <binary>, a second proxy from that binary (computerd before the proxy had one of its own,
// computerd-egress since) runs in the same rounds (before and after).
// Goals (issues 11 and 32): through the proxy >= 0.8x the direct download; idle RSS <= 16 MiB.
// Each proxy's folder goes at the end; when stopped half-way (SIGINT, SIGTERM), the proxies too.
// Run after `npm run setup`, as a user that may bind port 80 of 127.0.2.1:
//   node bench/egress-proxy.mjs [rounds] [--before <proxy binary>]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { proxyBinaryBeside } from "../dist/src/egress/proxy-command.js";
import { onStop } from "./stop.mjs";
import { sendZeros } from "./zeros.mjs";

const args = process.argv.slice(2);
const beforeAt = args.indexOf("--before");
const before = beforeAt >= 0 ? args.splice(beforeAt, 2)[1] : undefined;
const rounds = Number(args[0] ?? 11);
const SIZE = 100 * 1024 * 1024;
const toolchain = JSON.parse(readFileSync(new URL("../dist/toolchain.json", import.meta.url), "utf8"));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** Each proxy's folder (its socket); the proxies themselves are this process's children, which a stop ends. */
const folders = [];
const cleanup = onStop(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});
const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;

// The server: HTTP/1.1 on 127.0.2.1:80 and :443 (CONNECT carries any bytes), 100 MiB of zeros.
const server = createServer((c) => {
  c.once("data", () => {
    c.write(`HTTP/1.1 200 OK\r\nContent-Length: ${SIZE}\r\nConnection: close\r\n\r\n`);
    sendZeros(c, SIZE);
  });
  c.on("error", () => {});
});
await new Promise((resolve) => server.listen(80, "127.0.2.1", resolve));
const tls = createServer((c) => server.emit("connection", c));
await new Promise((resolve) => tls.listen(443, "127.0.2.1", resolve));

/** A proxy from one binary on a socket of its own, started and ready. */
async function startProxy(binary) {
  const folder = mkdtempSync(join(tmpdir(), "egress-bench-"));
  folders.push(folder);
  const socket = join(folder, "egress.sock");
  const deadline = new Date(Date.now() + 3_600_000).toISOString();
  const argv = ["egress", "--socket", socket, "--deadline", deadline, "--allow", "127.0.2.0/24", "--reachable-for-tests", "127.0.2.0/24"];
  const proxy = spawn(binary, argv, { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve) => proxy.stdout.on("data", (b) => String(b).includes("ready") && resolve()));
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { binary, socket, proxy, idle: rss(proxy.pid), http: [], connect: [] };
}

/** Milliseconds to read the whole response from a connection opened by open(). */
function download(open, request) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let got = 0;
    const c = open();
    c.on("connect", () => c.write(request));
    c.on("data", (b) => (got += b.length));
    c.on("end", () => (got >= SIZE ? resolve(performance.now() - t0) : reject(new Error(`read ${got} bytes`))));
    c.on("error", reject);
  });
}

const proxies = [await startProxy(proxyBinaryBeside(toolchain.daemon.amd64))];
if (before) proxies.unshift(await startProxy(before));
const direct = [];
for (let i = 0; i < rounds; i += 1) {
  const d = await download(() => connect(80, "127.0.2.1"), "GET /big HTTP/1.1\r\nHost: 127.0.2.1\r\n\r\n");
  direct.push(d);
  for (const p of proxies) {
    p.http.push(d / (await download(() => connect(p.socket), "GET http://127.0.2.1/big HTTP/1.1\r\nHost: 127.0.2.1\r\n\r\n")));
    p.connect.push(d / (await download(() => connect(p.socket), "CONNECT 127.0.2.1:443 HTTP/1.1\r\n\r\nGET /big HTTP/1.1\r\nHost: x\r\n\r\n")));
  }
}
for (const p of proxies) p.after = rss(p.proxy.pid);
for (const p of proxies) p.proxy.kill("SIGTERM");
server.close();
tls.close();
await cleanup();

const mibps = (ms) => (SIZE / 1024 / 1024 / (ms / 1000)).toFixed(0);
console.log(`100 MiB download, ${rounds} rounds, each the direct download then every proxy's (this machine is shared with other work):`);
console.log(`  direct (anchor)              median ${median(direct).toFixed(0)} ms  ${mibps(median(direct))} MiB/s`);
for (const p of proxies) {
  const name = p === proxies[proxies.length - 1] ? "this build" : "before";
  console.log(`  ${name} (${p.binary})`);
  console.log(`    through the proxy (HTTP)     ${median(p.http).toFixed(2)}x the direct, median of the rounds' ratios (goal >= 0.8x)`);
  console.log(`    through the proxy (CONNECT)  ${median(p.connect).toFixed(2)}x the direct (goal >= 0.8x)`);
  console.log(`    proxy RSS: idle ${p.idle.toFixed(1)} MiB (goal <= 16 MiB), after the downloads ${p.after.toFixed(1)} MiB`);
}
