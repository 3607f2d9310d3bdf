// A computer's node lost: the words nodeLoss gives from the Node and its lease as read.
import { describe, expect, it } from "vitest";
import { nodeLoss } from "../../src/kubernetes/node-lost.js";

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
