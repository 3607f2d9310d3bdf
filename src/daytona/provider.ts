// DaytonaProvider: the ComputerProvider interface over Daytona's v0 REST API. The sandbox is made
// and read back here; the daemon is pushed in and started through the toolbox (src/vendor/agent-child/install.ts),
// reached through a session bridge (bridge.ts), and both are held to the drift check (drift.ts).
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { DaemonClient } from "../daemon/client.js";
import { helloWithin } from "../daemon/hello.js";
import { CHILD_HOME, installCommand, readInstall, refusalIn, sha256Of, startCommand, uploadPath } from "../vendor/agent-child/install.js";
import { packageVersion } from "../package.js";
import type { Hello } from "../daemon/protocol.js";
import type {
  AttachBy,
  Capabilities,
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
  SpecReadBack,
  CheckedSpec,
} from "../vendor/provider.js";
import { checkedSpec } from "../vendor/checked.js";
import { fail, ok, refuse, type Result, type ResultCode } from "../vendor/result.js";
import { waitUntil } from "../vendor/wait.js";
import type { CallOptions } from "../daemon/client.js";
import { DaytonaApi, expect, expectDone } from "./api.js";
import { openBridge } from "./bridge.js";
import { checkSpec, NETWORK_GAP } from "./check.js";
import { COMPUTER_LABEL, DEADLINE_LABEL, IMAGE_LABEL, INIT_SESSION, MAX_LIFETIME_MS, NAME_PATTERN, PAGE_LIMIT, TIMEOUTS, TOOLBOX_PORT } from "./constants.js";
import { daemonDrift, type DaemonExpected, helloDrift } from "../vendor/agent-child/drift.js";
import { sandboxDrift } from "./drift.js";
import { type DaytonaProviderOptions, settle, type Settled } from "./options.js";
import { deadlineOf, isComputer, isGoing, networkOf, stateOf } from "./readback.js";
import { type CreateSandbox, Sandbox, SandboxPage, ToolboxProxyUrl } from "./schemas.js";
import { defaultWebSocket, Toolbox, type WebSocketFactory } from "./toolbox.js";
import { boundedBy } from "../vendor/bound.js";
import { attachedIf } from "../vendor/attach.js";
import { adoptOrClear, createdAt, type Claims, removeEarlier } from "../vendor/adopt.js";
import { labelsWithClaim } from "../vendor/labels.js";

const GROUPS = ["exec", "files", "processes"] as const;

export function capabilitiesOf(settled: Pick<Settled, "autoDeleteInterval" | "sandboxClass" | "daemonUser">): Capabilities {
  return {
    kind: "linux",
    os: "linux",
    daemon: "child",
    groups: [...GROUPS],
    lifetime: "vendor",
    maxLifetimeMs: MAX_LIFETIME_MS,
    network: ["none"],
    networkReadBack: true,
    release: ["stop", "delete"],
    stopDeletes: settled.autoDeleteInterval === 0,
    vendorAgentPorts: [TOOLBOX_PORT],
    isolation: settled.sandboxClass === "linux-vm" ? "vm" : "container",
    defaults: { workdir: CHILD_HOME, user: settled.daemonUser },
  };
}

/** The capabilities with the options unset. */
export const CAPABILITIES: Capabilities = capabilitiesOf({ autoDeleteInterval: -1, sandboxClass: undefined, daemonUser: "2510:2510" });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class DaytonaProvider implements ComputerProvider {
  readonly id = "daytona";
  readonly version: string;
  readonly #o: Settled;
  readonly #api: DaytonaApi;
  readonly #webSocket: WebSocketFactory;
  #daemon: Promise<{ bytes: Buffer; sha256: string }> | undefined;

  constructor(options: DaytonaProviderOptions) {
    this.#o = settle(options);
    this.#api = new DaytonaApi(this.#o.apiKey, options.fetch ?? fetch);
    this.#webSocket = options.webSocket ?? defaultWebSocket;
    this.version = options.version ?? packageVersion();
  }

  capabilities(): Capabilities {
    return capabilitiesOf(this.#o);
  }

  check(spec: ComputerSpec): Result<CheckedSpec> {
    return checkedSpec(spec, checkSpec(spec, this.capabilities()));
  }

  // --- Daytona's calls ---

  #call(path: string, what: string, options: Parameters<DaytonaApi["request"]>[3] = {}) {
    return this.#api.request(this.#o.apiUrl, path, what, options);
  }

  /** GET /sandbox/{idOrName}, retried; not_found on a 404. */
  async #get(idOrName: string, signal?: AbortSignal): Promise<Result<Sandbox>> {
    const what = `reading the sandbox ${idOrName}`;
    return expect(await this.#call(`/sandbox/${encodeURIComponent(idOrName)}`, what, { signal, retry: true }), what, Sandbox);
  }

  /** Every sandbox with agentrun.computer=1, every page; the other labels are filtered here. */
  async #listAll(signal?: AbortSignal): Promise<Result<Sandbox[]>> {
    const out: Sandbox[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page += 1) {
      const query: Record<string, string> = { labels: JSON.stringify({ [COMPUTER_LABEL]: "1" }), limit: String(PAGE_LIMIT) };
      if (cursor) query.cursor = cursor;
      const read = expect(
        await this.#call("/sandbox", "listing the sandboxes by label", { query, signal, retry: true }),
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

  async #toolbox(sandbox: Sandbox, signal?: AbortSignal): Promise<Result<Toolbox>> {
    let proxy = sandbox.toolboxProxyUrl ?? undefined;
    if (!proxy) {
      const what = `reading the toolbox URL of ${sandbox.name}`;
      const read = expect(
        await this.#call(`/sandbox/${encodeURIComponent(sandbox.id)}/toolbox-proxy-url`, what, { signal, retry: true }),
        what,
        ToolboxProxyUrl,
      );
      if (!read.ok) return read;
      proxy = read.value.url;
    }
    return Toolbox.of(this.#api, this.#o.apiKey, proxy, sandbox.id, this.#webSocket);
  }

  #readDaemon(): Promise<{ bytes: Buffer; sha256: string }> {
    this.#daemon ??= fs.readFile(this.#o.daemonPath).then((bytes) => ({ bytes, sha256: sha256Of(bytes) }));
    this.#daemon.catch(() => (this.#daemon = undefined));
    return this.#daemon;
  }

  #daemonWant(sha256: string): DaemonExpected {
    return { version: this.version, arch: this.#o.arch, kind: "linux", groups: GROUPS, user: this.#o.daemonUser, sha256 };
  }

  /** Adoption's lookups: the computers of a declaration or an owner in any state but going, with Daytona's createdAt; and a delete of one. */
  #claims(): Claims {
    return {
      list: async (labels, options) => {
        const all = await this.#listAll(options.signal);
        if (!all.ok) return all;
        const found = all.value.filter((s) => isComputer(s) && !isGoing(s) && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
        return ok(found.map((s) => ({ ref: { id: s.id, name: s.name, provider: this.id }, state: stateOf(s), created: createdAt(s.createdAt) })));
      },
      read: (by, options) => this.read(by, options),
      remove: (ref) => this.#deleteAndWait(ref.id),
      defaults: this.capabilities().defaults,
    };
  }

  // --- create ---

  async create(spec: ComputerSpec, options: CreateOptions = {}): Promise<Result<ComputerRef>> {
    const { signal } = options;
    const checked = this.check(spec);
    if (!checked.ok) return checked;
    if (signal?.aborted) return fail("aborted", "create was aborted before anything was made");
    let daemon: { bytes: Buffer; sha256: string };
    try {
      daemon = await this.#readDaemon();
    } catch (error) {
      return fail("invalid", `the daemon at ${this.#o.daemonPath} could not be read: ${(error as Error).message}; nothing was made`, { field: "daemonPath" });
    }
    // A sandbox an interrupted create of the same owner and spec left: adopted when whole, else deleted.
    if (options.owner !== undefined) {
      const adopted = await adoptOrClear(this.#claims(), spec, options.owner, options);
      if (!adopted.ok) return adopted;
      if (adopted.value) return ok(adopted.value);
    }
    const name = `computer-${randomBytes(6).toString("hex")}`;
    const deadline = new Date(Date.now() + spec.lifetimeMs).toISOString();
    // The owner's labels are in the create request itself: no moment exists when the sandbox is unlabelled.
    const declared = labelsWithClaim(spec, options.owner);
    const labels = { ...declared, [COMPUTER_LABEL]: "1", [DEADLINE_LABEL]: deadline, [IMAGE_LABEL]: spec.image };
    const body: CreateSandbox = {
      name,
      ...(spec.image === "default" ? {} : { snapshot: spec.image }),
      labels,
      public: false,
      networkBlockAll: true,
      ...(this.#o.target ? { target: this.#o.target } : {}),
      ttlMinutes: Math.ceil(spec.lifetimeMs / 60_000),
      autoStopInterval: this.#o.autoStopInterval,
      autoDeleteInterval: this.#o.autoDeleteInterval,
    };
    const made = await this.#call("/sandbox", `creating ${name}`, { method: "POST", body, signal, timeoutMs: TIMEOUTS.startMs });
    const sandbox = expect(made, `creating ${name}`, Sandbox);
    if (!sandbox.ok) {
      // Without a 4xx answer (no answer, a 5xx, an abort) the sandbox may be there all the same.
      const answered4xx = made.ok && made.value.status >= 400 && made.value.status < 500;
      if (!answered4xx) {
        const gone = await this.#deleteAndWait(name);
        const left = gone.ok ? `${name} was deleted if it was made` : `${name} may be left: ${gone.error.message}`;
        if (signal?.aborted) return fail("aborted", `create was aborted while Daytona made the sandbox; ${left}`);
        return fail(sandbox.error.code, `${sandbox.error.message}; ${left}`);
      }
      return fail(sandbox.error.code, `${sandbox.error.message}; nothing was made`, sandbox.error.field ? { field: sandbox.error.field } : {});
    }
    const id = sandbox.value.id;
    const refused = async (code: ResultCode, words: string): Promise<Result<ComputerRef>> => {
      const gone = await this.#deleteAndWait(id);
      const code2: ResultCode = signal?.aborted ? "aborted" : code;
      return fail(code2, `${words}; ${gone.ok ? `${name} was deleted` : `deleting ${name} failed: ${gone.error.message}`}`);
    };

    const started = await waitUntil(
      (s) => this.#get(id, s),
      (r) => !r.ok || r.value.state === "started" || r.value.state === "error" || r.value.state === "build_failed" || isGoing(r.value),
      {
        boundMs: TIMEOUTS.startMs,
        signal,
        minMs: this.#o.pollMs,
        what: `${name} to start`,
        describe: (r) => (r.ok ? `state ${r.value.state}` : r.error.message),
      },
    );
    if (!started.ok) return refused(started.error.code, started.error.message);
    if (!started.value.ok) return refused(started.value.error.code === "not_found" ? "gone" : started.value.error.code, started.value.error.message);
    const read = started.value.value;
    if (read.state !== "started")
      return refused("failed", `${name} did not start: Daytona reads it ${read.state}${read.errorReason ? ` (${read.errorReason})` : ""}`);
    const mismatches = sandboxDrift(read, this.#sandboxWant(spec.image, true, declared, deadline));
    if (mismatches.length) return refused("refused", `${name} is not what was declared: ${mismatches.join("; ")}`);
    if (signal?.aborted) return refused("aborted", "create was aborted after the sandbox started");

    const toolbox = await this.#toolbox(read, signal);
    if (!toolbox.ok) return refused(toolbox.error.code, toolbox.error.message);
    const uploaded = uploadPath();
    const up = await toolbox.value.upload(uploaded, daemon.bytes, signal);
    if (!up.ok) return refused(up.error.code, up.error.message);
    const install = await toolbox.value.execute(installCommand(uploaded), "installing the daemon", TIMEOUTS.executeMs, signal);
    if (!install.ok) return refused(install.error.code, install.error.message);
    const installed = readInstall(install.value.exitCode, install.value.result, daemon.sha256);
    if (!installed.ok) return refused(installed.error.code, installed.error.message);

    const session = await toolbox.value.createSession(INIT_SESSION, signal);
    if (!session.ok) return refused(session.error.code, session.error.message);
    const start = startCommand({ deadline, maxDeadline: deadline, user: this.#o.daemonUser });
    const init = await toolbox.value.exec(INIT_SESSION, start, "starting computerd init", signal);
    if (!init.ok) return refused(init.error.code, init.error.message);

    const connection = await this.#open(toolbox.value, name, signal);
    if (!connection.ok) {
      // init's own words say why it did not start (no CAP_SYS_ADMIN, another process with its uid).
      const logs = await toolbox.value.logs(INIT_SESSION, init.value);
      const words = logs.ok ? (refusalIn(logs.value) ?? lastLine(logs.value)) : undefined;
      return refused(connection.error.code === "aborted" ? "aborted" : "refused", `${connection.error.message}${words ? `; init said: ${words}` : ""}`);
    }
    let drifted: string[];
    try {
      drifted = await daemonDrift(connection.value.client, connection.value.hello, this.#daemonWant(daemon.sha256), signal);
    } catch {
      await connection.value.close();
      return refused("aborted", "create was aborted while the daemon was read");
    }
    const hello = connection.value.hello;
    await connection.value.close();
    if (drifted.length) return refused("refused", `${name}'s daemon is not what was declared: ${drifted.join("; ")}`);
    if (signal?.aborted) return refused("aborted", "create was aborted after its checks");

    // Daytona's listing trails a create: wait until it shows the computer twice running.
    let seen = 0;
    const listed = await waitUntil(
      async (s) => {
        const all = await this.#listAll(s);
        seen = all.ok && all.value.some((x) => x.id === id && !isGoing(x)) ? seen + 1 : 0;
        return seen;
      },
      (n) => n >= 2,
      { boundMs: TIMEOUTS.listedMs, signal, minMs: this.#o.pollMs, what: `${name} to be listed`, describe: (n) => (n ? "listed once" : "not listed") },
    );
    if (!listed.ok) return refused(listed.error.code, listed.error.message);
    if (signal?.aborted) return refused("aborted", "create was aborted at its end");
    return ok(this.#refOf(read, hello, true));
  }

  #sandboxWant(image: string, imageLabel: boolean, labels: Record<string, string>, deadline: string) {
    return {
      image,
      imageLabel,
      labels,
      deadline,
      network: "none" as const,
      autoStopInterval: this.#o.autoStopInterval,
      autoDeleteInterval: this.#o.autoDeleteInterval,
      sandboxClass: this.#o.sandboxClass,
    };
  }

  /** The bridge and hello, held to the provider's version, kind and groups. */
  async #open(toolbox: Toolbox, name: string, signal?: AbortSignal): Promise<Result<Connection>> {
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

  #refOf(sandbox: Sandbox, hello: Hello | undefined, checked: boolean): ComputerRef {
    const image = sandbox.labels[IMAGE_LABEL] ?? sandbox.snapshot ?? "default";
    const spec: SpecReadBack & { snapshot?: string } = {
      image,
      user: this.#o.daemonUser,
      network: networkOf(sandbox),
      cpus: sandbox.cpu,
      memoryMb: sandbox.memory * 1024,
      ...(checked ? { workdir: CHILD_HOME } : {}),
      ...(sandbox.labels[DEADLINE_LABEL] ? { deadline: sandbox.labels[DEADLINE_LABEL] } : {}),
      kind: "linux",
    };
    if (sandbox.snapshot) spec.snapshot = sandbox.snapshot;
    return { id: sandbox.id, name: sandbox.name, provider: this.id, spec, ...(hello ? { hello } : {}) };
  }

  // --- attach, read, list ---

  async #find(by: AttachBy, signal?: AbortSignal): Promise<Result<Sandbox>> {
    if (by && "id" in by) {
      if (typeof by.id !== "string" || !by.id || by.id.includes("/") || by.id.length > 200)
        return fail("invalid", "attach takes { id }: a sandbox id or a computer's name", { field: "id" });
      const read = await this.#get(by.id, signal);
      if (!read.ok) return read.error.code === "not_found" ? fail("not_found", `no computer ${by.id} at Daytona`) : read;
      if (!isComputer(read.value) || isGoing(read.value))
        return fail("not_found", `no computer ${by.id} at Daytona (a sandbox that is not this provider's, or is going, does not count)`);
      return read;
    }
    if (by && "labels" in by && typeof by.labels === "object" && by.labels !== null && Object.keys(by.labels).length > 0) {
      const all = await this.#listAll(signal);
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

  async read(by: AttachBy, options: CallOptions = {}): Promise<Result<ReadBack>> {
    const { signal } = options;
    const found = await this.#find(by, signal);
    if (!found.ok) return found;
    const sandbox = found.value;
    const labels = sandbox.labels;
    const own = Object.fromEntries(Object.entries(labels).filter(([k]) => k !== COMPUTER_LABEL && !k.startsWith(`${COMPUTER_LABEL}.`)));
    const image = labels[IMAGE_LABEL] ?? sandbox.snapshot ?? "default";
    const deadline = labels[DEADLINE_LABEL] ?? "";
    const mismatches = sandboxDrift(sandbox, this.#sandboxWant(image, labels[IMAGE_LABEL] !== undefined, own, deadline));
    if (deadlineOf(sandbox) === undefined)
      mismatches.push(`the ${DEADLINE_LABEL} label ${deadline ? `reads ${JSON.stringify(deadline)}` : "is missing"}, not the ISO time create writes`);
    let hello: Hello | undefined;
    const started = sandbox.state === "started";
    if (started) {
      const daemon = await this.#readDaemon().catch(() => undefined);
      if (!daemon) return fail("failed", `the daemon at ${this.#o.daemonPath} could not be read, so ${sandbox.name}'s daemon cannot be checked against it`);
      const toolbox = await this.#toolbox(sandbox, signal);
      if (!toolbox.ok) return toolbox;
      const connection = await this.#open(toolbox.value, sandbox.name, signal);
      if (!connection.ok) {
        if (connection.error.code === "aborted") return connection;
        mismatches.push(connection.error.message);
      } else {
        hello = connection.value.hello;
        try {
          mismatches.push(...(await daemonDrift(connection.value.client, hello, this.#daemonWant(daemon.sha256), signal)));
        } catch {
          await connection.value.close();
          return fail("aborted", `reading ${sandbox.name} was aborted`);
        }
        await connection.value.close();
      }
    }
    return ok({ ref: this.#refOf(sandbox, hello, hello !== undefined), state: stateOf(sandbox), labels, ...(hello ? { hello } : {}), drift: mismatches });
  }

  async attach(by: AttachBy, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    return attachedIf(await this.read(by, options));
  }

  async list(labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
    if (typeof labels !== "object" || labels === null || Object.entries(labels).some(([k, v]) => !k || typeof v !== "string")) {
      return fail("invalid", "list takes labels: an object of strings", { field: "labels" });
    }
    const all = await this.#listAll(options.signal);
    if (!all.ok) return all;
    const out: ComputerInfo[] = [];
    for (let sandbox of all.value) {
      if (!isComputer(sandbox) || isGoing(sandbox)) continue;
      if (!Object.entries(labels).every(([k, v]) => sandbox.labels[k] === v)) continue;
      if (sandbox.networkBlockAll == null) {
        // A listed sandbox with no network fields is read on its own.
        const one = await this.#get(sandbox.id, options.signal);
        if (!one.ok) {
          if (one.error.code === "not_found") continue;
          return one;
        }
        sandbox = one.value;
      }
      out.push({
        ref: { id: sandbox.id, name: sandbox.name, provider: this.id },
        labels: sandbox.labels,
        deadline: deadlineOf(sandbox),
        state: stateOf(sandbox),
        network: networkOf(sandbox),
      });
    }
    return ok(out);
  }

  // --- network ---

  async network(ref: ComputerRef, policy?: NetworkPolicy, options: CallOptions = {}): Promise<Result<NetworkReadBack>> {
    if (policy !== undefined && policy !== "none") return fail("unsupported", NETWORK_GAP, { field: "network" });
    const found = await this.#find({ id: ref?.id }, options.signal);
    if (!found.ok) return found;
    const now = networkOf(found.value);
    if (policy === undefined || now === "none") return ok(now);
    // A computer made open or with a list before the loopback block: narrowed to none.
    const what = `narrowing ${found.value.name}'s network to none`;
    const asked = await this.#call(`/sandbox/${encodeURIComponent(found.value.id)}/network-settings`, what, {
      method: "POST",
      body: { networkBlockAll: true },
      signal: options.signal,
    });
    const after = await this.#get(found.value.id, options.signal);
    if (!after.ok) return after;
    const read = networkOf(after.value);
    if (read === "none") return ok(read);
    const words = asked.ok ? expectDone(asked, what) : asked;
    const daytona = words.ok ? "Daytona answered and changed nothing" : words.error.message;
    const name = found.value.name;
    if (JSON.stringify(read) === JSON.stringify(now)) {
      return fail("refused", `${name}'s network stays ${JSON.stringify(now)}: the change to none was refused (${daytona})`, { field: "network" });
    }
    // Neither as asked nor as it was: put back, or, when that fails, blocked; never left wider.
    const before = found.value;
    const back = {
      networkBlockAll: before.networkBlockAll ?? false,
      networkAllowList: before.networkAllowList ?? "",
      domainAllowList: before.domainAllowList ?? "",
    };
    await this.#call(`/sandbox/${encodeURIComponent(before.id)}/network-settings`, `putting ${name}'s network back`, { method: "POST", body: back });
    const again = await this.#get(before.id);
    const putBack = again.ok && JSON.stringify(networkOf(again.value)) === JSON.stringify(now);
    if (!putBack)
      await this.#call(`/sandbox/${encodeURIComponent(before.id)}/network-settings`, `blocking ${name}'s network`, {
        method: "POST",
        body: { networkBlockAll: true },
      });
    return fail(
      "refused",
      `${name}'s network read back ${JSON.stringify(read)} after the change to none (${daytona}); it was ${putBack ? "put back" : "blocked"}, and the change is refused`,
      { field: "network" },
    );
  }

  // --- connect ---

  async connect(ref: ComputerRef, options: CallOptions = {}): Promise<Result<Connection>> {
    const found = await this.#find({ id: ref?.id ?? ref?.name }, options.signal);
    if (!found.ok) return found.error.code === "not_found" ? fail("gone", found.error.message) : found;
    if (found.value.state !== "started")
      return fail("unsupported", `${found.value.name} is ${found.value.state}, not started: a computer that is not running cannot be connected to`);
    const toolbox = await this.#toolbox(found.value, options.signal);
    if (!toolbox.ok) return toolbox;
    const connection = await this.#open(toolbox.value, found.value.name, options.signal);
    if (!connection.ok) return connection;
    const wrong = helloDrift(connection.value.hello, this.#daemonWant(""));
    if (wrong.length) {
      await connection.value.close();
      return fail("refused", `the daemon in ${found.value.name} is not the provider's: ${wrong.join("; ")}; make a new computer with this provider`);
    }
    return connection;
  }

  // --- release ---

  /** DELETE, retried on a 5xx, a forced stop before the last try; then the wait until Daytona reads it gone. */
  async #deleteAndWait(idOrName: string, signal?: AbortSignal): Promise<Result<undefined>> {
    const what = `deleting ${idOrName}`;
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      if (attempt === 3)
        await this.#call(`/sandbox/${encodeURIComponent(idOrName)}/stop`, `stopping ${idOrName} by force`, { method: "POST", query: { force: "true" } });
      const answer = await this.#call(`/sandbox/${encodeURIComponent(idOrName)}`, what, { method: "DELETE" });
      if (answer.ok && (answer.value.status < 300 || answer.value.status === 404)) break;
      if (answer.ok && answer.value.status < 500) return expectDone(answer, what);
      if (attempt === 3) return answer.ok ? expectDone(answer, what) : answer;
      await pause(500 * attempt);
    }
    return this.#waitGone(idOrName, this.#o.goneMs, signal);
  }

  /** A 404 and no listed computer, twice running. */
  async #waitGone(idOrName: string, boundMs: number, signal?: AbortSignal): Promise<Result<undefined>> {
    let seen = 0;
    let last = "not read";
    const gone = await waitUntil(
      async (s) => {
        const one = await this.#get(idOrName, s);
        const all = await this.#listAll(s);
        const listed = all.ok && all.value.some((x) => x.id === idOrName || x.name === idOrName);
        last = one.ok ? `state ${one.value.state}` : one.error.code === "not_found" ? (listed ? "listed still" : "gone") : one.error.message;
        if (one.ok && one.value.state === "error") return -1;
        seen = !one.ok && one.error.code === "not_found" && all.ok && !listed ? seen + 1 : 0;
        return seen;
      },
      (n) => n >= 2 || n < 0,
      { boundMs, signal, minMs: this.#o.pollMs, what: `${idOrName} to be gone`, describe: () => last },
    );
    if (!gone.ok) return fail(gone.error.code, `${gone.error.message}; Daytona last read it ${last}`);
    if (gone.value < 0) return fail("failed", `${idOrName} went to error while it was deleted; Daytona last read it ${last}`);
    return ok();
  }

  async release(ref: ComputerRef, how: ReleaseHow, options: CallOptions = {}): Promise<Result<undefined>> {
    if (how !== "stop" && how !== "delete") return fail("invalid", 'release takes "stop" or "delete"', { field: "how" });
    const target = ref?.id ?? ref?.name;
    if (typeof target !== "string" || !target) return fail("invalid", "a Daytona computer's ref has its sandbox id", { field: "id" });
    if (options.signal?.aborted) return fail("aborted", `release of ${target} was aborted before Daytona was asked`);
    const read = await this.#get(target, options.signal);
    if (!read.ok) return read.error.code === "not_found" ? ok() : read;
    if (!isComputer(read.value))
      return fail("not_found", `${target} is not a computer (no ${COMPUTER_LABEL}=1 label and a computer's name), so it was not released`);
    if (how === "delete") {
      const gone = await this.#deleteAndWait(read.value.id, options.signal);
      if (!gone.ok) return gone;
      const earlier = await removeEarlier(this.#claims(), { id: read.value.id, labels: read.value.labels, created: createdAt(read.value.createdAt) });
      return earlier.ok ? ok() : earlier;
    }
    if (this.#o.autoDeleteInterval === 0 || read.value.state !== "stopped") {
      const what = `stopping ${read.value.name}`;
      const stop = await this.#call(`/sandbox/${encodeURIComponent(read.value.id)}/stop`, what, { method: "POST", signal: options.signal });
      if (stop.ok && stop.value.status !== 404 && !(stop.value.status < 300) && stop.value.status !== 400) return expectDone(stop, what);
    }
    if (this.#o.autoDeleteInterval === 0) return this.#waitGone(read.value.id, this.#o.stopMs, options.signal);
    let seen = 0;
    let last = "not read";
    const stopped = await waitUntil(
      async (s) => {
        const one = await this.#get(read.value.id, s);
        const all = await this.#listAll(s);
        last = one.ok ? `state ${one.value.state}` : one.error.message;
        const listedStopped = all.ok && all.value.some((x) => x.id === read.value.id && stateOf(x) === "stopped");
        if (one.ok && one.value.state === "error") return -1;
        if (one.ok && one.value.state === "started" && one.value.desiredState !== "stopped") {
          await this.#call(`/sandbox/${encodeURIComponent(read.value.id)}/stop`, "stopping again", { method: "POST", signal: s });
        }
        seen = one.ok && one.value.state === "stopped" && listedStopped ? seen + 1 : 0;
        return seen;
      },
      (n) => n >= 2 || n < 0,
      { boundMs: this.#o.stopMs, signal: options.signal, minMs: this.#o.pollMs, what: `${read.value.name} to stop`, describe: () => last },
    );
    if (!stopped.ok) return fail(stopped.error.code, `${stopped.error.message}; Daytona last read it ${last}`);
    if (stopped.value < 0) return fail("failed", `${read.value.name} went to error while it stopped`);
    return ok();
  }

  /** The ids of every sandbox with agentrun.computer=1, whatever its name or state (the sweep's). */
  async labelled(options: CallOptions = {}): Promise<Result<string[]>> {
    const all = await this.#listAll(options.signal);
    return all.ok ? ok(all.value.map((s) => s.id)) : all;
  }

  /** True once GET /sandbox/{id} answers 404. */
  async gone(id: string, options: CallOptions = {}): Promise<Result<boolean>> {
    const read = await this.#get(id, options.signal);
    if (read.ok) return ok(false);
    return read.error.code === "not_found" ? ok(true) : read;
  }

  /** One listing: Daytona answers the key. */
  async testConnection(options: CallOptions = {}): Promise<Result<{ detail: string }>> {
    const all = await this.#listAll(options.signal);
    if (!all.ok) return all;
    const n = all.value.filter(isComputer).length;
    return ok({ detail: `Daytona answers; ${n} computer${n === 1 ? "" : "s"} of this provider` });
  }
}

function lastLine(text: string): string | undefined {
  // The split log's prefixes are not words.
  const lines = text
    .replace(/[\x01\x02]{3}/g, "\n")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1);
}

export { NAME_PATTERN };
