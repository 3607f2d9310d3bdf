// What a person with kubectl may change on a running Pod, each named as drift by its field
// (src/kubernetes/hand-changes.ts), and a computer's id carrying its Pod's uid, by which a stack's
// release finds the Pod it made whatever its labels say (src/kubernetes/constants.ts).
import { describe, expect, it } from "vitest";
import { idOf, podOfId } from "../../src/kubernetes/constants.js";
import { handChanges, type HandChangeable } from "../../src/kubernetes/hand-changes.js";

const UID = "0b5c7a3e-1d2f-4a6b-8c9d-0e1f2a3b4c5d";

/** A Pod as the API server keeps it after create: the two tolerations its admission adds. */
const made = (): HandChangeable => ({
  metadata: { annotations: { "agentrun.computer/deadline": "2026-12-05T03:00:00.000Z", "cni.projectcalico.org/podIP": "10.0.0.7/32" } },
  spec: {
    activeDeadlineSeconds: 630,
    tolerations: [
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    ],
  },
});

describe("a Pod's hand changes", () => {
  it("are none on the Pod as made, a network plugin's annotation among them", () => {
    expect(handChanges(made(), 630)).toEqual([]);
  });

  it("name a deadline shortened, a toleration, a finalizer, an owner and an annotation of ours added", () => {
    const pod = made();
    pod.spec!.activeDeadlineSeconds = 60;
    pod.spec!.tolerations!.push({ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" });
    pod.metadata.finalizers = ["example.com/hold"];
    pod.metadata.ownerReferences = [{ kind: "ReplicaSet", name: "web-1" }];
    pod.metadata.annotations!["agentrun.computer/extra"] = "x";
    expect(handChanges(pod, 630)).toEqual([
      "its activeDeadlineSeconds is 60, not the 630 create wrote: the kubelet would end it before its deadline",
      'its toleration {"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"} was added',
      'its finalizers are ["example.com/hold"]: a delete would wait on them',
      "it is owned by ReplicaSet web-1: deleting that would delete the computer",
      "its annotation agentrun.computer/extra was added",
    ]);
  });

  it("hold an admitted toleration to what admission writes: its seconds changed is a toleration added", () => {
    const pod = made();
    pod.spec!.tolerations![0]!.tolerationSeconds = 3600;
    expect(handChanges(pod, 630)).toEqual(['its toleration {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute"} was added']);
  });

  it("hold a Pod made before its deadline was recorded to nothing more than having one", () => {
    const pod = made();
    pod.spec!.activeDeadlineSeconds = 60;
    expect(handChanges(pod, undefined)).toEqual([]);
  });
});

describe("a computer's id", () => {
  it("is its Pod's name and uid, and reads back as both", () => {
    expect(idOf("computer-0123456789ab", UID)).toBe(`computer-0123456789ab/${UID}`);
    expect(podOfId(`computer-0123456789ab/${UID}`)).toEqual({ name: "computer-0123456789ab", uid: UID });
  });

  it("is taken as a name alone (an import, the CLI), and refused as anything else", () => {
    expect(idOf("computer-0123456789ab", undefined)).toBe("computer-0123456789ab");
    expect(podOfId("computer-0123456789ab")).toEqual({ name: "computer-0123456789ab" });
    for (const id of ["computer-0123456789ab/", "computer-0123456789ab/not-a-uid", "other-0123456789ab", `computer-0123456789ab/${UID}/x`, 7, undefined])
      expect(podOfId(id)).toBeUndefined();
  });
});
