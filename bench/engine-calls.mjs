// The Docker engine's API calls counted: a unix socket that forwards every connection to the
// engine's own and reads each HTTP request that passes (its method and path, ids and names taken
// out), so a bench can point DOCKER_HOST at it and say how many calls a step made, of which kind.
// A connection upgraded to a raw stream (an exec's or an attach's) is passed through unread once
// its request is counted. Used by scale.mjs; it changes nothing that passes, and goes
// when the bench stops.
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onStop } from "./stop.mjs";

const CRLF2 = Buffer.from("\r\n\r\n");
const CRLF = Buffer.from("\r\n");

/** A request's path as a kind: version, query, ids and names out (`POST /containers/*\/start`). */
export function callKind(method, target) {
  const path = target
    .split("?")[0]
    .replace(/^\/v[\d.]+\//, "/")
    .replace(/^\/(containers|exec|volumes|networks|plugins)\/(?!json$|create$|prune$)[^/]+/, "/$1/*")
    .replace(/^\/images\/(?!json$|create$|prune$|load$|search$|get$).+?(\/json|\/push|\/tag|\/history|\/get)?$/, "/images/*$1");
  return `${method} ${path}`;
}

/**
 * Reads one direction of a connection as HTTP/1.1 requests, calling seen(method, target) for each;
 * once a request asks an upgrade, what follows is a raw stream and is not read.
 */
function requestReader(seen) {
  let buf = Buffer.alloc(0);
  let state = { at: "head" };
  return (chunk) => {
    if (state.at === "raw") return;
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (state.at === "head") {
        const end = buf.indexOf(CRLF2);
        if (end < 0) return;
        const lines = buf.subarray(0, end).toString("latin1").split("\r\n");
        buf = buf.subarray(end + 4);
        const [method, target] = lines[0].split(" ");
        seen(method, target);
        const header = (name) =>
          lines
            .find((l) => l.toLowerCase().startsWith(`${name}:`))
            ?.slice(name.length + 1)
            .trim();
        if (header("upgrade") !== undefined) {
          state = { at: "raw" };
          return;
        }
        if (/chunked/i.test(header("transfer-encoding") ?? "")) state = { at: "size" };
        else state = { at: "skip", left: Number(header("content-length") ?? 0), then: "head" };
      } else if (state.at === "skip") {
        // A body, or one chunk and its CRLF: passed over, then what follows it.
        const take = Math.min(state.left, buf.length);
        buf = buf.subarray(take);
        state.left -= take;
        if (state.left > 0) return;
        state = { at: state.then };
      } else if (state.at === "size") {
        const end = buf.indexOf(CRLF);
        if (end < 0) return;
        const size = parseInt(buf.subarray(0, end).toString("latin1"), 16);
        buf = buf.subarray(end + 2);
        // The last chunk is followed by trailers and an empty line, read as a head with no request.
        state = size === 0 ? { at: "trailer" } : { at: "skip", left: size + 2, then: "size" };
      } else if (state.at === "trailer") {
        const end = buf.indexOf(CRLF);
        if (end < 0) return;
        buf = buf.subarray(end + 2);
        if (end === 0) state = { at: "head" };
      }
    }
  };
}

/** A counting socket in front of the engine at enginePath; its host is DOCKER_HOST's value. */
export async function countingEngine(enginePath = "/var/run/docker.sock") {
  const dir = mkdtempSync(join(tmpdir(), "agentrun-bench-calls-"));
  const socket = join(dir, "engine.sock");
  const counts = new Map();
  const server = createServer((client) => {
    const engine = connect(enginePath);
    const read = requestReader((method, target) => {
      const kind = callKind(method, target);
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    });
    client.on("data", (chunk) => read(chunk));
    client.pipe(engine).pipe(client);
    const end = () => {
      client.destroy();
      engine.destroy();
    };
    client.on("error", end);
    engine.on("error", end);
  });
  const open = new Set();
  server.on("connection", (c) => (open.add(c), c.on("close", () => open.delete(c))));
  // Removed on a stop too; what is still connected is cut, as the bench is ending.
  const close = onStop(async () => {
    for (const c of open) c.destroy();
    await new Promise((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });
  await new Promise((resolve, reject) => server.listen(socket, resolve).on("error", reject));
  return {
    host: `unix://${socket}`,
    /** The calls since the last take, by kind, and their sum; the count starts again from zero. */
    take() {
      const taken = new Map([...counts].sort((a, b) => b[1] - a[1]));
      counts.clear();
      return { total: [...taken.values()].reduce((a, b) => a + b, 0), byKind: taken };
    },
    close,
  };
}
