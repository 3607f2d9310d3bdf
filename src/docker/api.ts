// The Docker Engine API over its unix socket, TLS or ssh (undici, transport.ts), the provider's way to Docker for everything
// but build and pull (cli.ts). Every call is bounded in time and ended by the caller's signal; its
// outcome is a value, and what it means is the caller's to say. The API version is the engine's
// own, capped at the newest this provider was written against, and never below 1.41 (Engine 20.10,
// the first with a private cgroup namespace).
import type { Duplex } from "node:stream";
import type { Pool } from "undici";
import type { ResultCode } from "../daemon/result.js";
import { DEFAULT_ENGINE, type EngineAddress, engineAt, isRemote } from "./engine.js";
import { type Connections, connectionsTo } from "./transport.js";
import { boundedBy, untilAborted } from "../daemon/bound.js";

/** A call not given its own bound. */
export const ENGINE_CALL_MS = 60_000;
const OLDEST_API = [1, 41] as const;
const NEWEST_API = [1, 47] as const;
/** The largest reply read whole (a list of thousands of containers is a few MiB). */
const MAX_REPLY_BYTES = 64 * 1024 * 1024;

export interface EngineBound {
  signal?: AbortSignal;
  /** Past it the call is ended and the outcome is timedOut. */
  timeoutMs?: number;
}

export interface EngineCall extends EngineBound {
  query?: Record<string, string | number | boolean>;
  /** Sent as JSON, or a tar archive's bytes as they are (PUT /containers/{id}/archive). */
  body?: unknown;
}

/** What a call came to: the engine's status and JSON, or why there is none. */
export interface Reply<T = unknown> {
  ok: boolean;
  /** The HTTP status; 0 when the engine did not answer. */
  status: number;
  /** The JSON reply (or, for raw calls, the bytes). */
  value: T | undefined;
  /** The engine's own message on a failure ({"message": ...}), or the connection's error. */
  message: string;
  aborted: boolean;
  timedOut: boolean;
  /** The engine was not reached: no socket, refused, or no permission. */
  unreachable: boolean;
}

/** What the engine was asked; onCall sees each (the tests abort at a step, a bench counts). */
export interface Asked {
  method: string;
  /** Without the version prefix: /containers/{id}/json. */
  path: string;
}

function failed<T>(status: number, message: string, flags: Partial<Pick<Reply, "aborted" | "timedOut" | "unreachable">> = {}): Reply<T> {
  return { ok: false, status, value: undefined, message, aborted: false, timedOut: false, unreachable: false, ...flags };
}

/** "1.41" as [1, 41]; undefined for anything else. */
function versionOf(text: string | undefined): readonly [number, number] | undefined {
  const m = /^(\d+)\.(\d+)$/.exec(text ?? "");
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}
const below = (a: readonly [number, number], b: readonly [number, number]) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

export class DockerEngine {
  readonly address: EngineAddress;
  readonly #onCall: ((asked: Asked) => void) | undefined;
  #open: Connections | undefined;
  #version: Promise<Reply<string>> | undefined;

  /** The engine at an address (default unix:///var/run/docker.sock); one refused throws in words. */
  constructor(address: string | EngineAddress = DEFAULT_ENGINE, onCall?: (asked: Asked) => void) {
    if (typeof address === "string") {
      const at = engineAt(address);
      if (!at.ok) throw new TypeError(at.error.message, { cause: at.error });
      this.address = at.value;
    } else {
      this.address = address;
    }
    this.#onCall = onCall;
  }

  get #connections(): Pool {
    // Connections open when asked for and are kept alive; a fleet's creates run side by side.
    this.#open ??= connectionsTo(this.address, { maxResponseSize: MAX_REPLY_BYTES, keepAliveTimeout: 10_000 });
    return this.#open.pool;
  }

  /** The API version to speak: the engine's (from /_ping, once), capped; a failed read is not kept. */
  #apiVersion(bound: EngineBound): Promise<Reply<string>> {
    this.#version ??= (async () => {
      const pinged = await this.#request("GET", "/_ping", { timeoutMs: 30_000 });
      if (!("bytes" in pinged)) return pinged as Reply<string>;
      const header = pinged.headers["api-version"];
      const theirs = versionOf(Array.isArray(header) ? header[0] : header);
      if (pinged.status !== 200 || !theirs) {
        return failed<string>(pinged.status, "the engine did not say which API version it speaks (no API-Version on /_ping); is the socket Docker's?");
      }
      if (below(theirs, OLDEST_API)) {
        return failed<string>(
          pinged.status,
          `this Docker engine speaks API ${theirs.join(".")}; the provider needs ${OLDEST_API.join(".")} (Engine 20.10) or later`,
        );
      }
      const speak = below(NEWEST_API, theirs) ? NEWEST_API : theirs;
      return { ok: true, status: pinged.status, value: `v${speak.join(".")}`, message: "", aborted: false, timedOut: false, unreachable: false };
    })().then((reply) => {
      if (!reply.ok) this.#version = undefined;
      return reply;
    });
    // A caller's abort ends its own wait, not the read others share.
    return untilAborted(this.#version, bound.signal, () => failed<string>(0, "aborted", { aborted: true }));
  }

  /** One call, its JSON reply read whole. */
  async call<T = unknown>(method: string, path: string, call: EngineCall = {}): Promise<Reply<T>> {
    return this.#versioned<T>(method, path, call, false);
  }

  /** One call whose reply is bytes (a container's logs). */
  async raw(method: string, path: string, call: EngineCall = {}): Promise<Reply<Buffer>> {
    return this.#versioned<Buffer>(method, path, call, true);
  }

  async #versioned<T>(method: string, path: string, call: EngineCall, raw: boolean): Promise<Reply<T>> {
    this.#onCall?.({ method, path });
    if (call.signal?.aborted) return failed<T>(0, "aborted", { aborted: true });
    const version = await this.#apiVersion(call);
    if (!version.ok) return version as unknown as Reply<T>;
    const answered = await this.#request(method, `/${version.value}${path}`, call);
    if (!("bytes" in answered)) return answered as Reply<T>;
    const { status, bytes } = answered;
    if (status < 200 || status >= 300) {
      let message = bytes.toString("utf8").trim();
      try {
        message = String((JSON.parse(message) as { message?: unknown }).message ?? message);
      } catch {
        // not JSON: the text as it came
      }
      return failed<T>(status, message);
    }
    if (raw) return { ok: true, status, value: bytes as T, message: "", aborted: false, timedOut: false, unreachable: false };
    try {
      const value = bytes.length ? (JSON.parse(bytes.toString("utf8")) as T) : undefined;
      return { ok: true, status, value, message: "", aborted: false, timedOut: false, unreachable: false };
    } catch {
      return failed<T>(status, "the engine's reply is not JSON; is the socket Docker's?");
    }
  }

  /** The request sent and its reply read whole, bounded; or why there is none. */
  async #request(
    method: string,
    path: string,
    call: EngineCall,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer } | Reply<never>> {
    const { bound: timeout, signal } = boundedBy(call.timeoutMs ?? ENGINE_CALL_MS, call.signal);
    const query = call.query ? `?${new URLSearchParams(Object.entries(call.query).map(([k, v]): [string, string] => [k, String(v)])).toString()}` : "";
    const tar = Buffer.isBuffer(call.body);
    const body = call.body === undefined ? undefined : tar ? (call.body as Buffer) : JSON.stringify(call.body);
    try {
      const reply = await this.#connections.request({
        method: method as "GET",
        path: `${path}${query}`,
        signal,
        ...(body === undefined ? {} : { body, headers: { "content-type": tar ? "application/x-tar" : "application/json" } }),
      });
      return { status: reply.statusCode, headers: reply.headers, bytes: Buffer.from(await reply.body.arrayBuffer()) };
    } catch (error) {
      if (call.signal?.aborted) return failed<never>(0, "aborted", { aborted: true });
      if (timeout.aborted) return failed<never>(0, "timed out", { timedOut: true });
      return failed<never>(0, (error as Error).message, { unreachable: true });
    }
  }

  /**
   * An attached exec's stream: POST /exec/{id}/start upgraded to a raw connection (Upgrade: tcp).
   * Stdin goes in as written; stdout and stderr come out in Docker's multiplexed frames.
   */
  hijack(id: string, bound: EngineBound = {}): Promise<Reply<Duplex>> {
    return this.#upgrade(`/exec/${id}/start`, "", { Detach: false, Tty: false }, bound);
  }

  /**
   * A container's own stdio, attached as it streams from now on (no logs): POST
   * /containers/{id}/attach upgraded. With stdin, what is written is the container's stdin;
   * stdout and stderr come out in Docker's multiplexed frames (a container without a TTY).
   */
  attach(id: string, streams: { stdin: boolean }, bound: EngineBound = {}): Promise<Reply<Duplex>> {
    const query = `?stream=1&logs=0&stdin=${streams.stdin ? 1 : 0}&stdout=1&stderr=1`;
    return this.#upgrade(`/containers/${encodeURIComponent(id)}/attach`, query, undefined, bound);
  }

  async #upgrade(path: string, query: string, body: unknown, bound: EngineBound): Promise<Reply<Duplex>> {
    this.#onCall?.({ method: "POST", path });
    if (bound.signal?.aborted) return failed<Duplex>(0, "aborted", { aborted: true });
    const version = await this.#apiVersion(bound);
    if (!version.ok) return version as unknown as Reply<Duplex>;
    const { bound: timeout, signal } = boundedBy(bound.timeoutMs ?? ENGINE_CALL_MS, bound.signal);
    try {
      // undici's upgrade sends a request body as any request does (its types omit it).
      const upgraded = await this.#connections.upgrade({
        path: `/${version.value}${path}${query}`,
        method: "POST",
        protocol: "tcp",
        signal,
        ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      } as Parameters<Pool["upgrade"]>[0]);
      return { ok: true, status: 101, value: upgraded.socket, message: "", aborted: false, timedOut: false, unreachable: false };
    } catch (error) {
      if (bound.signal?.aborted) return failed<Duplex>(0, "aborted", { aborted: true });
      if (timeout.aborted) return failed<Duplex>(0, "timed out", { timedOut: true });
      const status = Number((error as { statusCode?: unknown }).statusCode ?? 0);
      return failed<Duplex>(status, (error as Error).message, { unreachable: status === 0 });
    }
  }

  /** Closes the kept connections (and an ssh engine's shared login); a later call opens new ones. */
  async close(): Promise<void> {
    const open = this.#open;
    this.#open = undefined;
    await open?.close();
  }
}

/**
 * A failed call as a result's code and words: what was asked, and the next step. The engine's
 * message is Docker's one line saying what it refused, so it is kept.
 */
export function engineFailure(what: string, reply: Reply, engine: EngineAddress): { code: ResultCode; message: string } {
  if (reply.aborted) return { code: "aborted", message: `${what} was aborted` };
  if (reply.timedOut) return { code: "timeout", message: `${what} did not finish in time; is the Docker host overloaded?` };
  if (reply.unreachable) {
    // A remote engine's refusal is the transport's own words: TLS's, or ssh's.
    const why = isRemote(engine) && reply.message ? `: ${reply.message}` : "";
    return {
      code: "unreachable",
      message: `${what}: Docker is not answering at ${engine.address} (from ${engine.from}; is it running, and may this user reach it?)${why}`,
    };
  }
  if (reply.status === 0) return { code: "failed", message: `${what} failed: ${reply.message}` };
  // The engine's status and words name Docker, so an error far from this call (a restarted engine
  // under an up) still says which part refused.
  const said = reply.message ? `: ${reply.message}` : "";
  return { code: "failed", message: `${what} failed: the Docker engine answered HTTP ${reply.status}${said}` };
}
