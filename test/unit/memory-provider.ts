// An in-memory provider for the janitor's tests: computers are entries in a map, list filters
// them by label, release deletes them, and a release can be made to fail by name.
import type { Capabilities, ComputerInfo, ComputerProvider, ComputerRef, ComputerSpec } from "../../src/vendor/provider.js";
import { fail, ok } from "../../src/vendor/result.js";

interface Computer {
  ref: ComputerRef;
  labels: Record<string, string>;
  deadline: Date | undefined;
  state: "running" | "stopped";
}

export class MemoryProvider implements ComputerProvider {
  readonly id = "memory";
  readonly version = "0.0.0";
  readonly computers = new Map<string, Computer>();
  /** Names whose release fails, with the words it fails with. */
  readonly failing = new Map<string, string>();
  readonly released: string[] = [];
  /** Labels of every list call. */
  readonly listed: Array<Record<string, string> | undefined> = [];
  /** Called before each release: a test aborts here. */
  onRelease: (name: string) => void = () => {};
  #next = 1;

  constructor(private readonly lifetime: Capabilities["lifetime"] = "janitor") {}

  capabilities(): Capabilities {
    return {
      kind: "linux",
      os: "linux",
      daemon: "pid1",
      groups: ["exec", "files", "processes"],
      lifetime: this.lifetime,
      maxLifetimeMs: 30 * 86_400_000,
      network: ["none"],
      release: ["stop", "delete"],
    };
  }

  /** A computer with labels; a null deadline is a missing label. */
  add(labels: Record<string, string>, deadline: Date | null = new Date(Date.now() + 600_000), state: Computer["state"] = "running"): string {
    const name = `computer-${String(this.#next++).padStart(12, "0")}`;
    this.computers.set(name, { ref: { id: name, name, provider: this.id }, labels, deadline: deadline ?? undefined, state });
    return name;
  }

  check(spec: ComputerSpec) {
    return ok({ spec });
  }
  async create(_spec: ComputerSpec) {
    return fail("unsupported", "the memory provider makes no computer");
  }
  async attach() {
    return fail("not_found", "no such computer");
  }
  async list(labels?: Record<string, string>) {
    this.listed.push(labels);
    const infos: ComputerInfo[] = [...this.computers.values()]
      .filter((c) => Object.entries(labels ?? {}).every(([k, v]) => c.labels[k] === v))
      .map((c) => ({ ref: c.ref, labels: c.labels, deadline: c.deadline, state: c.state, network: "none" as const }));
    return ok(infos);
  }
  async network() {
    return ok("none" as const);
  }
  async connect() {
    return fail("unsupported", "the memory provider has no daemon");
  }
  async release(ref: ComputerRef, _how: "stop" | "delete", options: { signal?: AbortSignal } = {}) {
    this.onRelease(ref.name);
    if (options.signal?.aborted) return fail("aborted", `the release of ${ref.name} was aborted`);
    const why = this.failing.get(ref.name);
    if (why) return fail("failed", why);
    this.computers.delete(ref.name);
    this.released.push(ref.name);
    return ok();
  }
}
