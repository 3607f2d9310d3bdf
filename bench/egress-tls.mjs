// An opened host's HTTPS through the egress proxy (issue 52), on this machine's loopback: a 100
// MiB download and a small request, each over a CONNECT the proxy opens (its TLS ended at the
// proxy with its CA's leaf, the request judged by a rule, sent on over TLS verified against the
// upstream's CA) beside the same over today's CONNECT tunnel (the bytes spliced, the client's TLS
// ending at the upstream), interleaved round by round from two proxies of the same build; each
// throughput figure is the median of the rounds' own ratios. The upstream is a Node HTTPS server
// with a certificate for up.bench.test from a CA openssl makes here; the proxies resolve that name
// to it through their test-only seam. Goals: the opened download >= 0.5x the tunnel's; a small
// request's added latency <= 2 ms p50 (a new CONNECT and TLS handshake for each, on both sides).
// Everything it made goes at the end, or when stopped half-way (SIGINT, SIGTERM).
// Run after `npm run setup`, as a user that may bind port 443 of 127.0.2.1:
//   node bench/egress-tls.mjs [rounds] [small requests]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:https";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { proxyBinaryBeside } from "../dist/src/egress/proxy-command.js";
import { onStop } from "./stop.mjs";
import { sendZeros } from "./zeros.mjs";

const rounds = Number(process.argv[2] ?? 7);
const smalls = Number(process.argv[3] ?? 200);
const SIZE = 100 * 1024 * 1024;
const HOST = "up.bench.test";
const toolchain = JSON.parse(readFileSync(new URL("../dist/toolchain.json", import.meta.url), "utf8"));
const binary = proxyBinaryBeside(toolchain.daemon.amd64);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dir = mkdtempSync(join(tmpdir(), "egress-tls-bench-"));
const cleanup = onStop(() => rmSync(dir, { recursive: true, force: true }));

// The upstream's CA and its leaf for up.bench.test.
const ssl = (...args) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
ssl("req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=bench upstream CA");
ssl("req", ...ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", `/CN=${HOST}`);
writeFileSync(join(dir, "san"), `subjectAltName=DNS:${HOST}\n`);
ssl("x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "leaf.pem", "-days", "1", "-extfile", "san");
const upstreamCA = readFileSync(join(dir, "ca.pem"), "utf8");

const server = createServer({ key: readFileSync(join(dir, "leaf.key")), cert: readFileSync(join(dir, "leaf.pem")) }, (req, res) => {
  if (req.url !== "/big") return res.end("ok");
  res.writeHead(200, { "Content-Length": SIZE, Connection: "close" });
  sendZeros(res, SIZE);
});
await new Promise((resolve) => server.listen(443, "127.0.2.1", resolve));

/** A proxy of this build on a socket of its own, started and ready; opened: with a rule for the host and a CA. */
async function startProxy(opened) {
  const folder = mkdtempSync(join(dir, "proxy-"));
  const socket = join(folder, "egress.sock");
  const caFile = join(folder, "ca.pem");
  const deadline = new Date(Date.now() + 3_600_000).toISOString();
  const argv = [
    "egress",
    "--socket",
    socket,
    "--deadline",
    deadline,
    "--allow",
    HOST,
    "--reachable-for-tests",
    "127.0.2.0/24",
    "--resolve-for-tests",
    `${HOST}=127.0.2.1`,
  ];
  if (opened) argv.push("--rule", `${HOST} GET /`, "--ca-file", caFile, "--upstream-root-for-tests", upstreamCA);
  const proxy = spawn(binary, argv, { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve) => proxy.stdout.on("data", (b) => String(b).includes("ready") && resolve()));
  return { socket, proxy, trust: opened ? readFileSync(caFile, "utf8") : upstreamCA, big: [], small: [] };
}

/** Milliseconds for a CONNECT through p, a TLS handshake inside it and one GET read to its end. */
function through(p, path, want) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const raw = connect(p.socket);
    raw.on("error", reject);
    raw.once("connect", () => raw.write(`CONNECT ${HOST}:443 HTTP/1.1\r\nHost: ${HOST}:443\r\n\r\n`));
    let head = Buffer.alloc(0);
    const onHead = (b) => {
      head = Buffer.concat([head, b]);
      if (!head.includes("\r\n\r\n")) return;
      raw.off("data", onHead);
      if (!head.toString().startsWith("HTTP/1.1 200")) return reject(new Error(`CONNECT: ${head}`));
      const c = tlsConnect({ socket: raw, servername: HOST, ca: [p.trust], ALPNProtocols: ["http/1.1"] });
      let got = 0;
      c.on("secureConnect", () => c.write(`GET ${path} HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`));
      c.on("data", (d) => (got += d.length));
      c.on("end", () => (got >= want ? resolve(performance.now() - t0) : reject(new Error(`read ${got} bytes of ${path}`))));
      c.on("error", reject);
    };
    raw.on("data", onHead);
  });
}

const tunnel = await startProxy(false);
const opened = await startProxy(true);
const ratios = [];
for (let i = 0; i < rounds; i += 1) {
  const t = await through(tunnel, "/big", SIZE);
  const o = await through(opened, "/big", SIZE);
  tunnel.big.push(t);
  opened.big.push(o);
  ratios.push(t / o);
}
for (let i = 0; i < smalls; i += 1) {
  tunnel.small.push(await through(tunnel, "/small", 2));
  opened.small.push(await through(opened, "/small", 2));
}
for (const p of [tunnel, opened]) p.proxy.kill("SIGTERM");
server.close();
await cleanup();

const mibps = (ms) => (SIZE / 1024 / 1024 / (ms / 1000)).toFixed(0);
console.log(`HTTPS to an opened host through computerd-egress (${binary}), ${rounds} rounds of 100 MiB and ${smalls} small requests, interleaved:`);
console.log(`  tunnel (anchor: today's CONNECT, spliced)  download median ${median(tunnel.big).toFixed(0)} ms  ${mibps(median(tunnel.big))} MiB/s`);
console.log(`  opened (TLS ended at the proxy, judged)    download median ${median(opened.big).toFixed(0)} ms  ${mibps(median(opened.big))} MiB/s`);
console.log(`  opened download: ${median(ratios).toFixed(2)}x the tunnel's, median of the rounds' ratios (goal >= 0.5x)`);
const p50t = median(tunnel.small);
const p50o = median(opened.small);
console.log(
  `  small request (CONNECT, TLS, GET) p50: tunnel ${p50t.toFixed(2)} ms, opened ${p50o.toFixed(2)} ms: ${(p50o - p50t).toFixed(2)} ms added (goal <= 2 ms)`,
);
