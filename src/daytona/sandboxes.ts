// Daytona's sandboxes as the provider's parts use them: the API's calls (api.ts), a sandbox read
// and every page listed, the toolbox of one, the daemon's bytes, a delete waited for until
// Daytona reads the sandbox gone, the bridge and hello, and a sandbox found by id or labels and
// read back into a ref. provider.ts, make.ts and release.ts share one of these.
import { DaemonClient } from "../daemon/client.js";
import { helloWithin } from "../daemon/hello.js";
import type { Hello } from "../daemon/protocol.js";
import { type Adoption, createdAt } from "../contract/adopt.js";
import { type DaemonExpected } from "../kits/agent-child/drift.js";
import { CHILD_HOME } from "../kits/agent-child/install.js";
import { boundedBy } from "../daemon/bound.js";
import { DaemonFile, type Daemon } from "../contract/daemon-file.js";
import type { AttachBy, ComputerRef, Connection, SpecReadBack } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { waitUntil } from "../contract/wait.js";
import { DaytonaApi, expect, expectDone } from "./api.js";
import { openBridge } from "./bridge.js";
import { COMPUTER_LABEL, DEADLINE_LABEL, DEFAULT_SNAPSHOT, IMAGE_LABEL, PAGE_LIMIT, TIMEOUTS } from "./constants.js";
import type { SandboxExpected } from "./drift.js";
import { type DaytonaProviderOptions, settle, type Settled } from "./options.js";
import { isComputer, isGoing, networkOf, stateOf } from "./readback.js";
import { Sandbox, SandboxPage, ToolboxProxyUrl } from "./schemas.js";
import { defaultWebSocket, Toolbox, type WebSocketFactory } from "./toolbox.js";

export const PROVIDER_ID = "daytona";
export const GROUPS = ["exec", "files", "processes"] as const;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class DaytonaSandboxes {
  readonly o: Settled;
  readonly version: string;
  readonly #api: DaytonaApi;
  readonly #webSocket: WebSocketFactory;
  readonly #daemon: DaemonFile;

  constructor(options: DaytonaProviderOptions, version: () => string) {
    this.o = settle(options);
    this.#api = new DaytonaApi(this.o.apiKey, options.fetch ?? fetch);
    this.#webSocket = options.webSocket ?? defaultWebSocket;
    this.version = options.version ?? version();
    this.#daemon = new DaemonFile(this.o.daemonPath);
  }

  call(path: string, what: string, options: Parameters<DaytonaApi["request"]>[3] = {}) {
    return this.#api.request(this.o.apiUrl, path, what, options);
  }

  /** GET /sandbox/{idOrName}, retried; not_found on a 404. */
  async get(idOrName: string, signal?: AbortSignal): Promise<Result<Sandbox>> {
    const what = `reading the sandbox ${idOrName}`;
    return expect(await this.call(`/sandbox/${encodeURIComponent(idOrName)}`, what, { signal, retry: true }), what, Sandbox);
  }

  /** Every sandbox with agentrun.computer=1, every page; the other labels are filtered here. */
  async listAll(signal?: AbortSignal): Promise<Result<Sandbox[]>> {
    const out: Sandbox[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page += 1) {
      const query: Record<string, string> = { labels: JSON.stringify({ [COMPUTER_LABEL]: "1" }), limit: String(PAGE_LIMIT) };
      if (cursor) query.cursor = cursor;
      const read = expect(
        await this.call("/sandbox", "listing the sandboxes by label", { query, signal, retry: true }),
        "listing the sandboxes by label",
        SandboxPage,
      );
      if (!read.ok) return read;
      out.push(...read.value.items);
      cursor = read.value.nextCursor ?? undefined;
      if (!cursor) return ok(out);
    }
    return fail("failed", "Daytona's listing never ended (1000 pages)");
  }

  async toolbox(sandbox: Sandbox, signal?: AbortSignal): Promise<Result<Toolbox>> {
    let proxy = sandbox.toolboxProxyUrl ?? undefined;
    if (!proxy) {
      const what = `reading the toolbox URL of ${sandbox.name}`;
      const read = expect(
        await this.call(`/sandbox/${encodeURIComponent(sandbox.id)}/toolbox-proxy-url`, what, { signal, retry: true }),
        what,
        ToolboxProxyUrl,
      );
      if (!read.ok) return read;
      proxy = read.value.url;
    }
    return Toolbox.of(this.#api, this.o.apiKey, proxy, sandbox.id, this.#webSocket);
  }

  /** The daemon's bytes and sha256 (read once), or an invalid daemonPath in words. */
  daemonBytes(): Promise<Result<Daemon>> {
    return this.#daemon.bytes();
  }

  daemonWant(sha256: string): DaemonExpected {
    return { version: this.version, arch: this.o.arch, kind: "linux", groups: GROUPS, user: this.o.daemonUser, sha256 };
  }

  /** Adoption's lookups: the computers of a declaration or an owner in any state but going, with Daytona's createdAt; and a delete of one. */
  adoption(read: Adoption["read"], defaults: Adoption["defaults"]): Adoption {
    return {
      list: async (labels, options) => {
        const all = await this.listAll(options.signal);
        if (!all.ok) return all;
        const found = all.value.filter((s) => isComputer(s) && !isGoing(s) && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
        return ok(found.map((s) => ({ ref: { id: s.id, name: s.name, provider: PROVIDER_ID }, state: stateOf(s), created: createdAt(s.createdAt) })));
      },
      read,
      remove: (ref) => this.deleteAndWait(ref.id),
      defaults,
    };
  }

  sandboxWant(image: string, imageLabel: boolean, labels: Record<string, string>, deadline: string): SandboxExpected {
    return {
      image,
      imageLabel,
      labels,
      deadline,
      network: "none" as const,
      autoStopInterval: this.o.autoStopInterval,
      autoDeleteInterval: this.o.autoDeleteInterval,
      sandboxClass: this.o.sandboxClass,
    };
  }

  /** The bridge and hello, held to the provider's version, kind and groups. */
  async open(toolbox: Toolbox, name: string, signal?: AbortSignal): Promise<Result<Connection>> {
    const bridge = await openBridge(toolbox, signal);
    if (!bridge.ok) return bridge;
    const client = new DaemonClient({ readable: bridge.value.readable, writable: bridge.value.writable });
    const close = async () => {
      await client.close();
      await bridge.value.close();
    };
    const said = await helloWithin({
      client,
      who: "agentrun-daytona",
      target: name,
      bounded: boundedBy(TIMEOUTS.helloMs, signal),
      boundMs: TIMEOUTS.helloMs,
      caller: signal,
      close,
      words: () => bridge.value.stderr(),
    });
    if (!said.ok) return said;
    const hello = said.value;
    return ok({ client, hello, close });
  }

  refOf(sandbox: Sandbox, hello: Hello | undefined, checked: boolean): ComputerRef {
    const image = sandbox.labels[IMAGE_LABEL] ?? sandbox.snapshot ?? DEFAULT_SNAPSHOT;
    const spec: SpecReadBack & { snapshot?: string } = {
      image,
      user: this.o.daemonUser,
      network: networkOf(sandbox),
      cpus: sandbox.cpu,
      memoryMb: sandbox.memory * 1024,
      ...(checked ? { workdir: CHILD_HOME } : {}),
      ...(sandbox.labels[DEADLINE_LABEL] ? { deadline: sandbox.labels[DEADLINE_LABEL] } : {}),
      kind: "linux",
    };
    if (sandbox.snapshot) spec.snapshot = sandbox.snapshot;
    return { id: sandbox.id, name: sandbox.name, provider: PROVIDER_ID, spec, ...(hello ? { hello } : {}) };
  }

  async find(by: AttachBy, signal?: AbortSignal): Promise<Result<Sandbox>> {
    if (by && "id" in by) {
      if (typeof by.id !== "string" || !by.id || by.id.includes("/") || by.id.length > 200)
        return fail("invalid", "attach takes { id }: a sandbox id or a computer's name", { field: "id" });
      const read = await this.get(by.id, signal);
      if (!read.ok) return read.error.code === "not_found" ? fail("not_found", `no computer ${by.id} at Daytona`) : read;
      if (!isComputer(read.value) || isGoing(read.value))
        return fail("not_found", `no computer ${by.id} at Daytona (a sandbox that is not this provider's, or is going, does not count)`);
      return read;
    }
    if (by && "labels" in by && typeof by.labels === "object" && by.labels !== null && Object.keys(by.labels).length > 0) {
      const all = await this.listAll(signal);
      if (!all.ok) return all;
      const found = all.value.filter((s) => isComputer(s) && !isGoing(s) && Object.entries(by.labels).every(([k, v]) => s.labels[k] === v));
      const shown = Object.entries(by.labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ");
      if (found.length === 0) return fail("not_found", `no computer matches the labels ${shown}`);
      if (found.length > 1)
        return fail(
          "invalid",
          `${found.length} computers match the labels ${shown} (${found.map((f) => f.name).join(", ")}); attach takes labels that match one`,
        );
      return ok(found[0]!);
    }
    return fail("invalid", "attach takes { id } or { labels } with at least one label", { field: "by" });
  }

  /** DELETE, retried on a 5xx, a forced stop before the last try; then the wait until Daytona reads it gone. */
  async deleteAndWait(idOrName: string, signal?: AbortSignal): Promise<Result<undefined>> {
    const what = `deleting ${idOrName}`;
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      if (attempt === 3)
        await this.call(`/sandbox/${encodeURIComponent(idOrName)}/stop`, `stopping ${idOrName} by force`, { method: "POST", query: { force: "true" } });
      const answer = await this.call(`/sandbox/${encodeURIComponent(idOrName)}`, what, { method: "DELETE" });
      if (answer.ok && (answer.value.status < 300 || answer.value.status === 404)) break;
      if (answer.ok && answer.value.status < 500) return expectDone(answer, what);
      if (attempt === 3) return answer.ok ? expectDone(answer, what) : answer;
      await pause(500 * attempt);
    }
    return this.waitGone(idOrName, this.o.goneMs, signal);
  }

  /** A 404 and no listed computer, twice running. */
  async waitGone(idOrName: string, boundMs: number, signal?: AbortSignal): Promise<Result<undefined>> {
    let seen = 0;
    let last = "not read";
    const gone = await waitUntil(
      async (s) => {
        const one = await this.get(idOrName, s);
        const all = await this.listAll(s);
        const listed = all.ok && all.value.some((x) => x.id === idOrName || x.name === idOrName);
        last = one.ok ? `state ${one.value.state}` : one.error.code === "not_found" ? (listed ? "listed still" : "gone") : one.error.message;
        if (one.ok && one.value.state === "error") return -1;
        seen = !one.ok && one.error.code === "not_found" && all.ok && !listed ? seen + 1 : 0;
        return seen;
      },
      (n) => n >= 2 || n < 0,
      { boundMs, signal, minMs: this.o.pollMs, what: `${idOrName} to be gone`, describe: () => last },
    );
    if (!gone.ok) return fail(gone.error.code, `${gone.error.message}; Daytona last read it ${last}`);
    if (gone.value < 0) return fail("failed", `${idOrName} went to error while it was deleted; Daytona last read it ${last}`);
    return ok();
  }
}
