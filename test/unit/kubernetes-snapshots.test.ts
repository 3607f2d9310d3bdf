// Kubernetes' snapshots, the pure half (src/kubernetes/snapshot-image.ts): the name both ways, the
// image a fork's Pod runs and reads back as, a fork's refusals, and the manifest pushed.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkSpec } from "../../src/kubernetes/check.js";
import { CAPABILITIES } from "../../src/kubernetes/provider.js";
import { podManifest } from "../../src/kubernetes/pod.js";
import { specOf, podDrift, type Pod } from "../../src/kubernetes/readback.js";
import { forkRefusal, kubeSnapshotImage, platformOf, podImageOf, snapshotManifest, snapshotRefOf } from "../../src/kubernetes/snapshot-image.js";

const DIGEST = `sha256:${"a".repeat(64)}`;
const SNAPSHOT = `snapshot://kubernetes/10.209.255.100:5000/agentrun-snapshot@${DIGEST}`;
const sha = (b: Buffer) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

describe("a Kubernetes snapshot's image", () => {
  it("names the image by digest in its registry, which a fork's Pod runs", () => {
    expect(kubeSnapshotImage("10.209.255.100:5000", DIGEST)).toBe(SNAPSHOT);
    expect(snapshotRefOf(SNAPSHOT)).toBe(`10.209.255.100:5000/agentrun-snapshot@${DIGEST}`);
    expect(podImageOf(SNAPSHOT)).toBe(`10.209.255.100:5000/agentrun-snapshot@${DIGEST}`);
    expect(podImageOf("debian:bookworm")).toBe("debian:bookworm");
    // A tag, a short digest, or no registry host is no snapshot's.
    for (const bad of ["snapshot://kubernetes/agentrun-snapshot:latest", "snapshot://kubernetes/r.example/x@sha256:abc", `snapshot://kubernetes/x@${DIGEST}`])
      expect(snapshotRefOf(bad)).toBeUndefined();
    expect(snapshotRefOf(`snapshot://docker/${"a".repeat(64)}`)).toBeUndefined();
  });

  it("refuses another provider's snapshot and one that names no image by digest, at check", () => {
    expect(forkRefusal("snapshot://modal/im-1")?.message).toBe(
      "image snapshot://modal/im-1 is a snapshot taken on modal, which a computer on kubernetes cannot start from: fork it on modal, or take a snapshot on kubernetes",
    );
    expect(forkRefusal("snapshot://kubernetes/im-1")?.message).toMatch(/is no Kubernetes snapshot's: one is snapshot:\/\/kubernetes\/<registry>/);
    expect(forkRefusal(SNAPSHOT)).toBeUndefined();
    const spec = { image: "snapshot://docker/" + "b".repeat(64), lifetimeMs: 60_000, network: "none" as const };
    expect(checkSpec(spec, CAPABILITIES).map((r) => r.field)).toEqual(["image"]);
    expect(checkSpec({ ...spec, image: SNAPSHOT }, CAPABILITIES)).toEqual([]);
  });

  it("gives a fork's Pod the image by digest, read back as the snapshot and no drift", () => {
    const recorded = { image: SNAPSHOT, user: "2510:2510", workdir: "/work", network: "none" as const, deadlineSeconds: 90 };
    const manifest = podManifest({
      name: "computer-0123456789ab",
      namespace: "default",
      deadline: "2026-12-05T00:00:00.000Z",
      lifetimeMs: 60_000,
      recorded,
      labels: {},
      arch: "amd64",
      pullPolicy: "IfNotPresent",
      waitSeconds: 150,
    }) as { spec: { containers: Array<{ image: string }> } };
    expect(manifest.spec.containers[0]!.image).toBe(podImageOf(SNAPSHOT));
    const pod = { ...manifest, metadata: { ...(manifest as unknown as Pod).metadata }, status: { phase: "Running" } } as unknown as Pod;
    expect(specOf(pod, recorded).image).toBe(SNAPSHOT);
    expect(podDrift(pod, { runtimeClass: undefined, pullPolicy: "IfNotPresent" }).filter((d) => d.includes("image"))).toEqual([]);
  });

  it("picks the nodes' platform out of an index", () => {
    const index = {
      manifests: [
        { digest: "sha256:arm", platform: { os: "linux", architecture: "arm64" } },
        { digest: "sha256:amd", platform: { os: "linux", architecture: "amd64" } },
      ],
    };
    expect(platformOf(index, "amd64")).toBe("sha256:amd");
    expect(platformOf(index, "riscv64")).toBeUndefined();
  });

  it("pushes the base's layers as they are, the home's after them, in the base manifest's family", () => {
    const config = Buffer.from('{"config":{}}');
    const home = Buffer.from("home layer");
    for (const [type, configType, layer] of [
      ["application/vnd.oci.image.manifest.v1+json", "application/vnd.oci.image.config.v1+json", "application/vnd.oci.image.layer.v1.tar"],
      [
        "application/vnd.docker.distribution.manifest.v2+json",
        "application/vnd.docker.container.image.v1+json",
        "application/vnd.docker.image.rootfs.diff.tar",
      ],
    ] as const) {
      const baseLayer = { mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: "sha256:l1", size: 10 };
      const base = { schemaVersion: 2 as const, mediaType: type, config: { mediaType: "c", digest: "sha256:c", size: 1 }, layers: [baseLayer] };
      const made = snapshotManifest(base, config, home)!;
      const manifest = JSON.parse(made.bytes.toString()) as typeof base;
      expect(manifest.mediaType).toBe(type);
      expect(manifest.config).toEqual({ mediaType: configType, digest: sha(config), size: config.length });
      expect(manifest.layers).toEqual([baseLayer, { mediaType: layer, digest: sha(home), size: home.length }]);
      expect(made.digest).toBe(sha(made.bytes));
    }
    // A manifest of a kind not read here: none made.
    const other = { schemaVersion: 2 as const, mediaType: "application/x-other", config: { mediaType: "c", digest: "sha256:c", size: 1 }, layers: [] };
    expect(snapshotManifest(other, config, home)).toBeUndefined();
  });
});
