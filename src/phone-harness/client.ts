// The in-process client a phone's connection gives: each protocol method answered with adb
// commands on the phone's link (no daemon runs on the phone), and every method a phone does not
// have refused in words.
import { CallError, type CallOptions, type ComputerClient } from "../daemon/client.js";
import { type Hello, METHODS, type Method, type ParamsOf, type ResultOf } from "../daemon/protocol.js";
import { AdbError } from "./adb.js";
import { installApp, launchApp, listApps, terminateApp, uiTree } from "./apps.js";
import { runActions } from "./input.js";
import type { PhoneLink } from "./link.js";
import { PhoneScreen } from "./screen.js";

const NO_SHELL = "a phone has no shell in the computer protocol (exec, files, processes and tar are not offered on a phone-harness phone)";
/** The methods a phone refuses, each in its words. */
const REFUSED: Record<string, string> = {
  "deadline.extend": "a phone-harness phone lives the timeout_seconds it was made with: its deadline cannot be extended",
  "apps.install": "the phone harness takes no files: a phone-harness phone installs an app only from the provider's installFrom folder, and none was given",
};

type Handler = (params: never, signal: AbortSignal | undefined) => Promise<unknown> | unknown;

export class PhoneClient implements ComputerClient {
  private readonly screen: PhoneScreen;
  private closed = false;
  /** Aborted by close(): a screencap, a wait or a command in flight ends with the connection. */
  private readonly closing = new AbortController();
  private readonly handlers: Partial<Record<Method, Handler>>;

  constructor(
    private readonly link: PhoneLink,
    readonly hello: Hello,
    scale: number,
    /** The folder whose APKs apps.install takes (the provider's installFrom); without it, apps.install is refused. */
    installFrom?: string,
  ) {
    this.screen = new PhoneScreen(link, scale);
    this.handlers = {
      hello: () => this.hello,
      ping: async (_: unknown, s) => (await link.shell("echo", s), {}),
      "screen.shot": (p: ParamsOf<"screen.shot">, s) => this.screen.shot(p.region, s),
      "screen.read": (p: ParamsOf<"screen.read">) => this.screen.read(p.id, p.offset),
      "screen.watch": (p: ParamsOf<"screen.watch">, s) => this.screen.watch(p, s),
      "input.actions": (p: ParamsOf<"input.actions">, s) => runActions(link, p.actions, s),
      "apps.list": (_: unknown, s) => listApps(link, s),
      "apps.launch": (p: ParamsOf<"apps.launch">, s) => launchApp(link, p.id, s),
      "apps.terminate": (p: ParamsOf<"apps.terminate">, s) => terminateApp(link, p.id, s),
      "apps.ui_tree": (_: unknown, s) => uiTree(link, s),
      ...(installFrom !== undefined
        ? { "apps.install": (p: ParamsOf<"apps.install">, s: AbortSignal | undefined) => installApp(link, installFrom, p.path, s) }
        : {}),
    };
  }

  async call<M extends Method>(method: M, params: ParamsOf<M>, options: CallOptions = {}): Promise<ResultOf<M>> {
    const schema = METHODS[method];
    const parsed = schema?.params.safeParse(params ?? {});
    if (schema && !parsed?.success) throw new CallError("invalid", `${method}: ${parsed?.error.issues[0]?.message ?? "bad params"}`, method);
    return schema.result.parse(await this.request(method, parsed?.data, options)) as ResultOf<M>;
  }

  async request(method: string, params: unknown, options: CallOptions = {}): Promise<unknown> {
    if (this.closed) throw new CallError("closed", "the phone's connection is closed", method);
    const handler = this.handlers[method as Method];
    if (!handler) throw new CallError("unsupported", `${method}: ${REFUSED[method] ?? (method in METHODS ? NO_SHELL : "no such method")}`, method);
    const signal = options.signal ? AbortSignal.any([options.signal, this.closing.signal]) : this.closing.signal;
    try {
      return await handler((params ?? {}) as never, signal);
    } catch (error) {
      if (this.closing.signal.aborted) throw new CallError("closed", `${method}: the phone's connection was closed`, method);
      if (error instanceof CallError) throw error;
      if (error instanceof AdbError)
        throw new CallError(error.kind === "aborted" ? "aborted" : "closed", `${method}: the phone's adb link failed: ${error.message}`, method);
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    await this.link.close();
  }
}
