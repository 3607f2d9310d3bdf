// A program run in a Pod's container through the API server's exec subresource, over a WebSocket
// speaking v5.channel.k8s.io: each message's first byte its channel (0 stdin, 1 stdout, 2 stderr,
// 3 the exit status, 255 a stream's close), so stdin can be closed while stdout still reads.
import { PassThrough, Writable } from "node:stream";
import WebSocket from "ws";
import { fail, ok, type Result } from "../daemon/result.js";
import { redactWords } from "../daemon/redact.js";
import { authHeaders, codeOfStatus, type KubeApi } from "./api.js";

export const EXEC_PROTOCOL = "v5.channel.k8s.io";
const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const STATUS = 3;
const CLOSE = 255;

export interface Exit {
  /** The exit code, or null when the API server reported a failure that names none. */
  code: number | null;
  /** The API server's words for a failure. */
  message?: string;
}

export interface ExecStream {
  stdin: Writable;
  stdout: PassThrough;
  /** stderr's text, up to 4 KiB. */
  stderr(): string;
  /** Settles when the program's status arrives or the socket closes. */
  exit: Promise<Exit>;
  /** Ends the socket (the program gets EOF and, past it, the API server ends the stream). */
  close(): void;
}

export interface ExecTarget {
  namespace: string;
  pod: string;
  container: string;
}

/** The exec's status message as an exit. */
export function exitOf(text: string): Exit {
  try {
    const status = JSON.parse(text) as { status?: string; message?: string; details?: { causes?: Array<{ reason?: string; message?: string }> } };
    if (status.status === "Success") return { code: 0 };
    const cause = status.details?.causes?.find((c) => c.reason === "ExitCode");
    const code = cause?.message !== undefined && /^\d+$/.test(cause.message) ? Number(cause.message) : null;
    return { code, ...(status.message ? { message: redactWords(status.message.slice(0, 400)) } : {}) };
  } catch {
    return { code: null, message: "the exec's status is not JSON" };
  }
}

/** The exec's URL for argv. */
export function execUrl(server: string, target: ExecTarget, argv: readonly string[], stdin: boolean): string {
  const url = new URL(`${server.replace(/^http/, "ws")}/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.pod)}/exec`);
  url.searchParams.set("container", target.container);
  url.searchParams.set("stdout", "true");
  url.searchParams.set("stderr", "true");
  if (stdin) url.searchParams.set("stdin", "true");
  for (const arg of argv) url.searchParams.append("command", arg);
  return url.toString();
}

/** Opens the exec within ms and the caller's signal; the stream once the API server upgraded it. */
export function openExec(
  api: KubeApi,
  target: ExecTarget,
  argv: readonly string[],
  options: { stdin: boolean; ms: number; signal?: AbortSignal | undefined },
): Promise<Result<ExecStream>> {
  const what = `exec of ${argv[0]} in ${target.pod}`;
  if (options.signal?.aborted) return Promise.resolve(fail("aborted", `${what} was aborted before it was asked`));
  const agent = api.agent();
  if (!agent.ok) return Promise.resolve(agent);
  const url = execUrl(api.server, target, argv, options.stdin);
  const ws = new WebSocket(url, [EXEC_PROTOCOL], {
    agent: agent.value,
    headers: authHeaders(api.credentials),
    handshakeTimeout: options.ms,
    followRedirects: false,
    perMessageDeflate: false,
    // Inside TLS no intermediary reads the frames, so the mask RFC 6455 asks of a client guards
    // nothing; a zero mask lets ws skip masking each byte in JavaScript (a fleet's daemon uploads
    // spent more CPU on that than on anything else).
    ...(url.startsWith("wss:") ? { generateMask: (mask: Buffer) => void mask.fill(0) } : {}),
  });
  const stdout = new PassThrough();
  let stderr = "";
  let settle!: (exit: Exit) => void;
  const exit = new Promise<Exit>((resolve) => (settle = resolve));
  ws.on("message", (data: Buffer) => {
    if (data.length === 0) return;
    const channel = data[0];
    const body = data.subarray(1);
    if (channel === STDOUT) stdout.write(body);
    else if (channel === STDERR && stderr.length < 4096) stderr += body.toString("utf8");
    else if (channel === STATUS) settle(exitOf(body.toString("utf8")));
  });
  ws.on("close", () => {
    stdout.end();
    settle({ code: null, message: "the exec's stream closed before it reported an exit" });
  });
  const stdin = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (ws.readyState !== WebSocket.OPEN) return callback(new Error("the exec's stream is closed"));
      ws.send(Buffer.concat([Buffer.from([STDIN]), chunk]), callback);
    },
    final(callback) {
      if (ws.readyState !== WebSocket.OPEN) return callback();
      ws.send(Buffer.from([CLOSE, STDIN]), callback);
    },
  });
  stdin.on("error", () => undefined);
  const close = () => {
    if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.terminate();
  };
  return new Promise<Result<ExecStream>>((resolve) => {
    const onAbort = () => {
      close();
      resolve(fail("aborted", `${what} was aborted`));
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const done = (result: Result<ExecStream>) => {
      options.signal?.removeEventListener("abort", onAbort);
      resolve(result);
    };
    ws.once("open", () => {
      if (ws.protocol !== EXEC_PROTOCOL) {
        close();
        return done(
          fail("unsupported", `${what}: the API server speaks ${ws.protocol || "no channel protocol"}, not ${EXEC_PROTOCOL} (Kubernetes 1.30 or later)`),
        );
      }
      done(ok({ stdin, stdout, stderr: () => stderr, exit, close }));
    });
    ws.once("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8").trim();
        // A Status body's message; else the body itself, which says why an exec was refused before its upgrade.
        let message = text ? `HTTP ${res.statusCode}: ${text}` : `HTTP ${res.statusCode}`;
        try {
          message = (JSON.parse(text) as { message?: string }).message ?? message;
        } catch {
          // not JSON: the status and the text
        }
        close();
        done(fail(codeOfStatus(res.statusCode ?? 0), `${what}: ${redactWords(message.slice(0, 400))}`));
      });
    });
    ws.once("error", (error) => done(fail("unreachable", `${what}: ${redactWords(error.message)}`)));
  });
}
