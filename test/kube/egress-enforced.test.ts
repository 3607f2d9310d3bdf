// What a joined computer's sidecar enforces, proven from inside, on the test cluster, as
// test/docker/egress-shared.test.ts and egress-proven.test.ts prove it on Docker: a proxy made with
// a rule and a key; a computer of an image with a system bundle of its own joining it, whose create
// and every read carry what the sidecar holds (the rule, the key's host and never the key, and that
// the CA its programs trust is the proxy's), whose system store is linked to init's bundle (the
// image's roots and the proxy's CA), and whose rules are proven by judge-only requests the proxy
// answers and never sends on (the server sees none); then the rules on its path changed by hand (the
// sidecar's socket taken by a proxy of other rules, started in the Pod as an ephemeral container)
// read as drift naming host, method and path. The image is pushed to the cluster's registry and
// deleted from it at the end (test/support/kube-joined.ts sets the rest up and removes it). Skipped
// in words unless AGENTRUN_KUBE_TESTS=1.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseKubeconfig } from "../../src/kubernetes/kubeconfig.js";
import type { Pod } from "../../src/kubernetes/readback.js";
import { registryCall } from "../../src/kubernetes/registry.js";
import { makeCa } from "../support/engine-certs.js";
import { getThroughProxy, KUBE_ASKED, KUBE_SKIPPED, must, until } from "../support/kube.js";
import { joinedStory } from "../support/kube-joined.js";

const ROOT = join(import.meta.dirname, "..", "..");
const UP = "up.kube-enforced.test";
const KEY = `k-${randomBytes(12).toString("hex")}`;
const RULE = { host: UP, methods: ["GET"], paths: ["/v1/items"] };
const HELD = { rules: [RULE], credentialHosts: [UP] };
const id = randomBytes(4).toString("hex");
const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const certificates = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];

describe.skipIf(!KUBE_ASKED)(
  KUBE_ASKED ? "what a joined computer's sidecar enforces, proven from inside, on the test cluster" : `skipped: ${KUBE_SKIPPED}`,
  () => {
    const asked: string[] = [];
    const s = joinedStory("kenforced", "kube-enforced test", UP, (req) => {
      asked.push(`${req.method} ${req.url}`);
      return `${req.method} ${req.url} answered`;
    });
    /** The image with a system bundle of its own (the base has none): one root, the test's; pushed by digest, and its manifest to delete. */
    let rooted = "";
    let root = "";
    let manifest: { host: string; path: string } | undefined;
    let pod: Pod | undefined;

    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), "agentrun-kube-rooted-"));
      try {
        await makeCa(join(dir, "ca"));
        root = readFileSync(join(dir, "ca", "ca.pem"), "utf8").trim();
        writeFileSync(join(dir, "roots.pem"), `${root}\n`);
        const base = (JSON.parse(readFileSync(join(ROOT, "dist", "toolchain.json"), "utf8")) as { baseImage: string }).baseImage;
        writeFileSync(join(dir, "Dockerfile"), `FROM ${base}\nCOPY roots.pem /etc/ssl/certs/ca-certificates.crt\n`);
        const registry = (JSON.parse(readFileSync(join(ROOT, "dist", "kube.json"), "utf8")) as { image: string }).image.split("/")[0]!;
        const tag = `${registry}/agentrun-test-rooted-${id}:t`;
        docker("build", "-q", "-t", tag, dir);
        try {
          const digest = /digest: (sha256:[a-f0-9]{64})/.exec(docker("push", tag))?.[1];
          if (!digest) throw new Error(`docker push ${tag} gave no digest`);
          rooted = `${registry}/agentrun-test-rooted-${id}@${digest}`;
          manifest = { host: registry, path: `/v2/agentrun-test-rooted-${id}/manifests/${digest}` };
        } finally {
          docker("rmi", tag);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 600_000);

    afterAll(async () => {
      // The pushed image's manifest deleted from the cluster's registry (HTTPS, the cluster's CA), by its digest.
      if (!manifest) return;
      const deleted = await registryCall(manifest.host, manifest.path, { ca: parseKubeconfig(s.cluster.text).ca, ms: 30_000 }, { method: "DELETE" });
      expect(deleted.ok && deleted.value.status, `deleting ${manifest.path}`).toBe(202);
    }, 60_000);

    it("carries what the sidecar holds at create and on a read (the rule, the key's host and never the key, the proxy's CA trusted), proven from inside without a request reaching the server", async () => {
      const m = await s.provider.proxies.make({
        allow: [UP],
        rules: [RULE],
        credentials: [{ host: UP, header: "X-Api-Key", value: KEY }],
        lifetimeMs: 1_800_000,
      });
      if (!m.ok) throw new Error(m.error.message);
      s.proxy = m.value.name;
      pod = await s.join(rooted);
      expect(s.computer?.spec?.enforced).toEqual({ ...HELD, trust: "proxy" });
      const read = await s.provider.read({ id: s.computer!.id });
      expect(JSON.stringify(read)).not.toContain(KEY);
      expect(read.ok && read.value).toMatchObject({ drift: [], ref: { spec: { enforced: { ...HELD, trust: "proxy" } } } });
      // The proof's requests were judged at the proxy and never sent on.
      expect(asked).toEqual([]);
      expect(await getThroughProxy(s.conn!, UP, s.port, { path: "/v1/items" })).toMatch(/GET \/v1\/items answered$/);
      expect(asked).toEqual(["GET /v1/items"]);
    }, 600_000);

    it("links the system store to init's bundle: the image's roots, then the proxy's CA", async () => {
      expect(s.conn).toBeDefined();
      expect((await s.exec("readlink /etc/ssl/certs/ca-certificates.crt")).trim()).toBe("/run/agentrun/egress-trust.pem");
      const ca = (await s.exec("cat /opt/agentrun/egress/ca.pem")).trim();
      expect(certificates(await s.exec("cat /etc/ssl/certs/ca-certificates.crt"))).toEqual([root, ca]);
      expect((await s.exec("cat /etc/agentrun/image-roots.pem")).trim()).toBe(root);
    }, 120_000);

    it("reads rules changed by hand on the computer's path as drift naming host, method and path", async () => {
      expect(pod).toBeDefined();
      const ns = s.ns;
      const path = `/api/v1/namespaces/${ns}/pods/${pod!.metadata.name}/ephemeralcontainers`;
      // The sidecar as the API server has it: what the proxy by hand takes of it.
      const read0 = await must<{
        spec: {
          containers: Array<{
            name: string;
            image: string;
            args: string[];
            env: unknown[];
            volumeMounts: unknown[];
            securityContext: { runAsUser: number; runAsGroup: number };
          }>;
        };
      }>(s.cluster.admin, `/api/v1/namespaces/${ns}/pods/${pod!.metadata.name}`);
      const sidecar = read0!.spec.containers.find((c) => c.name === "egress")!;
      // Its rules from the ConfigMap's file, taken out for one of its own.
      const at = sidecar.args.indexOf("--rules-file");
      expect(at).toBeGreaterThan(0);
      const args = [...sidecar.args.slice(0, at), "--rule", `${UP} GET,POST /v1/items`, ...sidecar.args.slice(at + 2)];
      const user = { runAsUser: sidecar.securityContext.runAsUser, runAsGroup: sidecar.securityContext.runAsGroup, runAsNonRoot: true };
      const mount = [{ name: "egress", mountPath: "/opt/agentrun/egress" }];
      const ephemeral = (name: string) => async () => {
        const got = await must<Pod & { status: { ephemeralContainerStatuses?: Array<{ name: string; state?: Record<string, unknown> }> } }>(
          s.cluster.admin,
          `/api/v1/namespaces/${ns}/pods/${pod!.metadata.name}`,
        );
        return got?.status.ephemeralContainerStatuses?.find((c) => c.name === name)?.state;
      };
      // The sidecar's socket freed (it keeps running, its argv as made), then a proxy of other rules
      // listening on it: the sidecar's own argv and mounts, but a rule of its own for the ConfigMap's.
      const freeing = {
        name: `free-${id}`,
        image: rooted,
        command: ["rm", "-f", "/opt/agentrun/egress/egress.sock"],
        securityContext: user,
        volumeMounts: mount,
      };
      await must(s.cluster.admin, path, { method: "PATCH", body: { spec: { ephemeralContainers: [freeing] } } });
      await until("the socket freed", 120, async () => ((await ephemeral(freeing.name)())?.terminated ? true : undefined));
      const impostor = {
        name: `byhand-${id}`,
        image: sidecar.image,
        command: ["/computerd-egress"],
        args,
        env: sidecar.env,
        securityContext: user,
        volumeMounts: sidecar.volumeMounts,
      };
      await must(s.cluster.admin, path, { method: "PATCH", body: { spec: { ephemeralContainers: [freeing, impostor] } } });
      await until("the proxy by hand listening", 120, async () =>
        (await s.exec("test -S /opt/agentrun/egress/egress.sock && echo yes")).trim() === "yes" ? true : undefined,
      );
      const read = await s.provider.read({ id: s.computer!.id });
      expect(read.ok, JSON.stringify(read)).toBe(true);
      if (!read.ok) return;
      // The Pod's own read names the containers added; the proof names what the proxy on the path lets pass.
      expect(read.value.drift).toEqual([
        `it has ephemeral containers (${freeing.name}, ${impostor.name}), which share its network`,
        expect.stringMatching(
          new RegExp(
            `^from inside, POST /v1/items to ${UP.replaceAll(".", "\\.")} should be refused, as no rule of its proxy allows it, but the proxy on its path answered "200 POST /v1/items would pass for ${UP.replaceAll(".", "\\.")}`,
          ),
        ),
      ]);
      // What the sidecar holds is still what it was made with.
      expect(read.value.ref.spec?.enforced).toMatchObject(HELD);
    }, 300_000);
  },
);
