// The Kubernetes provider's in-cluster credentials, with a temporary folder standing in for the
// service account Kubernetes mounts in a Pod: the address from KUBERNETES_SERVICE_HOST and _PORT,
// the token (read again once a minute, as the kubelet rotates it), the CA and the namespace; each
// thing missing refused naming inCluster, never with the token. And the image names preflight
// compares with the node's store.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { authHeaders } from "../../src/kubernetes/api.js";
import { create } from "../../src/kubernetes/create.js";
import { inClusterCredentials, rotatingToken } from "../../src/kubernetes/in-cluster.js";
import { storeName } from "../../src/kubernetes/preflight.js";

const TOKEN = "eyJhbGciOiJSUzI1NiJ9.in-cluster-token-never-shown";
const address = { host: "10.96.0.1", port: "443" };

function refusal(f: () => unknown): Error & { option?: string } {
  try {
    f();
  } catch (error) {
    return error as Error & { option?: string };
  }
  throw new Error("it was not refused");
}

describe("in-cluster credentials", () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(tmpdir(), "agentrun-sa-"));
    writeFileSync(path.join(folder, "token"), `${TOKEN}\n`);
    writeFileSync(path.join(folder, "ca.crt"), "CA PEM\n");
    writeFileSync(path.join(folder, "namespace"), "agents");
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it("reads the server from the service's address, and the token, CA and namespace from the mount", () => {
    const c = inClusterCredentials(folder, address);
    expect(c.server).toBe("https://10.96.0.1");
    expect(c.ca).toBe("CA PEM\n");
    expect(c.namespace).toBe("agents");
    expect(authHeaders(c).authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("brackets an IPv6 service address", () => {
    expect(inClusterCredentials(folder, { host: "fd00::1", port: "6443" }).server).toBe("https://[fd00::1]:6443");
  });

  it("reads the token again once a minute, keeping the last one when a read fails", () => {
    let now = 0;
    const file = path.join(folder, "token");
    const token = rotatingToken(file, "first", () => now);
    writeFileSync(file, "second\n");
    now = 59_999;
    expect(token()).toBe("first");
    now = 60_000;
    expect(token()).toBe("second");
    rmSync(file);
    now = 120_000;
    expect(token()).toBe("second");
  });

  it.each([
    ["the service's host is not set", () => inClusterCredentials(folder, { host: undefined, port: "443" }), /KUBERNETES_SERVICE_HOST/],
    ["the port is not a number", () => inClusterCredentials(folder, { host: "10.96.0.1", port: "https" }), /not a port number/],
    ["the token is not mounted", () => (rmSync(path.join(folder, "token")), inClusterCredentials(folder, address)), /ENOENT.*automountServiceAccountToken/],
    ["the token is empty", () => (writeFileSync(path.join(folder, "token"), "\n"), inClusterCredentials(folder, address)), /is empty/],
    ["the CA is not mounted", () => (rmSync(path.join(folder, "ca.crt")), inClusterCredentials(folder, address)), /ca\.crt could not be read/],
  ])("is refused when %s, naming inCluster and never the token", (_what, f, words) => {
    const error = refusal(f);
    expect(error.option).toBe("inCluster");
    expect(error.message).toMatch(words);
    expect(error.message).not.toContain(TOKEN);
  });

  it("refuses inCluster beside a kubeconfig, or a context with it, naming the option", () => {
    expect(refusal(() => create({ inCluster: true, kubeconfig: "apiVersion: v1" })).option).toBe("inCluster");
    expect(refusal(() => create({ inCluster: true, context: "c" })).option).toBe("context");
    expect(refusal(() => create({})).message).toMatch(/kubeconfig is required.*or inCluster: true/);
  });

  it("refuses inCluster in a process that runs in no Pod, naming the mount", () => {
    // This machine is no Pod: the service account's folder is not there.
    const error = refusal(() => create({ inCluster: true }));
    expect(error.option).toBe("inCluster");
    expect(error.message).toMatch(/KUBERNETES_SERVICE_HOST|\/var\/run\/secrets\/kubernetes\.io\/serviceaccount\/token could not be read/);
  });
});

describe("an image as the node's store names it", () => {
  it.each([
    ["agentrun-base:abc", "docker.io/library/agentrun-base:abc"],
    ["busybox", "docker.io/library/busybox:latest"],
    ["me/tool", "docker.io/me/tool:latest"],
    ["docker.io/library/agentrun-base@sha256:ab", "docker.io/library/agentrun-base@sha256:ab"],
    ["agentrun-base:abc@sha256:ab", "docker.io/library/agentrun-base@sha256:ab"],
    ["registry.local:5000/team/img", "registry.local:5000/team/img:latest"],
    ["localhost/img:1", "localhost/img:1"],
  ])("%s is %s", (ref, name) => {
    expect(storeName(ref)).toBe(name);
  });
});
