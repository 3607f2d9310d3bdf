// A Kubernetes computer's network beyond none, read from inside on the test cluster: an
// allowlisted computer reaches a listed host only through its proxy (a second container in the
// Pod), is refused another, sees no interface but lo and cannot reach the listed host directly;
// an open computer shares the Pod's network and reaches out, and nothing in its Pod is root. The test's server is reached at the
// host's side of the Pods' bridge, port 80 (the proxy takes 80 and 443 alone), in the range the
// test-only seam marks reachable. Every Pod is released by its exact name. Skipped in words unless
// AGENTRUN_KUBE_TESTS=1 (npm run test:kube); starts the cluster when it is not running and leaves
// it running (kube:down is the cluster test's).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputerRef, Connection, NetworkPolicy } from "../../src/contract/provider.js";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import { ROOT } from "../support/toolchain.js";
import { KubeApi } from "../../src/kubernetes/api.js";
import { parseKubeconfig } from "../../src/kubernetes/kubeconfig.js";
import { userSecurity } from "../../src/kubernetes/unprivileged.js";
import { must } from "../support/kube.js";

const run = promisify(execFile);
const asked = process.env.AGENTRUN_KUBE_TESTS === "1";
const why = "the test cluster: set AGENTRUN_KUBE_TESTS=1 (npm run test:kube) to build and start it";
/**
 * The range the test-only seam marks reachable (scripts/kube-lib.sh's Pod range), and the host's
 * side of the Pods' bridge: the range's first address, the gateway host-local gives the bridge at
 * the first Pod's start (so a cluster just started has no such address yet).
 */
const POD_RANGE = "10.209.0.0/24";
const GATEWAY = "10.209.0.1";
const HINT = "kube-net test: only the test server is listed";
const ANSWER = "hello from the test server";

/** bash's /dev/tcp: one HTTP/1.1 GET of url, through 127.0.0.1:3128 when proxied, else to host:80 itself. */
function get(host: string, proxied: boolean): string[] {
  const target = proxied ? "/dev/tcp/127.0.0.1/3128" : `/dev/tcp/${host}/80`;
  const path = proxied ? `http://${host}/` : "/";
  return [
    "bash",
    "-c",
    `exec 3<>${target} || exit 7; printf 'GET ${path} HTTP/1.1\\r\\nHost: ${host}\\r\\nConnection: close\\r\\n\\r\\n' >&3; timeout 10 cat <&3`,
  ];
}

describe.skipIf(!asked)(asked ? "a Kubernetes computer's network, from inside" : `skipped: ${why}`, () => {
  let provider: KubernetesProvider;
  let image: string;
  let host: string;
  let server: Server;
  let admin: KubeApi;
  const made: ComputerRef[] = [];
  const open: Connection[] = [];

  const make = async (network: NetworkPolicy) => {
    const ref = await provider.create({ image, lifetimeMs: 600_000, network, cpus: 0.2, memoryMb: 128 });
    if (!ref.ok) throw new Error(`create with network ${JSON.stringify(network)}: ${ref.error.message}`);
    made.push(ref.value);
    const c = await provider.connect(ref.value);
    if (!c.ok) throw new Error(c.error.message);
    open.push(c.value);
    return { ref: ref.value, connection: c.value };
  };
  const sh = async (c: Connection, argv: string[]) => {
    const r = (await c.client.call("exec.run", { argv, timeoutMs: 20_000 })) as { exitCode: number | null; stdout: string; stderr: string };
    return { code: r.exitCode, out: Buffer.from(r.stdout, "base64").toString("utf8"), err: Buffer.from(r.stderr, "base64").toString("utf8") };
  };

  beforeAll(async () => {
    await run("bash", [`${ROOT}/scripts/kube-up.sh`], { cwd: ROOT, maxBuffer: 64 << 20 });
    const kube = JSON.parse(readFileSync(`${ROOT}/dist/kube.json`, "utf8")) as { kubeconfig: string; image: string };
    image = kube.image;
    host = GATEWAY;
    // On every address: the bridge has the gateway's only once a Pod started.
    server = createServer((_req, res) => res.end(ANSWER));
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(80, "0.0.0.0", resolve));
    admin = new KubeApi(parseKubeconfig(readFileSync(kube.kubeconfig, "utf8")));
    provider = create({
      kubeconfig: readFileSync(kube.kubeconfig, "utf8"),
      egress: { hint: HINT, testNetwork: { range: POD_RANGE }, testOnly: true },
    });
  }, 3_600_000);

  afterAll(async () => {
    for (const c of open) await c.close().catch(() => undefined);
    for (const ref of made) {
      const gone = await provider.release(ref, "delete");
      if (!gone.ok) throw new Error(`release of ${ref.name}: ${gone.error.message}`);
    }
    if (server) await new Promise((resolve) => server.close(resolve));
  }, 300_000);

  describe("an allowlist", () => {
    let c: Connection;
    let ref: ComputerRef;
    beforeAll(async () => {
      ({ ref, connection: c } = await make({ allow: [`${host}/32`] }));
    }, 300_000);

    it("reads back as its list, from the sidecar, with no drift", async () => {
      const read = await provider.read({ id: ref.id });
      expect(read.ok && read.value.drift).toEqual([]);
      expect(read.ok && read.value.ref.spec?.network).toEqual({ allow: [`${host}/32`] });
    }, 120_000);

    it("reaches the listed host through its proxy", async () => {
      const r = await sh(c, get(host, true));
      expect(r.out).toMatch(/^HTTP\/1\.[01] 200/);
      expect(r.out).toContain(ANSWER);
    }, 60_000);

    it("is refused another host, in the proxy's words", async () => {
      const r = await sh(c, get("blocked.example", true));
      expect(r.out).toMatch(/^HTTP\/1\.1 403/);
      expect(r.out).toContain(HINT);
    }, 60_000);

    it("sees no interface but lo, and cannot reach the listed host past its proxy", async () => {
      const devices = await sh(c, ["cat", "/proc/net/dev"]);
      const names = devices.out
        .split("\n")
        .slice(2)
        .map((l) => l.split(":")[0]!.trim())
        .filter(Boolean);
      expect(names).toEqual(["lo"]);
      const direct = await sh(c, get(host, false));
      expect(direct.out).not.toContain(ANSWER);
      expect(direct.code).not.toBe(0);
    }, 60_000);
  });

  describe("open", () => {
    let c: Connection;
    let ref: ComputerRef;
    beforeAll(async () => {
      ({ ref, connection: c } = await make("open"));
    }, 300_000);

    it("shares the Pod's network and reaches out", async () => {
      const read = await provider.read({ id: ref.id });
      expect(read.ok && read.value.drift).toEqual([]);
      expect(read.ok && read.value.ref.spec?.network).toBe("open");
      const r = await sh(c, get(host, false));
      expect(r.out).toMatch(/^HTTP\/1\.[01] 200/);
      expect(r.out).toContain(ANSWER);
    }, 300_000);

    it("runs nothing as root: the Pod read back holds every container to the user with nothing held", async () => {
      const pod = (await must(admin, `/api/v1/namespaces/default/pods/${ref.name}`)) as {
        spec: { initContainers?: Array<{ name: string; securityContext: unknown }>; containers: Array<{ name: string; securityContext: unknown }> };
      };
      const all = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
      expect(all.map((x) => x.name)).toEqual(["setup", "computer"]);
      for (const x of all) {
        expect(x.securityContext).toMatchObject(userSecurity(2510, 2510));
        expect((x.securityContext as { capabilities: { add?: unknown } }).capabilities.add).toBeUndefined();
      }
    }, 60_000);

    it("from inside: every process the user's, no capability in any set, no_new_privs; HOME and the socket's folder the user's 0700; the daemon read-only", async () => {
      const table = await sh(c, [
        "sh",
        "-c",
        'for s in /proc/[0-9]*/status; do grep -E "^(Name|Uid|Gid|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):" "$s" | tr "\\n" " "; echo; done',
      ]);
      const rows = table.out
        .trim()
        .split("\n")
        .filter((l) => l.includes("Uid:"));
      expect(rows.length).toBeGreaterThan(1);
      expect(rows.some((r) => /Name:\s+computerd/.test(r))).toBe(true);
      for (const r of rows) {
        expect(r).toMatch(/Uid:\s+2510\s+2510\s+2510\s+2510/);
        expect(r).toMatch(/Gid:\s+2510\s+2510\s+2510\s+2510/);
        for (const set of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]) expect(r).toMatch(new RegExp(`${set}:\\s+0{16}`));
        expect(r).toMatch(/NoNewPrivs:\s+1/);
      }
      const owned = await sh(c, ["stat", "-c", "%n %u:%g %a", "/work", "/run/agentrun"]);
      expect(owned.out.trim().split("\n")).toEqual(["/work 2510:2510 700", "/run/agentrun 2510:2510 700"]);
      const written = await sh(c, ["sh", "-c", "echo x >> /opt/agentrun/computerd || exit 9; echo wrote"]);
      expect(written.code).toBe(9);
      const mine = await sh(c, ["sh", "-c", "echo x > /work/mine && stat -c %u:%g /work/mine"]);
      expect(mine.out.trim()).toBe("2510:2510");
    }, 60_000);
  });
});
