// PhoneHarnessProvider: rents a temporary cloud Android emulator from the phone harness. No
// daemon runs on the phone: connect gives an in-process client that answers the protocol with
// adb commands (client.ts). The service keeps no labels, so the ledger keeps them (phones.ts).
import { attachedIf } from "../contract/attach.js";
import { checkedSpec } from "../contract/checked.js";
import { createWith } from "../contract/create.js";
import { PHONE_IMAGE } from "./constants.js";
import { runtimeRefusal } from "../contract/runtime.js";
import { checkLifetime } from "../contract/lifetime.js";
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
} from "../contract/provider.js";
import { daemonLiveView, type LiveView } from "../contract/watch.js";
import { fail, ok, type Refusal, type Result } from "../daemon/result.js";
import type { CallOptions } from "../daemon/client.js";
import { phoneGroups } from "./apps.js";
import type { LedgerEntry } from "./ledger.js";
import { phoneHooks } from "./make.js";
import { MAX_LIFETIME_MS, type PhoneHarnessOptions, settle } from "./options.js";
import { Phones, PROVIDER_ID, SHELL_USER } from "./phones.js";

export function capabilitiesOf(maxLifetimeMs: number, installs = false): Capabilities {
  return {
    kind: "android",
    os: "android",
    daemon: "none",
    groups: phoneGroups(installs),
    lifetime: "vendor",
    maxLifetimeMs,
    network: ["open"],
    release: ["delete"],
    defaults: { image: PHONE_IMAGE, user: SHELL_USER },
  };
}

export const CAPABILITIES: Capabilities = capabilitiesOf(MAX_LIFETIME_MS);
const NOT_TAKEN = ["egress", "cpus", "memoryMb", "pids", "workdir"] as const;

const shownKind = (mount: unknown) => {
  const kind = (mount as { kind?: unknown } | null)?.kind;
  return typeof kind === "string" && /^[a-z]{1,20}$/.test(kind) ? `even ${kind}` : "any kind";
};

export class PhoneHarnessProvider implements ComputerProvider {
  readonly id = PROVIDER_ID;
  readonly version: string;
  readonly #phones: Phones;

  constructor(options: PhoneHarnessOptions) {
    this.#phones = new Phones(settle(options));
    this.version = this.#phones.o.version;
  }

  capabilities(): Capabilities {
    return capabilitiesOf(this.#phones.o.maxLifetimeMs, this.#phones.o.installFrom !== undefined);
  }

  check(spec: CheckInput): Result<CheckedSpec> {
    if (typeof spec !== "object" || spec === null) return fail("invalid", "a spec is an object: { image, lifetimeMs, network }");
    const refusals: Refusal[] = [];
    const lifetime = checkLifetime(spec.lifetimeMs, this.capabilities());
    if (lifetime) refusals.push(lifetime);
    if (spec.image !== PHONE_IMAGE)
      refusals.push({ field: "image", message: `a phone-harness phone's image is "${PHONE_IMAGE}" (the phone harness's Android emulator)` });
    if (spec.network !== "open") refusals.push({ field: "network", message: "a phone-harness phone's network is open: the phone harness offers no other" });
    if (spec.kind !== undefined && spec.kind !== "android") refusals.push({ field: "kind", message: "a phone-harness phone is android" });
    if (spec.user !== undefined && spec.user !== SHELL_USER)
      refusals.push({ field: "user", message: `a phone-harness phone's user is adb's shell, ${SHELL_USER}: it takes no other` });
    if (spec.mount !== undefined)
      refusals.push({ field: "mount", message: `a phone-harness phone takes no mount (not ${shownKind(spec.mount)}): the phone harness takes no files` });
    for (const field of NOT_TAKEN)
      if (spec[field] !== undefined) refusals.push({ field, message: `a phone-harness phone takes no ${field}: the phone harness fixes it` });
    const runtime = runtimeRefusal(spec.runtime, ["runc"], "phone-harness");
    if (runtime) refusals.push(runtime);
    return checkedSpec(spec, refusals);
  }

  /** The phone harness's one image: its Android emulator. */
  async image(): Promise<Result<string>> {
    return ok(PHONE_IMAGE);
  }

  create(spec: ComputerSpec, options: CreateOptions = {}): Promise<Result<ComputerRef>> {
    return createWith(
      phoneHooks(this.#phones, (s) => this.check(s)),
      spec,
      options,
    );
  }

  /** The phone found (by id, or by labels: exactly one), and its client's version read over a connection of its own (the drift check). */
  async read(by: AttachBy, options: CallOptions = {}): Promise<Result<ReadBack>> {
    const found = await this.#found(by, options);
    if (!found.ok) return found;
    const entry = found.value;
    const ready = await this.#phones.find(entry.id, options.signal);
    if (!ready.ok) return ready;
    const drift: string[] = [];
    let hello: ReadBack["hello"];
    if (ready.value.session.status === "ready") {
      const client = await this.#phones.connect(entry.id, options.signal);
      if (!client.ok) return client;
      hello = client.value.hello;
      const wrong = this.#phones.versionDrift(client.value);
      await client.value.close();
      if (wrong) drift.push(wrong.error.message);
    } else drift.push(`the phone is ${ready.value.session.status}, not ready`);
    return ok({ ref: this.#phones.refOf(entry, hello), state: "running", labels: entry.labels, ...(hello ? { hello } : {}), drift });
  }

  async attach(by: AttachBy, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    return attachedIf(await this.read(by, options));
  }

  async #found(by: AttachBy, options: CallOptions): Promise<Result<LedgerEntry>> {
    if (by && "id" in by) {
      const found = await this.#phones.find(by.id, options.signal);
      return found.ok ? ok(found.value.entry) : found;
    }
    const all = await this.#phones.list(options.signal);
    if (!all.ok) return all;
    const labels = by?.labels ?? {};
    const matching = all.value.filter(({ entry }) => Object.entries(labels).every(([k, v]) => entry.labels[k] === v));
    if (matching.length !== 1) return fail("not_found", `${matching.length} phones of this provider carry those labels, not one`);
    return ok(matching[0]!.entry);
  }

  async list(labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
    if (typeof labels !== "object" || labels === null || Object.values(labels).some((v) => typeof v !== "string")) {
      return fail("invalid", "list takes labels: an object of strings", { field: "labels" });
    }
    const all = await this.#phones.list(options.signal);
    if (!all.ok) return all;
    return ok(all.value.filter(({ entry }) => Object.entries(labels).every(([k, v]) => entry.labels[k] === v)).map((p) => this.#phones.infoOf(p)));
  }

  async network(ref: ComputerRef, policy?: NetworkPolicy, options: CallOptions = {}): Promise<Result<NetworkReadBack>> {
    const found = await this.#phones.find(ref?.id, options.signal);
    if (!found.ok) return found;
    if (policy !== undefined && policy !== "open")
      return fail("unsupported", "a phone-harness phone's network is open and stays so: the phone harness offers no other", { field: "network" });
    return ok("open");
  }

  async connect(ref: ComputerRef, options: CallOptions = {}): Promise<Result<Connection>> {
    const found = await this.#phones.find(ref?.id, options.signal);
    if (!found.ok) return found.error.code === "not_found" ? fail("gone", found.error.message) : found;
    if (found.value.session.status !== "ready") return fail("unreachable", `the phone ${ref.id} is ${found.value.session.status}, not ready`);
    const client = await this.#phones.connect(ref.id, options.signal);
    if (!client.ok) return client;
    const drift = this.#phones.versionDrift(client.value);
    if (drift) {
      await client.value.close();
      return drift;
    }
    return ok({ client: client.value, hello: client.value.hello, close: () => client.value.close() });
  }

  /** The live view: PNG frames of the phone's screen on a connection of the watch's own (its in-process client answers screen.watch). */
  readonly watch: LiveView = daemonLiveView(this);

  async release(ref: ComputerRef, how: ReleaseHow, options: CallOptions = {}): Promise<Result<undefined>> {
    if (how === "stop")
      return fail("unsupported", `release "stop" is refused: the phone harness ends a phone, it never stops one; release it with delete`, { field: "how" });
    if (how !== "delete") return fail("invalid", 'release takes "stop" or "delete"', { field: "how" });
    const id = ref?.id;
    if (typeof id !== "string" || !id) return fail("invalid", "a phone-harness ref has its session id", { field: "id" });
    const { ledger } = this.#phones.o;
    const entry = await ledger.get(id);
    if (entry?.released) return ok();
    if (!entry) {
      // Never a DELETE for a session the ledger does not name.
      const one = await this.#phones.api.get(id, options.signal);
      if (!one.ok) return one.error.code === "not_found" ? ok() : one;
      return fail("not_found", `${id} is not a phone of this provider's ledger, so it was not ended`);
    }
    const ended = await this.#phones.api.end(id, options.signal);
    if (!ended.ok && ended.error.code !== "not_found") return ended;
    if (ended.ok) await ledger.put({ ...entry, released: true });
    else await ledger.remove(id);
    return ok();
  }

  target(): string {
    return this.#phones.o.baseUrl;
  }

  /** list(): one GET /sessions joined to the ledger; rents nothing and reaches no phone. */
  async testConnection(options: CallOptions = {}): Promise<Result<{ detail: string }>> {
    const all = await this.#phones.list(options.signal);
    if (!all.ok) return all;
    const n = all.value.length;
    return ok({ detail: `the phone harness answers; ${n} phone${n === 1 ? "" : "s"} of this provider` });
  }
}
