// ModalProvider: the ComputerProvider interface on Modal's VM sandboxes, through the ModalSdk
// slice. create is the one flow with Modal's hooks (make.ts); the commands, the upload, the
// bridge, the tags and the drift check live in their own files, Modal's calls in sandboxes.ts;
// this one wires them into create, connect, attach, list, network and release; its filesystem
// snapshots are snapshots.ts's.
import type { CallOptions } from "../daemon/client.js";
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
  SnapshotHooks,
  CheckOptions,
} from "../contract/provider.js";
import { modalSnapshots } from "./snapshots.js";
import { DEFAULT_IMAGE as MODAL_DEFAULT_IMAGE } from "./constants.js";
import { checkedSpec } from "../contract/checked.js";
import { createWith } from "../contract/create.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { bounded, wordsOf } from "./calls.js";
import { checkSpec, modalUserProblem } from "./check.js";
import { BRIDGE } from "./commands.js";
import { openBridge } from "./connect.js";
import { DEFAULT_USER, HOME, MAX_LIFETIME_MS } from "./constants.js";
import { modalHooks } from "./make.js";
import type { ModalProviderOptions } from "./options.js";
import { helloDrift, probeNone } from "./readback.js";
import { labelsOf } from "./tags.js";
import { packageVersion } from "../package.js";
import { attachedIf } from "../contract/attach.js";
import type { Adoption } from "../contract/adopt.js";
import { GROUPS, ModalSandboxes } from "./sandboxes.js";

export type { ModalProviderOptions } from "./options.js";

export const CAPABILITIES: Capabilities = {
  kind: "linux",
  os: "linux",
  daemon: "pid1",
  groups: [...GROUPS],
  lifetime: "vendor",
  maxLifetimeMs: MAX_LIFETIME_MS,
  network: ["none"],
  networkReadBack: false,
  release: ["delete"],
  user: ["uid"],
  mount: [],
  vendorAgentPorts: [],
  isolation: "vm",
  // Modal has no pause (terminate is a sandbox's only end); its filesystem snapshots are forks' images.
  snapshot: true,
  defaults: { image: MODAL_DEFAULT_IMAGE, workdir: HOME, user: DEFAULT_USER },
};

export class ModalProvider implements ComputerProvider {
  readonly id = "modal";
  readonly version: string;
  readonly #sb: ModalSandboxes;
  readonly snapshots: SnapshotHooks;

  constructor(options: ModalProviderOptions) {
    this.#sb = new ModalSandboxes(options, packageVersion);
    this.version = this.#sb.version;
    this.snapshots = modalSnapshots(this.#sb);
  }

  capabilities(): Capabilities {
    const capabilities = structuredClone(CAPABILITIES);
    capabilities.maxLifetimeMs = this.#sb.o.maxLifetimeMs;
    capabilities.defaults = { ...capabilities.defaults, user: this.#sb.o.user };
    return capabilities;
  }

  check(spec: CheckInput, options: CheckOptions = {}): Result<CheckedSpec> {
    return checkedSpec(spec, checkSpec(spec, this.capabilities(), options.owned === true));
  }

  /** Adoption's lookups: the running sandboxes of a declaration (Modal reads back no creation time), and delete. */
  #adoption(): Adoption {
    return this.#sb.adoption(
      (by, options) => this.read(by, options),
      (ref) => this.release(ref, "delete"),
      this.capabilities().defaults,
    );
  }

  /** The one create flow with Modal's hooks; a sandbox an interrupted create of the same owner and spec left is adopted when whole, else terminated. */
  create(spec: ComputerSpec, options: CreateOptions = {}): Promise<Result<ComputerRef>> {
    const owned = options.owner !== undefined;
    return createWith(modalHooks(this.#sb, { check: (s) => this.check(s, { owned }), adoption: () => this.#adoption() }, options), spec, options);
  }

  async read(by: AttachBy, options: CallOptions = {}): Promise<Result<ReadBack>> {
    const found = await this.#sb.find(by, options.signal);
    if (!found.ok) return found;
    const read = await this.#sb.readSandbox(found.value, {}, options.signal);
    // A sandbox that has finished is gone to a caller that reads it back (refresh drops it).
    if (!read.ok && read.error.code === "gone") return fail("not_found", read.error.message);
    return read;
  }

  async attach(by: AttachBy, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    return attachedIf(await this.read(by, options));
  }

  async list(labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
    for (const [key, value] of Object.entries(labels ?? {})) {
      if (!key || key.includes("\0") || typeof value !== "string" || value.includes("\0")) {
        return fail("invalid", "list takes labels whose keys are non-empty and whose values are strings, with no NUL", { field: "labels" });
      }
    }
    const found = await this.#sb.running(labels, options.signal);
    if (!found.ok) return found;
    return ok(
      found.value.map(({ sandbox, tags, own }) => ({
        ref: { id: sandbox.sandboxId, name: own.name, provider: this.id },
        labels: labelsOf(tags),
        deadline: new Date(own.deadline),
        state: "running" as const,
        network: own.spec.network,
      })),
    );
  }

  async connect(ref: ComputerRef, options: CallOptions = {}): Promise<Result<Connection>> {
    const target = await this.#sb.target(ref, options.signal);
    if (!target.ok) return target;
    if (modalUserProblem(target.value.own.spec.user)) return fail("refused", `${ref.name}'s recorded user is root, so it is not connected to`);
    const t = this.#sb.o.t;
    const connection = await openBridge(target.value.sandbox, { argv: [...BRIDGE], helloMs: t.helloMs, callMs: t.callMs, signal: options.signal });
    if (!connection.ok) return connection;
    const wrong = helloDrift(connection.value.hello, this.#sb.want());
    if (wrong.length > 0) {
      await connection.value.close();
      return fail("refused", `the daemon in ${ref.name} is not the provider's: ${wrong.join("; ")}; make a new computer with this provider`);
    }
    return connection;
  }

  async network(ref: ComputerRef, policy?: NetworkPolicy, options: CallOptions = {}): Promise<Result<NetworkReadBack>> {
    const target = await this.#sb.target(ref, options.signal);
    if (!target.ok) return target;
    const recorded = target.value.own.spec.network;
    if (policy !== undefined && JSON.stringify(policy) !== JSON.stringify(recorded)) {
      return fail(
        "unsupported",
        `a Modal computer's network is fixed at create (blockNetwork cannot be updated); ${ref.name} stays ${typeof recorded === "string" ? recorded : "an allowlist"}: make a new computer with the network you want`,
        { field: "network" },
      );
    }
    if (recorded !== "none") return ok(recorded);
    if (modalUserProblem(target.value.own.spec.user)) return fail("refused", `${ref.name}'s recorded user is root, so nothing is run in it`);
    const t = this.#sb.o.t;
    const connection = await openBridge(target.value.sandbox, { argv: [...BRIDGE], helloMs: t.helloMs, callMs: t.callMs, signal: options.signal });
    if (!connection.ok) return connection;
    try {
      const probe = await probeNone(connection.value.client, {
        user: target.value.own.spec.user,
        ...(this.#sb.o.probeTargets ? { targets: this.#sb.o.probeTargets } : {}),
        signal: options.signal,
      });
      return ok(probe.network);
    } finally {
      await connection.value.close();
    }
  }

  async release(ref: ComputerRef, how: ReleaseHow, options: CallOptions = {}): Promise<Result<undefined>> {
    if (how === "stop")
      return fail(
        "unsupported",
        `a Modal sandbox has no stopped state (terminate is its only end), so stop is refused and ${ref?.name ?? "the computer"} runs on: release it with delete`,
        { field: "how" },
      );
    if (how !== "delete") return fail("invalid", 'release takes "stop" or "delete"', { field: "how" });
    if (options.signal?.aborted) return fail("aborted", `release of ${ref?.name ?? "the computer"} was aborted before Modal was asked`);
    const target = await this.#sb.target(ref, options.signal);
    if (!target.ok) {
      // A sandbox Modal no longer knows, or one that finished and is no longer listed, is released.
      if (target.error.code === "not_found" && target.error.detail?.kind !== "not-the-computer") return ok();
      return target;
    }
    const ended = await this.#sb.end(target.value.sandbox, options.signal);
    if (!ended.ok) return fail(ended.error.code, `release of ${ref.name}: ${ended.error.message}`);
    return ok();
  }

  target(): string {
    return this.#sb.o.target;
  }

  /** One read of the app, making nothing: Settings' test of the token. */
  async testConnection(options: CallOptions = {}): Promise<Result<{ detail: string }>> {
    const { app, environment, t } = this.#sb.o;
    const read = await bounded(async () => (await this.#sb.sdk()).apps.fromName(app, { createIfMissing: false, ...(environment ? { environment } : {}) }), {
      what: `apps.fromName of ${app}`,
      ms: t.callMs,
      signal: options.signal,
    });
    if (read.ok) return ok({ detail: `Modal answers; the app ${app} is there` });
    if (read.error.code === "not_found") return ok({ detail: `Modal answers; the app ${app} is not made yet (its first computer makes it)` });
    return fail(read.error.code, wordsOf(read.error.message));
  }
}
