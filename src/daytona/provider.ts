// DaytonaProvider: the ComputerProvider interface over Daytona's v0 REST API. create is the one
// flow with Daytona's hooks (make.ts): the sandbox made and read back, the daemon pushed in and
// started through the toolbox (src/kits/agent-child/), reached through a session bridge
// (bridge.ts), and both held to the drift check (drift.ts). Daytona's calls are sandboxes.ts's;
// its pause (stop and start) is pause.ts's, its snapshots snapshots.ts's.
import { CHILD_HOME } from "../kits/agent-child/install.js";
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
  CheckedSpec,
  CheckInput,
} from "../contract/provider.js";
import { checkedSpec } from "../contract/checked.js";
import { createWith } from "../contract/create.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { waitUntil } from "../contract/wait.js";
import type { CallOptions } from "../daemon/client.js";
import { expectDone } from "./api.js";
import { checkSpec, NETWORK_GAP } from "./check.js";
import { COMPUTER_LABEL, DEADLINE_LABEL, DEFAULT_SNAPSHOT, IMAGE_LABEL, MAX_LIFETIME_MS, NAME_PATTERN, TOOLBOX_PORT } from "./constants.js";
import { daemonDrift, helloDrift } from "../kits/agent-child/drift.js";
import { sandboxDrift } from "./drift.js";
import { daytonaHooks } from "./make.js";
import { daytonaPause } from "./pause.js";
import { daytonaSnapshots } from "./snapshots.js";
import type { PauseHooks, SnapshotHooks } from "../contract/provider.js";
import type { DaytonaProviderOptions, Settled } from "./options.js";
import { deadlineOf, isComputer, isGoing, networkOf, stateOf } from "./readback.js";
import { DaytonaSandboxes, GROUPS } from "./sandboxes.js";
import { attachedIf } from "../contract/attach.js";
import { createdAt, type Adoption, removeEarlier } from "../contract/adopt.js";

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
    // Its stop keeps the disk and ends every process; where a stop deletes, there is no pause.
    ...(settled.autoDeleteInterval === 0 ? {} : { pause: "disk" as const }),
    snapshot: true,
    defaults: { workdir: CHILD_HOME, user: settled.daemonUser },
  };
}

/** The capabilities with the options unset. */
export const CAPABILITIES: Capabilities = capabilitiesOf({ autoDeleteInterval: -1, sandboxClass: undefined, daemonUser: "2510:2510" });

export class DaytonaProvider implements ComputerProvider {
  readonly id = "daytona";
  readonly version: string;
  readonly #sb: DaytonaSandboxes;
  readonly snapshots: SnapshotHooks;
  readonly #pause: PauseHooks;

  constructor(options: DaytonaProviderOptions) {
    this.#sb = new DaytonaSandboxes(options, packageVersion);
    this.version = this.#sb.version;
    this.snapshots = daytonaSnapshots(this.#sb);
    this.#pause = daytonaPause(this.#sb, (ref, how, o) => this.release(ref, how, o));
  }

  /** Stop and start as a pause that keeps the disk; none where a stop deletes (autoDeleteMinutes 0). */
  get pause(): PauseHooks | undefined {
    return this.capabilities().pause ? this.#pause : undefined;
  }

  capabilities(): Capabilities {
    return capabilitiesOf(this.#sb.o);
  }

  check(spec: CheckInput): Result<CheckedSpec> {
    return checkedSpec(spec, checkSpec(spec, this.capabilities()));
  }

  /** Adoption's lookups: the computers of a declaration or an owner in any state but going, with Daytona's createdAt; and a delete of one. */
  #adoption(): Adoption {
    return this.#sb.adoption((by, options) => this.read(by, options), this.capabilities().defaults);
  }

  /** The one create flow with Daytona's hooks; a sandbox an interrupted create of the same owner and spec left is adopted when whole, else deleted. */
  create(spec: ComputerSpec, options: CreateOptions = {}): Promise<Result<ComputerRef>> {
    return createWith(daytonaHooks(this.#sb, { check: (s) => this.check(s), adoption: () => this.#adoption() }, options), spec, options);
  }

  // --- attach, read, list ---

  async read(by: AttachBy, options: CallOptions = {}): Promise<Result<ReadBack>> {
    const { signal } = options;
    const found = await this.#sb.find(by, signal);
    if (!found.ok) return found;
    const sandbox = found.value;
    const labels = sandbox.labels;
    const own = Object.fromEntries(Object.entries(labels).filter(([k]) => k !== COMPUTER_LABEL && !k.startsWith(`${COMPUTER_LABEL}.`)));
    const image = labels[IMAGE_LABEL] ?? sandbox.snapshot ?? DEFAULT_SNAPSHOT;
    const deadline = labels[DEADLINE_LABEL] ?? "";
    const mismatches = sandboxDrift(sandbox, this.#sb.sandboxWant(image, labels[IMAGE_LABEL] !== undefined, own, deadline));
    if (deadlineOf(sandbox) === undefined)
      mismatches.push(`the ${DEADLINE_LABEL} label ${deadline ? `reads ${JSON.stringify(deadline)}` : "is missing"}, not the ISO time create writes`);
    let hello: Hello | undefined;
    const started = sandbox.state === "started";
    if (started) {
      const daemon = await this.#sb.daemonBytes();
      if (!daemon.ok) return fail("failed", `${daemon.error.message}, so ${sandbox.name}'s daemon cannot be checked against it`);
      const toolbox = await this.#sb.toolbox(sandbox, signal);
      if (!toolbox.ok) return toolbox;
      const connection = await this.#sb.open(toolbox.value, sandbox.name, signal);
      if (!connection.ok) {
        if (connection.error.code === "aborted") return connection;
        mismatches.push(connection.error.message);
      } else {
        hello = connection.value.hello;
        try {
          mismatches.push(...(await daemonDrift(connection.value.client, hello, this.#sb.daemonWant(daemon.value.sha256), signal)));
        } catch {
          await connection.value.close();
          return fail("aborted", `reading ${sandbox.name} was aborted`);
        }
        await connection.value.close();
      }
    }
    return ok({ ref: this.#sb.refOf(sandbox, hello, hello !== undefined), state: stateOf(sandbox), labels, ...(hello ? { hello } : {}), drift: mismatches });
  }

  async attach(by: AttachBy, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    return attachedIf(await this.read(by, options));
  }

  async list(labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
    if (typeof labels !== "object" || labels === null || Object.entries(labels).some(([k, v]) => !k || typeof v !== "string")) {
      return fail("invalid", "list takes labels: an object of strings", { field: "labels" });
    }
    const all = await this.#sb.listAll(options.signal);
    if (!all.ok) return all;
    const out: ComputerInfo[] = [];
    for (let sandbox of all.value) {
      if (!isComputer(sandbox) || isGoing(sandbox)) continue;
      if (!Object.entries(labels).every(([k, v]) => sandbox.labels[k] === v)) continue;
      if (sandbox.networkBlockAll == null) {
        // A listed sandbox with no network fields is read on its own.
        const one = await this.#sb.get(sandbox.id, options.signal);
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
    const found = await this.#sb.find({ id: ref?.id }, options.signal);
    if (!found.ok) return found;
    const now = networkOf(found.value);
    if (policy === undefined || now === "none") return ok(now);
    // A computer made open or with a list before the loopback block: narrowed to none.
    const what = `narrowing ${found.value.name}'s network to none`;
    const asked = await this.#sb.call(`/sandbox/${encodeURIComponent(found.value.id)}/network-settings`, what, {
      method: "POST",
      body: { networkBlockAll: true },
      signal: options.signal,
    });
    const after = await this.#sb.get(found.value.id, options.signal);
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
    await this.#sb.call(`/sandbox/${encodeURIComponent(before.id)}/network-settings`, `putting ${name}'s network back`, { method: "POST", body: back });
    const again = await this.#sb.get(before.id);
    const putBack = again.ok && JSON.stringify(networkOf(again.value)) === JSON.stringify(now);
    if (!putBack)
      await this.#sb.call(`/sandbox/${encodeURIComponent(before.id)}/network-settings`, `blocking ${name}'s network`, {
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
    const found = await this.#sb.find({ id: ref?.id ?? ref?.name }, options.signal);
    if (!found.ok) return found.error.code === "not_found" ? fail("gone", found.error.message) : found;
    if (found.value.state !== "started")
      return fail("unsupported", `${found.value.name} is ${found.value.state}, not started: a computer that is not running cannot be connected to`);
    const toolbox = await this.#sb.toolbox(found.value, options.signal);
    if (!toolbox.ok) return toolbox;
    const connection = await this.#sb.open(toolbox.value, found.value.name, options.signal);
    if (!connection.ok) return connection;
    const wrong = helloDrift(connection.value.hello, this.#sb.daemonWant(""));
    if (wrong.length) {
      await connection.value.close();
      return fail("refused", `the daemon in ${found.value.name} is not the provider's: ${wrong.join("; ")}; make a new computer with this provider`);
    }
    return connection;
  }

  // --- release ---

  async release(ref: ComputerRef, how: ReleaseHow, options: CallOptions = {}): Promise<Result<undefined>> {
    if (how !== "stop" && how !== "delete") return fail("invalid", 'release takes "stop" or "delete"', { field: "how" });
    const target = ref?.id ?? ref?.name;
    if (typeof target !== "string" || !target) return fail("invalid", "a Daytona computer's ref has its sandbox id", { field: "id" });
    if (options.signal?.aborted) return fail("aborted", `release of ${target} was aborted before Daytona was asked`);
    const read = await this.#sb.get(target, options.signal);
    if (!read.ok) return read.error.code === "not_found" ? ok() : read;
    if (!isComputer(read.value))
      return fail("not_found", `${target} is not a computer (no ${COMPUTER_LABEL}=1 label and a computer's name), so it was not released`);
    if (how === "delete") {
      const gone = await this.#sb.deleteAndWait(read.value.id, options.signal);
      if (!gone.ok) return gone;
      const earlier = await removeEarlier(this.#adoption(), { id: read.value.id, labels: read.value.labels, created: createdAt(read.value.createdAt) });
      return earlier.ok ? ok() : earlier;
    }
    if (this.#sb.o.autoDeleteInterval === 0 || read.value.state !== "stopped") {
      const what = `stopping ${read.value.name}`;
      const stop = await this.#sb.call(`/sandbox/${encodeURIComponent(read.value.id)}/stop`, what, { method: "POST", signal: options.signal });
      if (stop.ok && stop.value.status !== 404 && !(stop.value.status < 300) && stop.value.status !== 400) return expectDone(stop, what);
    }
    if (this.#sb.o.autoDeleteInterval === 0) return this.#sb.waitGone(read.value.id, this.#sb.o.stopMs, options.signal);
    let seen = 0;
    let last = "not read";
    const stopped = await waitUntil(
      async (s) => {
        const one = await this.#sb.get(read.value.id, s);
        const all = await this.#sb.listAll(s);
        last = one.ok ? `state ${one.value.state}` : one.error.message;
        const listedStopped = all.ok && all.value.some((x) => x.id === read.value.id && x.state === "stopped");
        if (one.ok && one.value.state === "error") return -1;
        if (one.ok && one.value.state === "started" && one.value.desiredState !== "stopped") {
          await this.#sb.call(`/sandbox/${encodeURIComponent(read.value.id)}/stop`, "stopping again", { method: "POST", signal: s });
        }
        seen = one.ok && one.value.state === "stopped" && listedStopped ? seen + 1 : 0;
        return seen;
      },
      (n) => n >= 2 || n < 0,
      { boundMs: this.#sb.o.stopMs, signal: options.signal, minMs: this.#sb.o.pollMs, what: `${read.value.name} to stop`, describe: () => last },
    );
    if (!stopped.ok) return fail(stopped.error.code, `${stopped.error.message}; Daytona last read it ${last}`);
    if (stopped.value < 0) return fail("failed", `${read.value.name} went to error while it stopped`);
    return ok();
  }

  /** The ids of every sandbox with agentrun.computer=1, whatever its name or state (the sweep's). */
  async labelled(options: CallOptions = {}): Promise<Result<string[]>> {
    const all = await this.#sb.listAll(options.signal);
    return all.ok ? ok(all.value.map((s) => s.id)) : all;
  }

  /** True once GET /sandbox/{id} answers 404. */
  async gone(id: string, options: CallOptions = {}): Promise<Result<boolean>> {
    const read = await this.#sb.get(id, options.signal);
    if (read.ok) return ok(false);
    return read.error.code === "not_found" ? ok(true) : read;
  }

  target(): string {
    return this.#sb.o.apiUrl;
  }

  /** One listing: Daytona answers the key. */
  async testConnection(options: CallOptions = {}): Promise<Result<{ detail: string }>> {
    const all = await this.#sb.listAll(options.signal);
    if (!all.ok) return all;
    const n = all.value.filter(isComputer).length;
    return ok({ detail: `Daytona answers; ${n} computer${n === 1 ? "" : "s"} of this provider` });
  }
}

export { NAME_PATTERN };
