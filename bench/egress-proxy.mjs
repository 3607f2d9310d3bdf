// The egress proxy's own figures, on this machine's loopback: a 100 MiB download through
// computerd egress (its Unix socket, absolute-form HTTP and CONNECT) beside the same download
// straight from the server, interleaved, medians taken; and the proxy's RSS idle and after.
// Goals (issue 11): through the proxy >= 0.8x the direct download; idle RSS <= 16 MiB.
// Run after `npm run setup`, as a user that may bind port 80 of 127.0.2.1:
//   node bench/egress-proxy.mjs [rounds]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const rounds = Number(process.argv[2] ?? 5);
const SIZE = 100 * 1024 * 1024;
const toolchain = JSON.parse(readFileSync(new URL("../dist/toolchain.json", import.meta.url), "utf8"));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;

// The server: HTTP/1.1 on 127.0.2.1:80 and :443 (CONNECT carries any bytes), 100 MiB of zeros.
const chunk = Buffer.alloc(1024 * 1024);
const server = createServer((c) => {
  c.once("data", () => {
    c.write(`HTTP/1.1 200 OK\r\nContent-Length: ${SIZE}\r\nConnection: close\r\n\r\n`);
    let left = SIZE / chunk.length;
    const pump = () => {
      while (left > 0) {
        left -= 1;
        if (!c.write(chunk)) return c.once("drain", pump);
      }
      c.end();
    };
    pump();
  });
  c.on("error", () => {});
});
await new Promise((resolve) => server.listen(80, "127.0.2.1", resolve));
const tls = createServer((c) => server.emit("connection", c));
await new Promise((resolve) => tls.listen(443, "127.0.2.1", resolve));

const dir = mkdtempSync(join(tmpdir(), "egress-bench-"));
const socket = join(dir, "egress.sock");
const proxy = spawn(
  toolchain.daemon.amd64,
  [
    "egress",
    "--socket",
    socket,
    "--deadline",
    new Date(Date.now() + 3_600_000).toISOString(),
    "--allow",
    "127.0.2.0/24",
    "--reachable-for-tests",
    "127.0.2.0/24",
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
await new Promise((resolve) => proxy.stdout.on("data", (b) => String(b).includes("ready") && resolve()));
await new Promise((resolve) => setTimeout(resolve, 300));
const idle = rss(proxy.pid);

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

const direct = [];
const proxied = [];
const tunnelled = [];
for (let i = 0; i < rounds; i += 1) {
  direct.push(await download(() => connect(80, "127.0.2.1"), "GET /big HTTP/1.1\r\nHost: 127.0.2.1\r\n\r\n"));
  proxied.push(await download(() => connect(socket), "GET http://127.0.2.1/big HTTP/1.1\r\nHost: 127.0.2.1\r\n\r\n"));
  tunnelled.push(await download(() => connect(socket), "CONNECT 127.0.2.1:443 HTTP/1.1\r\n\r\nGET /big HTTP/1.1\r\nHost: x\r\n\r\n"));
}
const after = rss(proxy.pid);
proxy.kill("SIGTERM");
server.close();
tls.close();

const mibps = (ms) => (SIZE / 1024 / 1024 / (ms / 1000)).toFixed(0);
console.log(`100 MiB download, median of ${rounds} (this machine is shared with other work; each round runs all three back to back):`);
console.log(`  direct (anchor)            ${median(direct).toFixed(0)} ms  ${mibps(median(direct))} MiB/s`);
console.log(
  `  through the proxy (HTTP)   ${median(proxied).toFixed(0)} ms  ${mibps(median(proxied))} MiB/s  ${(median(direct) / median(proxied)).toFixed(2)}x the direct (goal >= 0.8x)`,
);
console.log(
  `  through the proxy (CONNECT) ${median(tunnelled).toFixed(0)} ms  ${mibps(median(tunnelled))} MiB/s  ${(median(direct) / median(tunnelled)).toFixed(2)}x the direct`,
);
console.log(`proxy RSS: idle ${idle.toFixed(1)} MiB (goal <= 16 MiB), after the downloads ${after.toFixed(1)} MiB`);
