// The toolbox's calls the provider makes, at toolboxProxyUrl + / + the sandbox's id: the upload,
// /process/execute, and the session API (a session, a command in it, its input, its log, its end).
import WebSocket from "ws";
import { z } from "zod";
import { fail, ok, type Result } from "../daemon/result.js";
import { keyUrlProblem } from "../contract/base-url.js";
import { type DaytonaApi, expect, expectDone } from "./api.js";
import { TIMEOUTS } from "./constants.js";
import { ExecuteResponse, SessionExecResponse } from "./schemas.js";

/** Opens the log WebSocket; an option, so a test can give its own. */
export type WebSocketFactory = (url: string, headers: Record<string, string>) => WebSocket;

export const defaultWebSocket: WebSocketFactory = (url, headers) =>
  new WebSocket(url, { headers, followRedirects: false, handshakeTimeout: TIMEOUTS.requestMs, perMessageDeflate: false });

const AnyJson = z.unknown();
const seg = encodeURIComponent;

export class Toolbox {
  readonly base: string;
  readonly #api: DaytonaApi;
  readonly #key: string;
  readonly #webSocket: WebSocketFactory;

  /** The toolbox of one sandbox; refused in words when its URL may not carry the key. */
  static of(api: DaytonaApi, key: string, proxyUrl: string, sandboxId: string, webSocket: WebSocketFactory): Result<Toolbox> {
    const base = `${proxyUrl.replace(/\/+$/, "")}/${seg(sandboxId)}`;
    const problem = keyUrlProblem(base);
    if (problem) return fail("refused", `the sandbox's toolbox URL ${problem}`);
    return ok(new Toolbox(api, key, base, webSocket));
  }

  private constructor(api: DaytonaApi, key: string, base: string, webSocket: WebSocketFactory) {
    this.#api = api;
    this.#key = key;
    this.base = base;
    this.#webSocket = webSocket;
  }

  /** POST /files/upload-v2?path=, multipart field file; retried. */
  async upload(path: string, bytes: Uint8Array, signal?: AbortSignal): Promise<Result<undefined>> {
    const what = `uploading the daemon to ${path}`;
    const form = () => {
      const body = new FormData();
      body.set("file", new Blob([bytes]), "computerd");
      return body;
    };
    // A FormData is read once per send, so each try builds its own.
    let last: Result<undefined> = fail("failed", what);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      last = expectDone(
        await this.#api.request(this.base, "/files/upload-v2", what, { method: "POST", query: { path }, body: form(), signal, timeoutMs: TIMEOUTS.uploadMs }),
        what,
      );
      if (last.ok || signal?.aborted || !(last.error.code === "failed" || last.error.code === "unreachable" || last.error.code === "timeout")) break;
    }
    return last;
  }

  /** POST /process/execute: the command piped to the sandbox's shell; never retried. */
  async execute(command: string, what: string, timeoutMs: number, signal?: AbortSignal): Promise<Result<ExecuteResponse>> {
    const answer = await this.#api.request(this.base, "/process/execute", what, {
      method: "POST",
      body: { command, timeout: Math.ceil(timeoutMs / 1000) },
      signal,
      timeoutMs: timeoutMs + 10_000,
    });
    return expect(answer, what, ExecuteResponse);
  }

  async createSession(sessionId: string, signal?: AbortSignal): Promise<Result<undefined>> {
    const what = `making the toolbox session ${sessionId}`;
    return expectDone(await this.#api.request(this.base, "/process/session", what, { method: "POST", body: { sessionId }, signal }), what);
  }

  /** A command run in the background in a session, its input not echoed; its command id. */
  async exec(sessionId: string, command: string, what: string, signal?: AbortSignal): Promise<Result<string>> {
    const answer = await this.#api.request(this.base, `/process/session/${seg(sessionId)}/exec`, what, {
      method: "POST",
      body: { command, runAsync: true, suppressInputEcho: true },
      signal,
    });
    const parsed = expect(answer, what, SessionExecResponse);
    return parsed.ok ? ok(parsed.value.cmdId) : parsed;
  }

  /** One whole line (or more) to a command's stdin; never retried. */
  async input(sessionId: string, cmdId: string, data: string, signal?: AbortSignal): Promise<Result<undefined>> {
    const what = "sending a line to the bridge";
    return expectDone(
      await this.#api.request(this.base, `/process/session/${seg(sessionId)}/command/${seg(cmdId)}/input`, what, { method: "POST", body: { data }, signal }),
      what,
    );
  }

  /** A command's log so far, as text (init's words when it refused to start); retried. */
  async logs(sessionId: string, cmdId: string, signal?: AbortSignal): Promise<Result<string>> {
    const what = "reading a command's log";
    const answer = await this.#api.request(this.base, `/process/session/${seg(sessionId)}/command/${seg(cmdId)}/logs`, what, { signal, retry: true });
    const read = expect(answer, what, AnyJson);
    if (!read.ok) return read;
    return ok(answer.ok ? answer.value.text : "");
  }

  /** DELETE /process/session/{id}: ends the session's commands; retried. */
  async deleteSession(sessionId: string, signal?: AbortSignal): Promise<Result<undefined>> {
    const what = `deleting the toolbox session ${sessionId}`;
    const answer = await this.#api.request(this.base, `/process/session/${seg(sessionId)}`, what, { method: "DELETE", signal, retry: true });
    if (answer.ok && answer.value.status === 404) return ok();
    return expectDone(answer, what);
  }

  /** The command's log as a WebSocket, followed, with stdout and stderr prefixed apart. */
  followLogs(sessionId: string, cmdId: string): WebSocket {
    const url = new URL(`${this.base}/process/session/${seg(sessionId)}/command/${seg(cmdId)}/logs`);
    url.searchParams.set("follow", "true");
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    return this.#webSocket(url.toString(), { Authorization: `Bearer ${this.#key}`, "X-Daytona-Split-Output": "true" });
  }
}
