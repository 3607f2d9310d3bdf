// Bad settings refused by the real API server of the test cluster before anything is made, each in
// words naming the setting and never a secret from it: a kubeconfig whose server does not answer or
// does not take its credentials, a namespace that does not exist, a namespace a service account with
// no rights may not write (its token from the TokenRequest API), a RuntimeClass the cluster lacks
// (runtimeClass, gvisorRuntimeClass), an image no node holds and none would pull (with nothing pulled,
// or its registry without it). After each, no Pod carries the test's label. Skipped in words unless
// AGENTRUN_KUBE_TESTS=1; starts the cluster when it is not running and leaves it running.
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { parse, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Result } from "../../src/daemon/result.js";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProviderOptions } from "../../src/kubernetes/options.js";
import { KubePods } from "../../src/kubernetes/pods.js";
import type { Pod } from "../../src/kubernetes/readback.js";
import { KUBE_ASKED, KUBE_SKIPPED, must, testCluster, type TestCluster } from "../support/kube.js";

const SA_PATH = "/api/v1/namespaces/default/serviceaccounts";

/** A port on the loopback nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "bad settings refused by the test cluster's API server, with nothing made" : `skipped: ${KUBE_SKIPPED}`, () => {
  const tag = randomBytes(4).toString("hex");
  const account = `agentrun-no-rights-${tag}`;
  let cluster: TestCluster;
  /** Every secret a refusal must not hold: the admin's key and the service account's token. */
  const secrets: string[] = [];

  beforeAll(async () => {
    cluster = await testCluster();
    const user = parse(cluster.text).users[0].user;
    secrets.push(user["client-key-data"], Buffer.from(user["client-key-data"], "base64").toString("utf8").split("\n")[1]!);
  }, 3_600_000);
  afterAll(async () => {
    if (cluster) await must(cluster.admin, `${SA_PATH}/${account}`, { method: "DELETE", gone: true });
  }, 60_000);

  /** A kubeconfig like the admin's, with its cluster's server or its user replaced. */
  const kubeconfigWith = (over: { server?: string; user?: Record<string, string> }): string => {
    const doc = parse(cluster.text);
    if (over.server) doc.clusters[0].cluster.server = over.server;
    if (over.user) doc.users[0].user = over.user;
    return stringify(doc);
  };

  /** A create with the options over the admin's, its spec labelled with the test's tag. */
  const createWith = (over: Partial<KubernetesProviderOptions>, image = cluster.image): Promise<Result<unknown>> =>
    create({ kubeconfig: cluster.text, imagePullPolicy: "Never", ...over }).create({
      image,
      lifetimeMs: 600_000,
      network: "none",
      labels: { "preflight-test": tag },
    });

  /** The refusal: its code and field as asked, no secret in its words, and no Pod of the test's. */
  const refused = async (result: Result<unknown>, code: string, field: string, words: RegExp) => {
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect({ code: result.error.code, field: result.error.field }).toEqual({ code, field });
    expect(result.error.message).toMatch(words);
    expect(result.error.message).toMatch(/nothing was made/);
    for (const secret of secrets) expect(result.error.message).not.toContain(secret);
    const pods = await must<{ items: Pod[] }>(cluster.admin, "/api/v1/pods?labelSelector=agentrun.computer%3D1");
    expect(pods!.items.filter((p) => p.metadata.labels?.["preflight-test"] === tag)).toEqual([]);
  };

  it("refuses a kubeconfig whose server does not answer, naming kubeconfig", async () => {
    const server = `https://127.0.0.1:${await closedPort()}`;
    await refused(await createWith({ kubeconfig: kubeconfigWith({ server }) }), "unreachable", "kubeconfig", /could not be reached.*check kubeconfig/);
  });

  it("refuses a kubeconfig whose token the server does not take, naming kubeconfig", async () => {
    const token = `not-a-token-${tag}`;
    secrets.push(token);
    await refused(await createWith({ kubeconfig: kubeconfigWith({ user: { token } }) }), "unauthorized", "kubeconfig", /refused the credentials/);
  });

  it("refuses a namespace that does not exist, naming namespace", async () => {
    await refused(await createWith({ namespace: `agentrun-absent-${tag}` }), "invalid", "namespace", /namespace agentrun-absent-\w+ does not exist/);
  });

  it("refuses a namespace the credentials may not write, naming namespace: a service account with no rights", async () => {
    await must(cluster.admin, SA_PATH, { method: "POST", body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: account } } });
    const request = await must<{ status: { token: string } }>(cluster.admin, `${SA_PATH}/${account}/token`, {
      method: "POST",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 600 } },
    });
    const token = request!.status.token;
    secrets.push(token);
    const kubeconfig = kubeconfigWith({ user: { token } });
    await refused(await createWith({ kubeconfig }), "refused", "namespace", /may not create pods in the namespace default/);
  });

  it("refuses a RuntimeClass the cluster lacks, naming runtimeClass", async () => {
    await refused(await createWith({ runtimeClass: `agentrun-absent-${tag}` }), "invalid", "runtimeClass", /no RuntimeClass agentrun-absent-\w+/);
  });

  it("refuses a gvisorRuntimeClass the cluster lacks, naming it, for a runc computer too", async () => {
    await refused(
      await createWith({ gvisorRuntimeClass: `agentrun-absent-${tag}` }),
      "invalid",
      "gvisorRuntimeClass",
      /no RuntimeClass agentrun-absent-\w+; give gvisorRuntimeClass one it has/,
    );
  });

  it("refuses an image no node holds when nothing is pulled, naming image", async () => {
    const absent = `docker.io/library/agentrun-absent@sha256:${"0".repeat(64)}`;
    await refused(await createWith({}, absent), "invalid", "image", /no node of the cluster holds the image .*imagePullPolicy is Never/);
  });

  it("refuses an image neither a node nor its registry holds when a node would pull it, naming image", async () => {
    const registry = cluster.image.slice(0, cluster.image.indexOf("/"));
    const absent = `${registry}/agentrun-absent-${tag}:1`;
    await refused(
      await createWith({ imagePullPolicy: "IfNotPresent" }, absent),
      "invalid",
      "image",
      new RegExp(`no node of the cluster holds the image ${absent}, and its registry ${registry} has no agentrun-absent-${tag}:1 \\(it answered 404`),
    );
  });

  it("leaves to the create an image whose registry says nothing it can read (Docker Hub, unreachable here)", async () => {
    const pods = new KubePods({ kubeconfig: cluster.text, imagePullPolicy: "IfNotPresent" }, () => "0.0.0");
    expect(await pods.preflight.check(`docker.io/library/agentrun-absent-${tag}:1`)).toEqual({ ok: true });
  });

  it("passes the cluster's own settings: the admin's kubeconfig, default, the image in the cluster's registry", async () => {
    // The pull policy left as users leave it: a node that has not pulled the image yet pulls it from there.
    const pods = new KubePods({ kubeconfig: cluster.text }, () => "0.0.0");
    expect(await pods.preflight.check(cluster.image)).toEqual({ ok: true });
  });
});
