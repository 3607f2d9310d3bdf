// A browser's in-process client: no computerd runs (daemon none), so hello and ping are answered
// from the vendor's API (a read of the browser) and every other method is refused in words: a
// browser is driven over CDP, through the connection's cdp.url.
import { CallError, type CallOptions, type ComputerClient } from "../../daemon/client.js";
import type { Hello } from "../../daemon/protocol.js";
import type { Result } from "../../daemon/result.js";
import type { Browser } from "./vendor.js";

export interface BrowserClientOptions {
  name: string;
  hello: Hello;
  /** Reads the browser now (one vendor call). */
  read(signal: AbortSignal | undefined): Promise<Result<Browser | undefined>>;
}

export class BrowserClient implements ComputerClient {
  readonly #o: BrowserClientOptions;
  #closed = false;

  constructor(options: BrowserClientOptions) {
    this.#o = options;
  }

  call: ComputerClient["call"] = (method, params, options) => this.request(method, params, options) as never;

  async request(method: string, _params: unknown, options: CallOptions = {}): Promise<unknown> {
    if (this.#closed) throw new CallError("closed", `the connection to ${this.#o.name} is closed`, method);
    if (method !== "hello" && method !== "ping") {
      throw new CallError(
        "unsupported",
        `${method} is not a method of a browser computer: no computerd runs in it; drive it over CDP (the connection's cdp.url)`,
        method,
      );
    }
    const read = await this.#o.read(options.signal);
    if (!read.ok)
      throw new CallError(read.error.code === "aborted" ? "aborted" : read.error.code === "timeout" ? "timeout" : "closed", read.error.message, method);
    if (!read.value || read.value.ended) throw new CallError("not_found", `the browser ${this.#o.name} has ended`, method);
    return method === "hello" ? { ...this.#o.hello } : {};
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}
