// E2BProvider: the ComputerProvider interface on E2B's sandboxes, through the E2BSandboxClass slice
// of the host's SDK. envd is the sandbox's first process; the daemon is uploaded with files.write,
// installed and started as root with commands.run (src/kits/agent-child/, as on Daytona), reached
// through a bridge of its own (bridge.ts), and held to the drift check (readback.ts,
// src/kits/agent-child/drift.ts); a desktop's live view is the shared one (src/contract/watch.ts).
// create is the one flow with E2B's hooks (make.ts); E2B's calls
// are sandboxes.ts's, extend is extend.ts's, pause and snapshots state.ts's and the diagnostic diagnose.ts's.
import type { CallOptions } from "../daemon/client.js";
import { helloDrift } from "../kits/agent-child/drift.js";
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
  ImageOptions,
  NetworkPolicy,
  NetworkReadBack,
  ReadBack,
  PauseHooks,
  ReleaseHow,
  CheckedSpec,
  CheckInput,
  SnapshotHooks,
} from "../contract/provider.js";
import { checkedSpec } from "../contract/checked.js";
import { daemonLiveView, type LiveView } from "../contract/watch.js";
import { createWith } from "../contract/create.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { boundedBy } from "../daemon/bound.js";
import { attachedIf } from "../contract/attach.js";
import { createdAt, type Adoption, removeEarlier } from "../contract/adopt.js";
import { checkSpec, NETWORK_GAP } from "./check.js";
import { BASE_TEMPLATE, DESKTOP_TEMPLATE, ENVD_PORT } from "./constants.js";
import { diagnose, type Diagnosis } from "./diagnose.js";
import { Extender } from "./extend.js";
import { e2bHooks } from "./make.js";
import type { E2BProviderOptions, Settled } from "./options.js";
import { deadlineOf, type E2BKind, infoDrift, labelsOf, networkOf, ownKeysOf, stateOf } from "./readback.js";
import { E2BSandboxes, groupsOf } from "./sandboxes.js";
import { pauseHooks, snapshotHooks } from "./state.js";
import { CHILD_HOME } from "../kits/agent-child/install.js";

export function capabilitiesOf(settled: Pick<Settled, "maxLifetimeMs" | "daemonUser" | "kind">): Capabilities {
  return {
    kind: settled.kind,
    os: "linux",
    daemon: "child",
    groups: groupsOf(settled.kind),
    lifetime: "vendor",
    maxLifetimeMs: settled.maxLifetimeMs,
    network: ["none"],
    networkReadBack: true,
    release: ["delete"],
    vendorAgentPorts: [ENVD_PORT],
    isolation: "microvm",
    pause: "memory",
    snapshot: true,
    // No image here: a spec's template follows its kind (image()), which may differ from the provider's.
    defaults: { workdir: CHILD_HOME, user: settled.daemonUser },
  };
}

/** The template a spec of this kind starts from when it names none: E2B Desktop's for a desktop, the base for linux. */
export function templateOf(kind: E2BKind): string {
  return kind === "desktop" ? DESKTOP_TEMPLATE : BASE_TEMPLATE;
}

/** The capabilities of each kind, the other options unset. */
export const CAPABILITIES: Record<E2BKind, Capabilities> = {
  linux: capabilitiesOf({ maxLifetimeMs: 60 * 60 * 1000, daemonUser: "2510:2510", kind: "linux" }),
  desktop: capabilitiesOf({ maxLifetimeMs: 60 * 60 * 1000, daemonUser: "2510:2510", kind: "desktop" }),
};

export class E2BProvider implements ComputerProvider {
  readonly id = "e2b";
  readonly version: string;
  readonly #sb: E2BSandboxes;
  readonly #extender: Extender;
  /** E2B's pause (memory kept) and resume (state.ts). */
  readonly pause: PauseHooks;
  /** E2B's snapshots, a fork's image snapshot://e2b/<E2B's id> (state.ts). */
  readonly snapshots: SnapshotHooks;

  constructor(options: E2BProviderOptions) {
    this.#sb = new E2BSandboxes(options, options?.version ?? packageVersion());
    this.version = this.#sb.version;
    this.#extender = new Extender(this.#sb);
    this.pause = pauseHooks(this.#sb, (by, o) => this.read(by, o));
    this.snapshots = snapshotHooks(this.#sb);
  }

  capabilities(): Capabilities {
    return capabilitiesOf(this.#sb.o);
  }

  check(spec: CheckInput): Result<CheckedSpec> {
    return checkedSpec(spec, checkSpec(spec, this.capabilities()));
  }

  /** The template for a spec that names none, by its kind (default the provider's): E2B's own, so no call is made. */
  async image(options: ImageOptions = {}): Promise<Result<string>> {
    const kind = options.kind ?? this.#sb.o.kind;
    if (kind !== "linux" && kind !== "desktop") return fail("invalid", `E2B makes linux and desktop computers, not ${String(kind)}`, { field: "kind" });
    return ok(templateOf(kind));
  }

  /** Adoption's lookups: the computers with these keys, running or paused, with E2B's startedAt; and a kill of one. */
  #adoption(): Adoption {
    return this.#sb.adoption((by, options) => this.read(by, options), this.capabilities().defaults);
  }

  /** The one create flow with E2B's hooks; a sandbox an interrupted create of the same owner and spec left is adopted when whole, else killed. */
  create(spec: ComputerSpec, options: CreateOptions = {}): Promise<Result<ComputerRef>> {
    return createWith(e2bHooks(this.#sb, { check: (s) => this.check(s), adoption: () => this.#adoption() }, options), spec, options);
  }

  /** The live network diagnostic (diagnose.ts). */
  diagnose(template: string, options: CallOptions & { diagnoseMs?: number } = {}): Promise<Result<Diagnosis>> {
    return diagnose(this.#sb, template, options);
  }

  // --- attach, read, list ---

  async read(by: AttachBy, options: CallOptions = {}): Promise<Result<ReadBack>> {
    const { signal } = options;
    const sb = this.#sb;
    const found = await sb.find(by, signal);
    if (!found.ok) return found;
    const { info, own } = found.value;
    const drift = infoDrift(info, { template: own.image, metadata: {} }).filter((d) => info.state === "running" || !/ is paused, not running/.test(d));
    if (info.state !== "running") return ok({ ref: sb.refOf(info, own, undefined), state: stateOf(info), labels: labelsOf(info.metadata), drift });
    const daemon = await sb.daemonBytes();
    if (!daemon.ok) return fail("failed", `${daemon.error.message}, so ${own.name}'s daemon cannot be checked against it`);
    const connection = await sb.connectTo(found.value, signal);
    let hello: Hello | undefined;
    let notes: string[] = [];
    if (!connection.ok) {
      if (connection.error.code === "aborted") return connection;
      drift.push(connection.error.message);
    } else {
      const read = await sb.readDaemonOver(connection.value, { sha256: daemon.value.sha256, kind: own.kind }, signal);
      await connection.value.close();
      if (!read.ok) return read;
      hello = read.value.hello;
      notes = read.value.notes;
      drift.push(...read.value.drift);
    }
    return ok({ ref: sb.refOf(info, own, hello, notes), state: "running", labels: labelsOf(info.metadata), ...(hello ? { hello } : {}), drift });
  }

  async attach(by: AttachBy, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    return attachedIf(await this.read(by, options));
  }

  async list(labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
    if (
      typeof labels !== "object" ||
      labels === null ||
      Object.entries(labels).some(([k, v]) => !k || k.includes("\0") || typeof v !== "string" || v.includes("\0"))
    ) {
      return fail("invalid", "list takes labels: an object of strings", { field: "labels" });
    }
    const sb = this.#sb;
    const { bound, signal: whole } = boundedBy(sb.o.t.listMs, options.signal);
    const all = await sb.listAll(labels, whole);
    if (!all.ok) return all;
    const out: ComputerInfo[] = [];
    for (const listed of all.value) {
      if (!ownKeysOf(listed.metadata).ok) continue;
      // Read back on its own for its network, within the same deadline.
      const one = await sb.getInfo(listed.sandboxId, whole);
      if (!one.ok) {
        if (one.error.code === "not_found") continue;
        return bound.aborted && !options.signal?.aborted ? fail("timeout", `list() did not finish within ${sb.o.t.listMs / 1000} s`) : one;
      }
      const own = ownKeysOf(one.value.metadata);
      if (!own.ok) continue;
      out.push({
        ref: { id: one.value.sandboxId, name: own.value.name, provider: this.id },
        labels: one.value.metadata,
        deadline: new Date(deadlineOf(one.value, own.value)),
        state: stateOf(one.value),
        network: networkOf(one.value),
      });
    }
    return ok(out);
  }

  // --- network, connect ---

  async network(ref: ComputerRef, policy?: NetworkPolicy, options: CallOptions = {}): Promise<Result<NetworkReadBack>> {
    if (policy !== undefined && policy !== "none") return fail("unsupported", `${NETWORK_GAP}; the network is fixed at create`, { field: "network" });
    const found = await this.#sb.target(ref, options.signal);
    if (!found.ok) return found;
    const now = networkOf(found.value.info);
    if (policy !== undefined && now !== "none")
      return fail("unsupported", `an E2B computer's network is fixed at create; ${ref.name} stays as it is: make a new computer with network none`, {
        field: "network",
      });
    return ok(now);
  }

  async connect(ref: ComputerRef, options: CallOptions = {}): Promise<Result<Connection>> {
    const found = await this.#sb.target(ref, options.signal);
    if (!found.ok) return found.error.code === "not_found" && found.error.detail?.kind !== "not-the-computer" ? fail("gone", found.error.message) : found;
    // E2B's connect resumes a paused sandbox: refused here without connecting.
    if (found.value.info.state !== "running")
      return fail(
        "unsupported",
        `${ref.name} is ${found.value.info.state}, not running: a computer that is not running is not connected to (E2B's connect would resume it): resume it first`,
      );
    const connection = await this.#sb.connectTo(found.value, options.signal);
    if (!connection.ok) return connection;
    // A desktop whose X server has gone says hello as kind linux: refused.
    const wrong = helloDrift(connection.value.hello, this.#sb.daemonWant("", found.value.own.kind));
    if (wrong.length) {
      await connection.value.close();
      return fail("refused", `the daemon in ${ref.name} is not the provider's: ${wrong.join("; ")}; make a new computer with this provider`);
    }
    return connection;
  }

  /** The live view of a desktop: frames of its screen on a connection of the watch's own, as on Docker. */
  readonly watch: LiveView = daemonLiveView(this);

  // --- release, extend ---

  async release(ref: ComputerRef, how: ReleaseHow, options: CallOptions = {}): Promise<Result<undefined>> {
    if (how === "stop")
      return fail(
        "unsupported",
        `release "stop" is refused: an E2B computer is not stopped but paused (state paused, E2B's pause), so ${ref?.name ?? "the computer"} runs on: pause it, or release it with delete`,
        { field: "how" },
      );
    if (how !== "delete") return fail("invalid", 'release takes "stop" or "delete"', { field: "how" });
    const id = ref?.id;
    if (typeof id !== "string" || !id || /[\s/]/.test(id)) return fail("invalid", "an E2B computer's ref has its sandbox id", { field: "id" });
    // Read and killed whatever the caller's signal: a release whose signal aborted first still kills.
    const info = await this.#sb.getInfo(id);
    if (!info.ok) return info.error.code === "not_found" ? ok() : info;
    const own = ownKeysOf(info.value.metadata);
    if (!own.ok) return fail("not_found", `${id} is not a computer of this provider (${own.why}), so it was not killed`);
    const gone = await this.#sb.killAndWait(id, options.signal);
    if (!gone.ok) return fail(gone.error.code, `release of ${own.value.name}: ${gone.error.message}`);
    const earlier = await removeEarlier(this.#adoption(), { id, labels: info.value.metadata, created: createdAt(info.value.startedAt) });
    return earlier.ok ? ok() : earlier;
  }

  extend(ref: ComputerRef, ttlMs: number, options: CallOptions = {}): Promise<Result<{ deadline: string }>> {
    return this.#extender.extend(ref, ttlMs, options);
  }

  // --- the sweep's and Settings' ---

  /** The ids of every sandbox with agentrun.computer=1, whatever its state (the sweep's). */
  async labelled(options: CallOptions = {}): Promise<Result<string[]>> {
    const all = await this.#sb.listAll({}, options.signal);
    return all.ok ? ok(all.value.map((x) => x.sandboxId)) : all;
  }

  /** True once getInfo answers not found and the listing no longer shows it. */
  async gone(id: string, options: CallOptions = {}): Promise<Result<boolean>> {
    const one = await this.#sb.getInfo(id, options.signal);
    if (one.ok) return ok(false);
    if (one.error.code !== "not_found") return one;
    const all = await this.#sb.listAll({}, options.signal);
    return all.ok ? ok(!all.value.some((x) => x.sandboxId === id)) : all;
  }

  target(): string {
    return this.#sb.o.apiUrl;
  }

  /** One listing page: E2B answers the key; a further page reads "or more". */
  async testConnection(options: CallOptions = {}): Promise<Result<{ detail: string }>> {
    const page = await this.#sb.firstPage(options.signal);
    if (!page.ok) return page;
    const n = page.value.items.filter((x) => ownKeysOf(x.metadata).ok).length;
    const more = page.value.more;
    return ok({ detail: `E2B answers; ${n}${more ? " or more" : ""} computer${n === 1 && !more ? "" : "s"} of this provider` });
  }
}
