// The one browser provider: ComputerProvider on a browser vendor's few calls (vendor.ts), shared by
// Browserbase and Kernel. A computer is a vendor browser that answers CDP; create is the one flow
// (createWith) with a create label for an outcome left unknown; connect reads the browser first and
// gives cdp.url from memory (UrlStore); list and attach by labels take at least one label and match
// every label here; watch is CDP's screencast (screencast.ts); release asks the vendor to end it and
// reads it back ended.
import { randomBytes } from "node:crypto";
import type { CallOptions } from "../../daemon/client.js";
import type { Hello } from "../../daemon/protocol.js";
import { packageVersion } from "../../package.js";
import type { Adoption } from "../../contract/adopt.js";
import { attachedIf } from "../../contract/attach.js";
import { checkedSpec } from "../../contract/checked.js";
import { createWith, type Creation, type CreateHooks } from "../../contract/create.js";
import type {
  AttachBy,
  Capabilities,
  CheckedSpec,
  CheckInput,
  ComputerInfo,
  ComputerProvider,
  ComputerRef,
  ComputerSpec,
  Connection,
  CreateOptions,
  NetworkPolicy,
  NetworkReadBack,
  ReadBack,
  ReleaseHow,
} from "../../contract/provider.js";
import { fail, ok, type Result } from "../../daemon/result.js";
import type { LiveView } from "../../contract/watch.js";
import { waitUntil } from "../../contract/wait.js";
import { checkBrowserSpec } from "./check.js";
import { BrowserClient } from "./client.js";
import { BROWSER_IMAGE, COMPUTER_LABEL, CREATE_LABEL, isOurs, matchesAll, NAME_LABEL, shownLabels } from "./labels.js";
import { cdpLiveView } from "./screencast.js";
import { secretUrl, UrlStore } from "./url-store.js";
import { type Browser, type BrowserVendor, outcomeUnknown } from "./vendor.js";

/** The bound of the search a create with an unknown outcome makes for what its label made. */
export const RECOVER_MS = 60_000;
/** The bound of the wait for a browser still starting. */
export const READY_MS = 120_000;
/** The bound of release's read-back. */
export const RELEASE_WAIT_MS = 60_000;

export interface BrowserProviderOptions {
  /** The version hello reports (a drifted twin's differs). */
  version?: string;
  /** First pause of release's read-back (default 250 ms). */
  pollMs?: number;
  /** Where the vendor's calls go, in words (its API's address). */
  target?: string;
}

export class BrowserProvider implements ComputerProvider {
  readonly id: string;
  readonly version: string;
  readonly #vendor: BrowserVendor;
  readonly #target: string;
  readonly #urls = new UrlStore();
  readonly #pollMs: number;

  constructor(vendor: BrowserVendor, options: BrowserProviderOptions = {}) {
    this.#vendor = vendor;
    this.id = vendor.id;
    this.version = options.version ?? packageVersion();
    this.#pollMs = options.pollMs ?? 250;
    this.#target = options.target ?? `the ${vendor.name} API`;
  }

  target(): string {
    return this.#target;
  }

  capabilities(): Capabilities {
    return this.#vendor.capabilities();
  }

  check(spec: CheckInput): Result<CheckedSpec> {
    return checkedSpec(spec, checkBrowserSpec(spec, this.#vendor));
  }

  create(spec: ComputerSpec, options: CreateOptions = {}): Promise<Result<ComputerRef>> {
    return createWith(this.#hooks(), spec, options);
  }

  #hooks(): CreateHooks<CheckedSpec, Browser, Hello> {
    return {
      check: (spec) => this.check(spec),
      adoption: this.#adoption(),
      make: (creation) => this.#make(creation),
      // A browser still starting (Browserbase's PENDING) is waited for: its CDP URL answers once it runs.
      ready: async (creation, browser) => {
        if (!browser.starting) return ok(browser);
        const read = await waitUntil(
          async (signal) => {
            const one = await this.#vendor.read(browser.id, signal);
            if (!one.ok) throw new Error(one.error.message);
            return one.value;
          },
          (b) => !b || b.ended || !b.starting,
          { boundMs: READY_MS, signal: creation.signal, minMs: this.#pollMs, what: `${creation.name} to start`, describe: (b) => (b ? "starting" : "gone") },
        );
        if (!read.ok) return read;
        if (!read.value || read.value.ended) return fail("gone", `${creation.name} ended as it started`);
        return ok({ ...read.value, labels: browser.labels });
      },
      connect: async (creation, browser) => {
        const read = await this.#vendor.read(browser.id, creation.signal);
        if (!read.ok) return read;
        if (!read.value || read.value.ended) return fail("gone", `${creation.name} ended as it was made`);
        return ok(this.#hello());
      },
      verify: async (creation, browser) => {
        const missing = Object.entries(creation.labels).filter(([k, v]) => browser.labels[k] !== v);
        if (missing.length > 0)
          return fail("refused", `${creation.name} came back without the labels it was made with (${missing.map(([k]) => k).join(", ")})`);
        return ok(this.#ref(browser, creation.name));
      },
      failed: (error, at) => (at.undone && at.failedUndos.length === 0 ? { ...error, message: `${error.message}; ${at.name} was released` } : error),
    };
  }

  /**
   * The owner's idempotent create (src/contract/adopt.ts), beside the create label: the label
   * covers a create whose answer this process lost, found and released at once; the owner labels
   * (in the same create request) cover a create whose process ended before it could look, so the
   * owner's next create adopts that browser when whole and as declared, or releases it.
   */
  #adoption(): Adoption {
    return {
      list: async (labels, options) => {
        const listed = await this.#listed(labels, options);
        return listed.ok ? ok(listed.value.map((b) => ({ ref: this.#ref(b, b.labels[NAME_LABEL]!), state: "running" as const }))) : listed;
      },
      read: (by, options) => this.read(by, options),
      remove: (ref) => this.#end(ref.id, AbortSignal.timeout(RELEASE_WAIT_MS)),
      defaults: this.capabilities().defaults,
    };
  }

  /** One create request with the create label; an unknown outcome finds what that label made and releases it. */
  async #make(creation: Creation<CheckedSpec>): Promise<Result<Browser>> {
    const mark = randomBytes(8).toString("hex");
    const labels = { ...creation.labels, [COMPUTER_LABEL]: "1", [NAME_LABEL]: creation.name, [CREATE_LABEL]: mark };
    const opened = await this.#vendor.open({ lifetimeMs: creation.spec.lifetimeMs, labels }, creation.signal);
    if (!opened.ok) {
      if (!outcomeUnknown(opened.error)) return opened;
      const recovered = await this.#recover(mark);
      return { ok: false, error: { ...opened.error, message: `${opened.error.message}; ${recovered}` } };
    }
    const browser = opened.value;
    this.#urls.remember(browser.id, browser.cdpUrl);
    creation.undo.push({ what: creation.name, run: async (signal) => this.#end(browser.id, signal) });
    return ok({ ...browser, labels: { ...browser.labels } });
  }

  /** What a create whose outcome is unknown says after looking for what its label made, and releasing each. */
  async #recover(mark: string): Promise<string> {
    const signal = AbortSignal.timeout(RECOVER_MS);
    const found = await this.#vendor.list([CREATE_LABEL, mark], signal);
    if (!found.ok)
      return `its outcome is unknown, and the search for what it made failed (${found.error.message}): a browser may be left; list by label to find it`;
    const made = found.value.filter((b) => b.labels[CREATE_LABEL] === mark);
    if (made.length === 0) return `its outcome was unknown; no browser carrying its create label was found, so none was made`;
    const failed: string[] = [];
    for (const browser of made) {
      const ended = await this.#end(browser.id, signal);
      if (!ended.ok) failed.push(ended.error.message);
    }
    if (failed.length > 0) return `its outcome was unknown; it found ${made.length} browser(s) it made and could not release every one: ${failed.join("; ")}`;
    return `its outcome was unknown; it found ${made.length} browser${made.length === 1 ? "" : "s"} it made by its create label and released ${made.length === 1 ? "it" : "them"}`;
  }

  #hello(): Hello {
    const caps = this.capabilities();
    // A hello lists the protocol's groups only; cdp and stream are the provider's.
    return { version: this.version, os: caps.os, kind: "browser", arch: "unknown", groups: [] };
  }

  #ref(browser: Browser, name: string): ComputerRef {
    return {
      id: browser.id,
      name,
      provider: this.id,
      spec: { image: BROWSER_IMAGE, user: "", network: "open", kind: "browser", ...(browser.deadline ? { deadline: browser.deadline.toISOString() } : {}) },
      hello: this.#hello(),
    };
  }

  /** The browser by id, one of ours and not ended; else not_found in words. */
  async #ours(id: string, options: CallOptions): Promise<Result<Browser>> {
    const read = await this.#vendor.read(id, options.signal);
    if (!read.ok) return read;
    const browser = read.value;
    if (!browser || browser.ended) return fail("not_found", `there is no running ${this.#vendor.name} browser with that id`);
    if (!isOurs(browser.labels)) return fail("not_found", `that ${this.#vendor.name} browser was not made by this provider`);
    this.#urls.remember(browser.id, browser.cdpUrl);
    return ok(browser);
  }

  async read(by: AttachBy, options: CallOptions = {}): Promise<Result<ReadBack>> {
    const found = "id" in by ? await this.#ours(by.id, options) : await this.#byLabels(by.labels, options);
    if (!found.ok) return found;
    const browser = found.value;
    const ref = this.#ref(browser, browser.labels[NAME_LABEL]!);
    return ok({ ref, state: "running", labels: shownLabels(browser.labels), hello: ref.hello!, drift: [] });
  }

  async attach(by: AttachBy, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    return attachedIf(await this.read(by, options));
  }

  async #byLabels(labels: Record<string, string>, options: CallOptions): Promise<Result<Browser>> {
    const listed = await this.#listed(labels, options);
    if (!listed.ok) return listed;
    if (listed.value.length === 0) return fail("not_found", `no running ${this.#vendor.name} browser of this provider carries those labels`);
    if (listed.value.length > 1) return fail("exists", `${listed.value.length} browsers carry those labels: attach by id, or by labels that name one`);
    return ok(listed.value[0]!);
  }

  /** Ours, not ended, carrying every label; asked by the first one. */
  async #listed(labels: Record<string, string>, options: CallOptions): Promise<Result<Browser[]>> {
    const entries = Object.entries(labels ?? {});
    if (entries.length === 0) {
      return fail("invalid", `list and attach by labels take at least one label: a ${this.#vendor.name} account holds browsers no provider made`, {
        field: "labels",
      });
    }
    const listed = await this.#vendor.list(entries[0], options.signal);
    if (!listed.ok) return listed;
    return ok(listed.value.filter((b) => !b.ended && isOurs(b.labels) && matchesAll(b.labels, labels)));
  }

  async list(labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
    const listed = await this.#listed(labels, options);
    if (!listed.ok) return listed;
    return ok(
      listed.value.map((b) => ({
        ref: this.#ref(b, b.labels[NAME_LABEL]!),
        labels: shownLabels(b.labels),
        deadline: b.deadline,
        state: "running" as const,
        network: "open" as const,
      })),
    );
  }

  async network(ref: ComputerRef, policy?: NetworkPolicy, options: CallOptions = {}): Promise<Result<NetworkReadBack>> {
    if (policy !== undefined && policy !== "open") {
      return fail("unsupported", `a ${this.#vendor.name} browser's network is open alone; it stays open`, { field: "network" });
    }
    const found = await this.#ours(ref.id, options);
    return found.ok ? ok("open") : found;
  }

  async connect(ref: ComputerRef, options: CallOptions = {}): Promise<Result<Connection>> {
    const found = await this.#vendor.read(ref.id, options.signal);
    if (!found.ok) return found;
    if (!found.value || found.value.ended) {
      this.#urls.forget(ref.id);
      return fail("gone", `the browser ${ref.name} has ended (or ${this.#vendor.name} no longer knows it)`);
    }
    this.#urls.remember(ref.id, found.value.cdpUrl);
    const url = this.#urls.cdp(ref.id);
    if (!url) return fail("not_found", `${this.#vendor.name} gives ${ref.name}'s CDP URL only at its create, and this process did not make it`);
    const hello = this.#hello();
    const client = new BrowserClient({ name: ref.name, hello, read: (signal) => this.#vendor.read(ref.id, signal) });
    return ok({ client, hello, cdp: secretUrl(url), close: () => client.close() });
  }

  /** The live view: CDP's screencast of the page the agent is on (the newest), on a CDP connection of the watch's own (screencast.ts). */
  readonly watch: LiveView = cdpLiveView(this);

  async stream(ref: ComputerRef, options: CallOptions = {}): Promise<Result<{ url: string }>> {
    const found = await this.#ours(ref.id, options);
    if (!found.ok) return found.error.code === "not_found" ? fail("gone", `the browser ${ref.name} has ended`) : found;
    const live = await this.#vendor.live(ref.id, options.signal);
    return live.ok ? ok(secretUrl(live.value)) : live;
  }

  async release(ref: ComputerRef, how: ReleaseHow, options: CallOptions = {}): Promise<Result<undefined>> {
    if (how !== "delete") return fail("unsupported", `a ${this.#vendor.name} browser has no stopped state: release it with delete`);
    const ended = await this.#end(ref.id, options.signal);
    if (ended.ok) this.#urls.forget(ref.id);
    return ended;
  }

  /** Asks the vendor to end it, then reads it back until it has ended or is unknown. */
  async #end(id: string, caller: AbortSignal | undefined): Promise<Result<undefined>> {
    const asked = await this.#vendor.end(id, caller);
    if (!asked.ok) return asked;
    const gone = await waitUntil(
      async (signal) => {
        const read = await this.#vendor.read(id, signal);
        if (!read.ok) throw new Error(read.error.message);
        return read.value;
      },
      (b) => !b || b.ended,
      { boundMs: RELEASE_WAIT_MS, signal: caller, minMs: this.#pollMs, what: "the browser to end", describe: (b) => (b ? "still running" : "gone") },
    );
    return gone.ok ? ok() : gone;
  }

  async testConnection(options: CallOptions = {}): Promise<Result<{ detail: string }>> {
    const read = await this.#vendor.account(options.signal);
    if (!read.ok) return read;
    const n = read.value.browsers.filter((b) => !b.ended && isOurs(b.labels)).length;
    const more = read.value.more;
    return ok({ detail: `${this.#vendor.name} answers; ${n}${more ? " or more" : ""} browser${n === 1 && !more ? "" : "s"} of this provider running` });
  }
}
