// A computer's node lost: the words nodeLoss gives from the Node and its lease as read, and the
// read (its loss and its kernel) shared by the Pods on one node (NodeStates).
import { describe, expect, it } from "vitest";
import type { KubeApi } from "../../src/kubernetes/api.js";
import { fail, ok } from "../../src/daemon/result.js";
import { lostNodes, NODE_READ_MS, NodeStates, nodeLoss } from "../../src/kubernetes/node-lost.js";

const NOW = Date.parse("2026-12-05T06:00:00Z");
const ready = (status: string, reason?: string) => ({ status: { conditions: [{ type: "Ready", status, ...(reason ? { reason } : {}) }] } });
const lease = (ago: number, seconds = 40) => ({ spec: { renewTime: new Date(NOW - ago * 1000).toISOString(), leaseDurationSeconds: seconds } });

describe("nodeLoss", () => {
  it("says nothing of a node whose kubelet renewed its lease within its duration and which is Ready", () => {
    expect(nodeLoss("n1", { node: ready("True"), lease: lease(10) }, NOW)).toBeUndefined();
    expect(nodeLoss("n1", { node: ready("True") }, NOW)).toBeUndefined();
  });

  it("names a node whose lease went unrenewed past its duration, though it still reads Ready", () => {
    expect(nodeLoss("n2", { node: ready("True"), lease: lease(45) }, NOW)).toBe(
      "its node n2 is lost: its kubelet last renewed its lease 45 s ago (a live one renews it within 40 s)",
    );
    expect(nodeLoss("n2", { node: ready("True"), lease: lease(45, 60) }, NOW)).toBeUndefined();
  });

  it("names a node that is not Ready, and one the API server no longer has", () => {
    expect(nodeLoss("n2", { node: ready("Unknown", "NodeStatusUnknown"), lease: lease(5) }, NOW)).toBe(
      "its node n2 is lost: it is not Ready (Unknown, NodeStatusUnknown)",
    );
    expect(nodeLoss("n3", {}, NOW)).toBe("its node n3 is gone (the API server has no Node n3)");
  });
});

describe("NodeStates", () => {
  /** An API server whose Node reads answer as `answer` says, counting the calls by path. */
  function server(answer: () => "ready" | "failing" | "slow" | "forbidden") {
    const calls: string[] = [];
    const api = {
      call: async (path: string) => {
        calls.push(path);
        const now = answer();
        if (now === "failing") return fail("unreachable", "the API server did not answer");
        if (now === "slow") await new Promise((r) => setTimeout(r, 50));
        if (now === "forbidden") return fail("refused", "forbidden");
        return ok(
          path.includes("/leases/")
            ? { spec: { renewTime: new Date().toISOString(), leaseDurationSeconds: 40 } }
            : { status: { ...ready("True").status, nodeInfo: { kernelVersion: "6.18.0" } } },
        );
      },
    } as unknown as KubeApi;
    return { api, calls };
  }

  it("reads a node once for every Pod on it within NODE_READ_MS, and again after", async () => {
    let now = 0;
    const { api, calls } = server(() => "ready");
    const nodes = new NodeStates(api, 1000, () => now);
    const live = ok({ lost: undefined, kernel: "6.18.0" });
    expect(await Promise.all([nodes.read("n1"), nodes.read("n1"), nodes.read("n2")])).toEqual([live, live, live]);
    expect(calls).toHaveLength(4); // n1's Node and lease, n2's
    now = NODE_READ_MS - 1;
    await nodes.read("n1");
    expect(calls).toHaveLength(4);
    now = NODE_READ_MS;
    await nodes.read("n1");
    expect(calls).toHaveLength(6);
  });

  it("keeps no failed read, and a caller's abort ends its own wait, not the others'", async () => {
    let answer: "ready" | "failing" | "slow" | "forbidden" = "failing";
    const { api, calls } = server(() => answer);
    const nodes = new NodeStates(api, 1000, () => 0);
    expect((await nodes.read("n1")).ok).toBe(false);
    answer = "slow";
    const stop = new AbortController();
    const mine = nodes.read("n1", stop.signal);
    const theirs = nodes.read("n1");
    stop.abort();
    expect(await mine).toEqual(fail("aborted", "reading the Node n1 was aborted"));
    expect(await theirs).toEqual(ok({ lost: undefined, kernel: "6.18.0" }));
    expect(calls).toHaveLength(4);
  });

  it("knows neither loss nor kernel of a Node the credentials may not read", async () => {
    const { api } = server(() => "forbidden");
    expect(await new NodeStates(api, 1000, () => 0).read("n1")).toEqual(ok({ lost: undefined, kernel: undefined }));
  });
});

describe("lostNodes", () => {
  /** An API server listing the Nodes and their leases as given (a listing refused when null). */
  const listing = (nodes: Array<{ name: string; node: object }> | null, leases: Array<{ name: string; lease: object }> | null) =>
    ({
      call: async (path: string) => {
        if (path === "/api/v1/nodes")
          return nodes === null ? fail("refused", "forbidden") : ok({ items: nodes.map((n) => ({ metadata: { name: n.name }, ...n.node })) });
        return leases === null ? fail("refused", "forbidden") : ok({ items: leases.map((l) => ({ metadata: { name: l.name }, ...l.lease })) });
      },
    }) as unknown as KubeApi;
  const renewed = (ago: number) => ({ spec: { renewTime: new Date(Date.now() - ago * 1000).toISOString(), leaseDurationSeconds: 40 } });

  it("names the nodes whose lease went unrenewed or which are not Ready, and not the live ones", async () => {
    const api = listing(
      [
        { name: "n1", node: ready("True") },
        { name: "n2", node: ready("True") },
        { name: "n3", node: ready("Unknown", "NodeStatusUnknown") },
      ],
      [
        { name: "n1", lease: renewed(5) },
        { name: "n2", lease: renewed(50) },
        { name: "n3", lease: renewed(5) },
      ],
    );
    expect(await lostNodes(api, { ms: 1_000 })).toEqual(ok(["n2", "n3"]));
  });

  it("sees none where the credentials may not list the Nodes, and reads Ready alone where they may not list leases", async () => {
    expect(await lostNodes(listing(null, []), { ms: 1_000 })).toEqual(ok([]));
    expect(await lostNodes(listing([{ name: "n1", node: ready("False") }], null), { ms: 1_000 })).toEqual(ok(["n1"]));
  });
});
