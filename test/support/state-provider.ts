// A provider for the plugin's state handlers (a Computer's pause and resume, ComputerSnapshot)
// without a vendor: one computer held in memory, its pause, resume and snapshots as the contract
// (src/contract/state.ts) says, and every call recorded so a test sees what the step asked for.
import type { Capabilities, ComputerProvider, ComputerRef, ComputerState, ReadBack } from "../../src/contract/provider.js";
import { snapshotImage, type Snapshot, type SnapshotOptions } from "../../src/contract/state.js";
import { fail, ok } from "../../src/daemon/result.js";
import { checkedSpec } from "../../src/contract/checked.js";
import type { Context } from "../../provider/resource.js";

export interface StateWorld {
  provider: ComputerProvider;
  /** Each call a step made, as `<hook> <what>`. */
  calls: string[];
  /** The one computer's state; "gone" once removed. */
  computer: { ref: ComputerRef; state: ComputerState | "gone"; labels: Record<string, string> };
  snapshots: Map<string, Snapshot>;
  /** Makes the next pause fail, in these words. */
  failPause?: string;
}

const CAPABILITIES: Capabilities = {
  kind: "linux",
  os: "linux",
  daemon: "pid1",
  groups: ["exec", "files", "processes"],
  lifetime: "janitor",
  maxLifetimeMs: 3_600_000,
  network: ["none"],
  release: ["delete"],
};

/** A provider of one computer, with pause and snapshot hooks unless told otherwise. */
export function stateWorld(id = "held", { pause = true, snapshots = true } = {}): StateWorld {
  const ref: ComputerRef = { id: "v".repeat(12), name: "computer-held", provider: id, spec: { image: "agentrun-base:x", network: "none", user: "1000:1000" } };
  const refused = async () => fail("unsupported", "not in this test");
  const world: StateWorld = { calls: [], computer: { ref, state: "running", labels: {} }, snapshots: new Map(), provider: undefined as never };
  const here = (r: { id?: string }) => world.computer.state !== "gone" && r.id === ref.id;
  const provider: ComputerProvider = {
    id,
    version: "0.0.0",
    capabilities: () => ({ ...CAPABILITIES, ...(pause ? { pause: "memory" as const } : {}), ...(snapshots ? { snapshot: true } : {}) }),
    check: (spec) => checkedSpec(spec, []),
    create: async (spec, options) => {
      const image = typeof spec.image === "string" ? spec.image : spec.image.image;
      world.calls.push(`create ${image}`);
      world.computer = { ref, state: "running", labels: { ...spec.labels, ...(options?.owner ? { owner: options.owner } : {}) } };
      return ok({ ...ref, spec: { image, network: "none", user: "1000:1000" } });
    },
    read: async (by) => {
      if (!here(by as { id?: string })) return fail("not_found", `no computer ${(by as { id?: string }).id}`);
      const state = world.computer.state as ComputerState;
      return ok<ReadBack>({ ref, state, labels: world.computer.labels, drift: [] });
    },
    release: async (r) => {
      world.calls.push(`release ${r.id}`);
      world.computer.state = "gone";
      return ok(undefined);
    },
    attach: refused,
    list: async () => ok([]),
    network: refused,
    connect: refused,
  };
  if (pause)
    Object.assign(provider, {
      pause: {
        keeps: "memory",
        pause: async (r: ComputerRef) => {
          world.calls.push(`pause ${r.id}`);
          if (world.failPause) return fail("unreachable", world.failPause);
          if (!here(r)) return fail("not_found", "gone");
          world.computer.state = "paused";
          return ok(undefined);
        },
        resume: async (r: ComputerRef) => {
          world.calls.push(`resume ${r.id}`);
          if (!here(r)) return fail("not_found", "gone");
          world.computer.state = "running";
          return ok(ref);
        },
      },
    });
  if (snapshots)
    Object.assign(provider, {
      snapshots: {
        take: async (r: ComputerRef, options?: SnapshotOptions) => {
          world.calls.push(`take ${r.id} owner=${options?.owner ?? ""} note=${options?.note ?? ""}`);
          if (!here(r)) return fail("not_found", `no computer ${r.id}`);
          const image = snapshotImage(id, `sha256:${world.snapshots.size + 1}`);
          const labels = { ...options?.labels, "agentrun.snapshot": "1" };
          const taken: Snapshot = { image, computer: r.name, sizeBytes: 4096, takenAt: "2026-12-05T03:00:00.000Z", holds: "its files", labels };
          world.snapshots.set(image, taken);
          return ok(taken);
        },
        read: async (image: string) => {
          world.calls.push(`read ${image}`);
          const s = world.snapshots.get(image);
          return s ? ok(s) : fail("not_found", `no snapshot ${image}`);
        },
        remove: async (image: string) => {
          world.calls.push(`remove ${image}`);
          world.snapshots.delete(image);
          return ok(undefined);
        },
      },
    });
  world.provider = provider;
  return world;
}

/** A step's context whose every provider id is this world's provider. */
export function worldContext(world: StateWorld, urn = "urn:pulumi:dev::p::agentrun:index:Computer::c"): Context {
  return { settings: {}, vendor: async () => ok(world.provider), signal: new AbortController().signal, urn };
}
