// A shared egress proxy on Kubernetes with no cluster: the ConfigMap it is, read back with each
// hand edit named; a joined computer's Pod (its sidecar on --allow-file and the files beside it,
// the ConfigMap and Secret projected into the sidecar alone) and its read-back; what the sidecar's
// log says it holds, held to the ConfigMap's list, rules and hint ("not yet" within the bound,
// drift past it); the refusals before any call, an update that waits until each sidecar holds it,
// and release refused while a computer mounts it, against an API server slice in memory.
import { describe, expect, it } from "vitest";
import { listDigest } from "../../src/egress/list-digest.js";
import { DIGEST_ANNOTATION, PROXY_LABEL } from "../../src/kubernetes/constants.js";
import { create } from "../../src/kubernetes/create.js";
import { inspectPod } from "../../src/kubernetes/inspect.js";
import { EGRESS_CA_FILE } from "../../src/egress/proxy-command.js";
import {
  LIST_FILE,
  LIST_MOUNT,
  LIST_VOLUME,
  listVolume,
  SETTINGS_FILES,
  sidecarNetwork,
  type SidecarPlan,
  type SidecarWant,
} from "../../src/kubernetes/egress.js";
import { podManifest, type PodPlan } from "../../src/kubernetes/pod.js";
import { KubePods } from "../../src/kubernetes/pods.js";
import { type ConfigMap, heldOf, joinedNetwork, proxyManifest, sidecarHolds } from "../../src/kubernetes/proxy-configmap.js";
import { type ProxySecret, secretHeld, secretManifest } from "../../src/kubernetes/proxy-secret.js";
import { KubeEgressProxies } from "../../src/kubernetes/proxies.js";
import { sidecarOf, type Pod } from "../../src/kubernetes/readback.js";
import { tokenKubeconfig } from "../support/kubeconfig.js";

const kubeconfig = tokenKubeconfig;

const NAME = "proxy-0123456789ab";
const DEADLINE = "2026-12-02T12:00:00.000Z";
const IMAGE = "agentrun-egress:0123456789abcdef";
const made = (deadline = DEADLINE) =>
  structuredClone(
    proxyManifest({
      name: NAME,
      namespace: "agents",
      allow: ["*.pythonhosted.org", "pypi.org"],
      rules: [],
      user: "2510:2510",
      deadline,
      hint: "ask the platform team",
      labels: { "agentrun.run": "r:1", team: "a" },
    }),
  ) as unknown as ConfigMap;

describe("the proxy's ConfigMap", () => {
  it("holds the list one entry a line, the hint, user and deadline, the caller's labels and the list's digest", () => {
    const cm = made() as ConfigMap & { kind: string };
    expect(cm.kind).toBe("ConfigMap");
    expect(cm.data).toEqual({ allow: "*.pythonhosted.org\npypi.org\n", rules: "", hint: "ask the platform team", user: "2510:2510", deadline: DEADLINE });
    expect(cm.metadata.labels).toMatchObject({ [PROXY_LABEL]: "1", team: "a" });
    expect(cm.metadata.annotations?.[DIGEST_ANNOTATION]).toBe(listDigest(["*.pythonhosted.org", "pypi.org"]));
  });

  it("names its list as computerd egress does (the Go test's FNV-1a 64 vector)", () => {
    expect(listDigest(["*.pythonhosted.org", "pypi.org"])).toBe("ac80d4410aa2cf22");
  });

  it("reads back as made with no drift, its labels as given", () => {
    const held = heldOf(made(), undefined);
    expect(held.drift).toEqual([]);
    expect(held).toMatchObject({ entries: ["*.pythonhosted.org", "pypi.org"], user: "2510:2510", deadline: DEADLINE, hint: "ask the platform team" });
    expect(held.labels).toEqual({ "agentrun.run": "r:1", team: "a" });
  });

  const edits: Array<[string, (cm: ConfigMap) => void, RegExp]> = [
    ["a list changed by hand", (cm) => (cm.data!.allow = "pypi.org\nexample.com\n"), /list was changed by hand: it holds example\.com, pypi\.org/],
    [
      "a list check refuses",
      (cm) => (cm.data!.allow = "pypi.org\n10.0.0.0/8\n"),
      /list cannot be held \(.*10\.0\.0\.0\/8.*\), so every computer behind it forwards nothing/,
    ],
    ["a list removed", (cm) => delete cm.data!.allow, /has no allow key/],
    ["a user of root", (cm) => (cm.data!.user = "0:0"), /user "0:0" is not a computer's uid:gid/],
    ["a deadline not ISO", (cm) => (cm.data!.deadline = "tomorrow"), /deadline "tomorrow" is not the ISO time/],
    ["its label removed", (cm) => delete cm.metadata.labels![PROXY_LABEL], /label agentrun\.computer\/egress-proxy was removed/],
  ];
  it.each(edits)("names %s", (_what, edit, words) => {
    const cm = made();
    edit(cm);
    expect(heldOf(cm, undefined).drift.join("; ")).toMatch(words);
  });

  it("holds rules one a line in their argv form, read back as written; rules a sidecar would refuse are drift", () => {
    const cm = structuredClone(
      proxyManifest({
        name: NAME,
        namespace: "agents",
        allow: ["pypi.org"],
        rules: ["pypi.org GET /simple"],
        user: "2510:2510",
        deadline: DEADLINE,
        hint: "h",
        labels: {},
      }),
    ) as unknown as ConfigMap;
    expect(cm.data?.rules).toBe("pypi.org GET /simple\n");
    expect(heldOf(cm, undefined)).toMatchObject({ rules: ["pypi.org GET /simple"], drift: [] });
    cm.data!.rules = "other.example GET /\n";
    expect(heldOf(cm, undefined).drift.join("; ")).toMatch(/rules cannot be held \(rules\[0\]\.host: host "other\.example" is not a name/);
    cm.data!.rules = "pypi.org\n";
    expect(heldOf(cm, undefined).rulesRefused).toMatch(/line 1 is not/);
  });

  it("takes a list in another order, with spaces and blank lines, as the same list", () => {
    const cm = made();
    cm.data!.allow = "  pypi.org \n\n*.pythonhosted.org\n";
    expect(heldOf(cm, undefined).drift).toEqual([]);
  });
});

describe("what the sidecar's log says it holds", () => {
  const line = (rest: string) => `computerd egress: the list at ${LIST_FILE} ${rest}`;
  it("is its last list line: a digest, or why it holds none", () => {
    const log = [
      "computerd egress: ready on /opt/agentrun/egress/egress.sock until 2026-12-02T12:00:00Z (2 entries)",
      line("holds 2 entries (fnv64a ac80d4410aa2cf22)"),
      '{"host":"pypi.org","port":443,"class":"allowed"}',
      line("holds 1 entries (fnv64a 0123456789abcdef)"),
    ].join("\n");
    expect(sidecarHolds(log)).toEqual({ digest: "0123456789abcdef", count: 1 });
    expect(sidecarHolds(`${log}\n${line('cannot be held ("10.0.0.0/8" is over a private range), so the proxy forwards nothing until it can')}`)).toEqual({
      failed: '"10.0.0.0/8" is over a private range',
    });
  });

  it("carries the settings the sidecar last said it holds: rules and hint by digest, credentials by version", () => {
    const log = [
      "computerd egress: its settings hold 1 rules (fnv64a 00000000000000aa), the hint fnv64a 00000000000000bb and 0 credentials (version none)",
      line("holds 2 entries (fnv64a ac80d4410aa2cf22)"),
      "computerd egress: its settings hold 2 rules (fnv64a 00000000000000cc), the hint fnv64a 00000000000000dd and 1 credentials (version 0a1b2c3d4e5f6a7b)",
      line("holds 2 entries (fnv64a ac80d4410aa2cf22)"),
    ].join("\n");
    expect(sidecarHolds(log)).toEqual({
      digest: "ac80d4410aa2cf22",
      count: 2,
      settings: { rules: "00000000000000cc", hint: "00000000000000dd", credentials: 1, version: "0a1b2c3d4e5f6a7b" },
    });
  });

  it("is never a request's line, whatever host a client sent", () => {
    const forged = `{"host":"${line("holds 1 entries (fnv64a ffffffffffffffff)")}","port":80,"class":"off-list"}`;
    expect(sidecarHolds([line("holds 2 entries (fnv64a ac80d4410aa2cf22)"), forged].join("\n"))).toEqual({ digest: "ac80d4410aa2cf22", count: 2 });
    expect(sidecarHolds("computerd egress: ready on x")).toBeUndefined();
  });
});

describe("a joined computer's list", () => {
  const held = () => ({ ...heldOf(made(), undefined), changedAt: Date.parse("2026-12-02T10:00:00Z") });
  /** What a sidecar that holds made()'s rules and hint says of them. */
  const settings = { rules: listDigest([]), hint: listDigest(["ask the platform team"]), credentials: 0, version: "none" };
  const at = (s: number) => Date.parse("2026-12-02T10:00:00Z") + s * 1000;
  const BOUND = 120_000;

  it("is the ConfigMap's list when the sidecar holds it", () => {
    expect(joinedNetwork(held(), { digest: "ac80d4410aa2cf22", count: 2, settings }, at(500), BOUND)).toEqual({
      network: { allow: ["*.pythonhosted.org", "pypi.org"] },
    });
  });

  it("is not yet the ConfigMap's rules or hint while the sidecar says others, and drift past the bound", () => {
    const other = { digest: "ac80d4410aa2cf22", count: 2, settings: { ...settings, rules: "00000000000000aa" } };
    expect(joinedNetwork(held(), other, at(60), BOUND).note).toMatch(
      /rules fnv64a 00000000000000aa and hint fnv64a .*, not yet proxy-0123456789ab's list fnv64a ac80d4410aa2cf22, rules fnv64a/,
    );
    expect(joinedNetwork(held(), other, at(121), BOUND).drift).toMatch(/, 121 s after it changed/);
    expect(joinedNetwork(held(), { digest: "ac80d4410aa2cf22", count: 2 }, at(121), BOUND).drift).toMatch(/has not said which rules and hint/);
  });

  it("is not yet the new list within the bound: a note, no drift", () => {
    const r = joinedNetwork(held(), { digest: "0123456789abcdef", count: 1 }, at(60), BOUND);
    expect(r.drift).toBeUndefined();
    expect(r.network).toEqual({ allow: ["*.pythonhosted.org", "pypi.org"] });
    expect(r.note).toMatch(
      /holds the list fnv64a 0123456789abcdef and has not said which rules and hint, not yet proxy-0123456789ab's list fnv64a ac80d4410aa2cf22, rules fnv64a [0-9a-f]{16} and hint fnv64a [0-9a-f]{16} \(changed 60 s ago; the kubelet writes it within 120 s\)/,
    );
  });

  it("is drift past the bound, and when the sidecar holds nothing or has said nothing", () => {
    const late = joinedNetwork(held(), { digest: "0123456789abcdef", count: 1 }, at(121), BOUND);
    expect(late.drift).toMatch(
      /^the egress proxy holds the list fnv64a 0123456789abcdef and has not said which rules and hint, not proxy-0123456789ab's list fnv64a ac80d4410aa2cf22, rules fnv64a [0-9a-f]{16} and hint fnv64a [0-9a-f]{16}, 121 s after it changed/,
    );
    expect(late.network).toMatchObject({ other: expect.stringMatching(/^network allow, but its egress proxy holds/) });
    expect(joinedNetwork(held(), { failed: "x" }, at(200), BOUND).drift).toMatch(/holds nothing \(its list cannot be held: x\)/);
    expect(joinedNetwork(held(), undefined, at(200), BOUND).drift).toMatch(/has not said which list it holds/);
  });

  it("is drift at once when the ConfigMap holds a list check refuses", () => {
    const cm = made();
    cm.data!.allow = "10.0.0.0/8\n";
    const r = joinedNetwork(heldOf(cm, undefined), { digest: "ac80d4410aa2cf22", count: 2 }, Date.now(), BOUND);
    expect(r.drift).toMatch(/ConfigMap holds a list check refuses/);
  });
});

describe("a joined computer's Pod", () => {
  const sidecar: SidecarPlan = {
    image: IMAGE,
    pullPolicy: "Never",
    uid: 2510,
    gid: 2510,
    deadline: DEADLINE,
    allow: [],
    hostAddresses: ["203.0.113.7"],
    hint: "ask the platform team",
    proxy: NAME,
  };
  const plan: PodPlan = {
    name: "computer-0123456789ab",
    namespace: "agents",
    deadline: DEADLINE,
    lifetimeMs: 600_000,
    recorded: { image: "base@sha256:" + "a".repeat(64), user: "2510:2510", workdir: "/work", network: { allow: [] }, egress: NAME },
    labels: {},
    arch: "amd64",
    pullPolicy: "Never",
    waitSeconds: 150,
    sidecar,
  };
  const want: SidecarWant = { image: IMAGE, pullPolicy: "Never", uid: 2510, gid: 2510, deadline: DEADLINE, hostAddresses: ["203.0.113.7"], proxy: NAME };
  const pod = () => {
    const p = structuredClone(podManifest(plan)) as unknown as Pod;
    p.status = { phase: "Running", containerStatuses: p.spec!.containers!.map((c) => ({ name: c.name, state: { running: {} } })) };
    return p;
  };
  type C = { name: string; args: string[]; volumeMounts: unknown[] };

  it("runs its own sidecar on --allow-file and the files beside it, the ConfigMap and Secret projected read-only into the sidecar alone", () => {
    const p = pod();
    const [computer, proxy] = p.spec!.containers! as unknown as [C & { env?: unknown[] }, C & { env?: unknown[] }];
    const flag = (f: string) => proxy.args[proxy.args.indexOf(f) + 1];
    expect([flag("--allow-file"), flag("--rules-file"), flag("--hint-file"), flag("--credentials-file"), flag("--ca-file")]).toEqual([
      LIST_FILE,
      SETTINGS_FILES.rules,
      SETTINGS_FILES.hint,
      SETTINGS_FILES.credentials,
      EGRESS_CA_FILE,
    ]);
    expect(proxy.args).not.toContain("--allow");
    expect(proxy.args).not.toContain("--rule");
    expect(proxy.args).not.toContain("--hint");
    expect(proxy.args).toContain("--host-address");
    expect(proxy.env).toBeUndefined();
    expect(proxy.volumeMounts).toContainEqual({ name: LIST_VOLUME, mountPath: LIST_MOUNT, readOnly: true });
    expect(JSON.stringify(computer)).not.toMatch(new RegExp(`${LIST_VOLUME}|credentials|AGENTRUN_EGRESS`));
    expect(p.spec!.volumes).toContainEqual({
      name: LIST_VOLUME,
      projected: {
        sources: [
          { configMap: { name: NAME, items: ["allow", "rules", "hint"].map((key) => ({ key, path: key })) } },
          { secret: { name: `${NAME}-credentials`, items: [{ key: "credentials", path: "credentials" }], optional: true } },
        ],
      },
    });
  });

  it("reads back as the proxy's list (which inspect reads from the ConfigMap)", () => {
    expect(sidecarNetwork(sidecarOf(pod()), want)).toEqual({ allow: [] });
  });

  it("takes a test upstream's root only as the provider's seam gives it, beside the CA", () => {
    const root = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    const RANGE = "10.209.0.0/24";
    const p = structuredClone(podManifest({ ...plan, sidecar: { ...sidecar, testRange: RANGE, testRoot: root } })) as unknown as Pod;
    p.status = { phase: "Running", containerStatuses: p.spec!.containers!.map((c) => ({ name: c.name, state: { running: {} } })) };
    expect((p.spec!.containers![1] as unknown as C).args).toContain("--upstream-root-for-tests");
    expect(sidecarNetwork(sidecarOf(p), { ...want, testRange: RANGE, testRoot: root })).toEqual({ allow: [] });
    expect(JSON.stringify(sidecarNetwork(sidecarOf(p), { ...want, testRange: RANGE }))).toMatch(/trusts an upstream root of its own/);
  });

  it("names a joined sidecar with no CA, rules or a hint in its argv, a variable, or names resolved it was not given", () => {
    const noCA = pod();
    const a = (noCA.spec!.containers![1] as unknown as C).args;
    a.splice(a.indexOf("--ca-file"), 2);
    expect(JSON.stringify(sidecarNetwork(sidecarOf(noCA), want))).toMatch(/may hold rules or credentials but opens no TLS/);
    const ruled = pod();
    (ruled.spec!.containers![1] as unknown as C).args.push("--rule", "pypi.org GET /simple");
    expect(JSON.stringify(sidecarNetwork(sidecarOf(ruled), want))).toMatch(/runs with --rule, which the provider never gives/);
    const hinted = pod();
    (hinted.spec!.containers![1] as unknown as C).args.push("--hint", "mine");
    expect(JSON.stringify(sidecarNetwork(sidecarOf(hinted), want))).toMatch(
      /does not read its list, rules, hint and credentials from \/opt\/agentrun\/egress-list alone/,
    );
    const keyed = pod();
    (keyed.spec!.containers![1] as unknown as { env: unknown[] }).env = [{ name: "AGENTRUN_EGRESS_CREDENTIALS", value: "[]" }];
    expect(JSON.stringify(sidecarNetwork(sidecarOf(keyed), want))).toMatch(/has variables the provider never gives/);
    const named = pod();
    (named.spec!.containers![1] as unknown as C).args.push("--resolve-for-tests", "pypi.org=10.0.0.1");
    expect(JSON.stringify(sidecarNetwork(sidecarOf(named), want))).toMatch(/resolves names of its own/);
  });

  /** The sidecar's log when it holds made()'s list, rules and hint. */
  const holding = (rules = "") =>
    [
      `computerd egress: its settings hold 0 rules (fnv64a ${listDigest(rules ? [rules] : [])}), the hint fnv64a ${listDigest(["ask the platform team"])} and 0 credentials (version none)`,
      `computerd egress: the list at ${LIST_FILE} holds 2 entries (fnv64a ac80d4410aa2cf22)`,
    ].join("\n");

  it("reads rules changed by hand in the ConfigMap, which the sidecar does not say it holds, as drift", async () => {
    const cm = made();
    cm.data!.rules = "pypi.org GET /simple\n";
    const read = await inspected(cm, holding());
    expect(read.ok && read.value.drift.join("; ")).toMatch(/not proxy-0123456789ab's list fnv64a ac80d4410aa2cf22, rules fnv64a /);
    const taken = await inspected(cm, holding("pypi.org GET /simple"));
    expect(taken.ok && taken.value.drift.join("; ")).not.toMatch(/egress proxy/);
  });

  /** inspect's read of a joined Pod whose computer does not run yet (no connection, no probe), against a proxies slice. */
  const inspected = (configMap: ConfigMap | undefined, log: string) => {
    const p = pod();
    // The sidecar runs, the computer's container not yet: read without a connection.
    p.status = {
      phase: "Pending",
      containerStatuses: [
        { name: "computer", state: { waiting: {} } },
        { name: "egress", state: { running: {} } },
      ],
    };
    const sb = {
      o: {
        runtimeClass: undefined,
        pullPolicy: "Never",
        egress: { image: IMAGE, hostAddresses: ["203.0.113.7"], hint: "h", testRange: undefined },
        t: { listSyncMs: 120_000 },
      },
      egressImage: async () => ({ ok: true, value: IMAGE }),
      nodeAddresses: async () => ({ ok: true, value: { addresses: ["203.0.113.7"] } }),
      // The Pod client's own want, over the stand-in's image and addresses.
      sidecarWant: KubePods.prototype.sidecarWant,
    } as unknown as KubePods;
    const proxies = {
      configMap: async () => ({ ok: true, value: configMap }),
      sidecarHolds: async () => ({ ok: true, value: sidecarHolds(log) }),
      credentials: async () => ({ ok: true, value: undefined }),
    } as unknown as KubeEgressProxies;
    return inspectPod(sb, p, { proxies });
  };

  it("reads the ConfigMap's list through inspect when the sidecar's log holds it, naming the proxy joined", async () => {
    const read = await inspected(made(), holding());
    expect(read.ok && read.value.ref.spec).toMatchObject({ network: { allow: ["*.pythonhosted.org", "pypi.org"] }, egress: NAME });
    expect(read.ok && read.value.drift.join("; ")).not.toMatch(/egress proxy/);
  });

  it("reads a ConfigMap deleted by hand as drift through inspect", async () => {
    const read = await inspected(undefined, "");
    expect(read.ok && read.value.drift.join("; ")).toMatch(/the egress proxy proxy-0123456789ab is gone \(no ConfigMap proxy-0123456789ab\)/);
    expect(read.ok && read.value.ref.spec?.network).toMatchObject({ other: expect.any(String) });
  });

  const edits: Array<[string, (p: Pod) => void, RegExp]> = [
    [
      "a list volume naming another ConfigMap",
      (p) => (p.spec!.volumes!.find((v) => v.name === LIST_VOLUME)!.projected!.sources![0]!.configMap!.name = "proxy-ffffffffffff"),
      /does not read its list, rules and hint from the ConfigMap proxy-0123456789ab and its credentials from the Secret proxy-0123456789ab-credentials alone/,
    ],
    [
      "an argv with its own list",
      (p) => {
        const args = (p.spec!.containers![1] as unknown as C).args;
        args.splice(args.indexOf("--allow-file"), 2, "--allow", "example.com");
      },
      /does not read its list, rules, hint and credentials from \/opt\/agentrun\/egress-list alone/,
    ],
    [
      "the list mounted writable",
      (p) => ((p.spec!.containers![1] as unknown as C).volumeMounts[1] = { name: LIST_VOLUME, mountPath: LIST_MOUNT }),
      /its list read-only/,
    ],
  ];
  it.each(edits)("names %s", (_what, edit, words) => {
    const p = pod();
    edit(p);
    expect(JSON.stringify(sidecarNetwork(sidecarOf(p), want))).toMatch(words);
  });
});

describe("check, make, update and release", () => {
  const provider = () => create({ kubeconfig, imagePullPolicy: "Never" });
  it("takes a spec that joins a proxy with { allow: [] }, and refuses one with none or a bad name", () => {
    const p = provider();
    expect(p.check({ image: "i", lifetimeMs: 60_000, network: { allow: [] }, egress: NAME }).ok).toBe(true);
    const none = p.check({ image: "i", lifetimeMs: 60_000, network: "none", egress: "proxy-x" });
    expect(!none.ok && none.error.refusals?.map((r) => r.field)).toEqual(["egress", "egress"]);
    expect(p.check({ image: "i", lifetimeMs: 60_000, network: { allow: [] } }).ok).toBe(false);
  });

  /** A KubePods slice whose API server is a map of paths; calls recorded. */
  function memory(pods: Pod[] = [], refused?: string) {
    const calls: string[] = [];
    const bodies: unknown[] = [];
    const store = new Map<string, unknown>([[`/api/v1/namespaces/agents/configmaps/${NAME}`, made(new Date(Date.now() + 3_600_000).toISOString())]]);
    const sb = {
      o: {
        namespace: "agents",
        user: "2510:2510",
        maxLifetimeMs: 7 * 86_400_000,
        egress: { hostAddresses: [], hint: "h", testRange: undefined },
        t: { callMs: 1000, pollMs: 10, listSyncMs: 1500 },
      },
      path: (n?: string) => `/api/v1/namespaces/agents/pods${n ? `/${n}` : ""}`,
      list: async () => ({ ok: true, value: pods }),
      preflight: { check: async () => ({ ok: true, value: undefined }) },
      api: {
        call: async (path: string, _what: string, o: { method?: string; body?: unknown }) => {
          calls.push(`${o.method ?? "GET"} ${path}`);
          bodies.push(o.body);
          const key = path.split("?")[0]!;
          if (`${o.method ?? "GET"} ${key}` === refused) return { ok: false, error: { code: "forbidden", message: "secrets is forbidden" } };
          const gone = { ok: false, error: { code: "not_found", message: "gone" } };
          if ((o.method ?? "GET") === "GET") return store.has(key) ? { ok: true, value: store.get(key) } : gone;
          if (o.method === "DELETE") store.delete(key);
          if (o.method === "PATCH" && !store.has(key)) return gone;
          // A Secret made or changed is kept, so a read finds what was written.
          const secret = o.body as { metadata?: { name?: string }; data?: Record<string, string> } | undefined;
          if (o.method === "POST" && key.endsWith("/secrets")) store.set(`${key}/${secret?.metadata?.name}`, secret);
          if (o.method === "PATCH" && key.includes("/secrets/")) store.set(key, { ...(store.get(key) as object), data: secret?.data });
          return { ok: true, value: o.method === "POST" ? { metadata: { uid: "uid-1" } } : {} };
        },
      },
    } as unknown as KubePods;
    return { proxies: new KubeEgressProxies(sb), calls, bodies, store };
  }

  it("refuses a bad spec, every field named, before any call", async () => {
    const { proxies, calls } = memory();
    const r = await proxies.make({ allow: ["10.0.0.0/8"], lifetimeMs: -1, user: "0", hint: "\u0000", name: "x" } as never);
    expect(!r.ok && r.error.refusals?.map((x) => x.field).sort()).toEqual(["allow", "hint", "lifetimeMs", "name", "user"]);
    // The hint is named as the spec names it, not as the provider's option (egress.hint).
    expect(!r.ok && r.error.refusals?.find((x) => x.field === "hint")?.message).toMatch(/^hint is printable ASCII alone/);
    expect(calls).toEqual([]);
  });

  it("refuses a rule for a host off the list and a credential header the proxy sets, each field named and no key in the words, before any call", async () => {
    const { proxies, calls } = memory();
    const r = await proxies.make({
      allow: ["pypi.org"],
      lifetimeMs: 60_000,
      rules: [{ host: "other.example", methods: ["FETCH"] }],
      credentials: [{ host: "pypi.org", header: "Host", value: "k-never-shown" }],
    });
    expect(!r.ok && r.error.refusals?.map((x) => x.field).sort()).toEqual(["credentials[0].header", "rules[0].host", "rules[0].methods[0]"]);
    expect(!r.ok && r.error.message).not.toContain("k-never-shown");
    expect(calls).toEqual([]);
  });

  it("makes credentials a Secret beside the ConfigMap, the key in neither the ConfigMap nor the ref; a Secret refused deletes the ConfigMap", async () => {
    const { proxies, calls, bodies } = memory();
    const credentials = [{ host: "pypi.org", header: "X-Key", value: "k-secret-1" }];
    const m = await proxies.make({ allow: ["pypi.org"], lifetimeMs: 60_000, credentials });
    expect(m.ok && JSON.stringify(m.value)).not.toContain("k-secret-1");
    const posts = calls.flatMap((c, i) => (c.startsWith("POST") ? [{ path: c.split("?")[0], body: bodies[i] as ProxySecret }] : []));
    expect(posts.map((p) => p.path)).toEqual(["POST /api/v1/namespaces/agents/configmaps", "POST /api/v1/namespaces/agents/secrets"]);
    expect(JSON.stringify(posts[0]!.body)).not.toContain("k-secret-1");
    expect(secretHeld(posts[1]!.body)).toEqual({ credentials, version: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(posts[1]!.body.metadata?.name).toBe(`${m.ok && m.value.name}-credentials`);
    // The API server refuses the Secret (credentials that may not write Secrets): the ConfigMap made is deleted.
    const failing = memory([], "POST /api/v1/namespaces/agents/secrets");
    const f = await failing.proxies.make({ allow: ["pypi.org"], lifetimeMs: 60_000, credentials });
    expect(!f.ok && f.error).toMatchObject({ code: "forbidden", field: "credentials", message: expect.stringMatching(/was deleted, so nothing was made/) });
    expect(failing.calls.filter((c) => c.startsWith("DELETE /api/v1/namespaces/agents/configmaps/"))).toHaveLength(1);
  });

  it("reads rules and credentials removed by hand as none, so the resource sees them gone", async () => {
    const { proxies } = memory();
    const read = await proxies.read(NAME);
    expect(read.ok && read.value).toMatchObject({ ref: { rules: [] }, credentials: [] });
  });

  /** A computer running behind the proxy, whose sidecar's log is the store's. */
  const joined = { metadata: { name: "computer-0123456789ab" }, spec: { volumes: [listVolume(NAME)] }, status: { phase: "Running" } } as Pod;
  const LOG = "/api/v1/namespaces/agents/pods/computer-0123456789ab/log";
  const said = (rules: string[], hint: string, version = "none", allow = ["pypi.org"]) =>
    [
      `computerd egress: its settings hold ${rules.length} rules (fnv64a ${listDigest(rules)}), the hint fnv64a ${listDigest([hint])} and 0 credentials (version ${version})`,
      `computerd egress: the list at ${LIST_FILE} holds ${allow.length} entries (fnv64a ${listDigest(allow)})`,
    ].join("\n");

  it("changes rules under a running computer: patches the ConfigMap, tells its Pod, and waits until its sidecar says it holds them", async () => {
    const busy = memory([joined]);
    const rules = [{ host: "pypi.org", methods: ["GET"], paths: ["/simple"] }];
    busy.store.set(LOG, said([], "ask the platform team"));
    // The sidecar takes the new rules a moment after the update starts.
    const later = setTimeout(() => busy.store.set(LOG, said(["pypi.org GET /simple"], "ask the platform team")), 200);
    const u = await busy.proxies.update(NAME, { allow: ["pypi.org"], rules });
    clearTimeout(later);
    expect(u.ok && u.value.rules).toEqual(["pypi.org GET /simple"]);
    const patch = busy.bodies[busy.calls.findIndex((c) => c.startsWith("PATCH"))] as { data: Record<string, unknown> };
    expect(patch.data.rules).toBe("pypi.org GET /simple\n");
    expect(busy.calls.filter((c) => c.startsWith("PATCH /api/v1/namespaces/agents/pods/computer-0123456789ab"))).toHaveLength(1);
    expect(busy.calls.filter((c) => c.startsWith(`GET ${LOG}`)).length).toBeGreaterThan(1);
  });

  it("names the computer whose sidecar does not say it holds the new hint within the bound, the proxy changed all the same", async () => {
    const busy = memory([joined]);
    busy.store.set(LOG, said([], "ask the platform team"));
    const u = await busy.proxies.update(NAME, { allow: ["pypi.org"], hint: "other words" });
    expect(!u.ok && u.error).toMatchObject({
      code: "timeout",
      message: expect.stringMatching(
        /^the egress proxy proxy-0123456789ab was changed, but the change to reach every computer behind it did not come .* computer-0123456789ab not yet/,
      ),
    });
    const patch = busy.bodies[busy.calls.findIndex((c) => c.startsWith("PATCH"))] as { data: Record<string, unknown> };
    expect(patch.data.hint).toBe("other words");
  });

  it("rotates a credential in place under a fresh version and waits for it; the key in no call but the Secret's", async () => {
    const busy = memory([joined]);
    const first = [{ host: "pypi.org", header: "X-Key", value: "k-old-1" }];
    const secrets = `/api/v1/namespaces/agents/secrets`;
    busy.store.set(`${secrets}/${NAME}-credentials`, secretManifest(NAME, "agents", first, {}, "0000000000000001"));
    const keyed = () => secretHeld(busy.store.get(`${secrets}/${NAME}-credentials`) as ProxySecret);
    // The sidecar says the version the Secret holds once it is written.
    const sync = setInterval(() => busy.store.set(LOG, said([], "ask the platform team", keyed().version)), 20);
    const u = await busy.proxies.update(NAME, { allow: ["pypi.org"], credentials: [{ host: "pypi.org", header: "X-Key", value: "k-new-2" }] });
    clearInterval(sync);
    expect(u.ok).toBe(true);
    expect(keyed().credentials).toEqual([{ host: "pypi.org", header: "X-Key", value: "k-new-2" }]);
    expect(keyed().version).not.toBe("0000000000000001");
    // Changed in place: never deleted, so a sidecar never reads a moment with none.
    expect(busy.calls.filter((c) => c.startsWith("DELETE"))).toEqual([]);
    expect(JSON.stringify(u)).not.toMatch(/k-new-2|k-old-1/);
    // Every credential removed: the Secret deleted, and the sidecar's "version none" is the wait's end.
    busy.store.set(LOG, said([], "ask the platform team", "none"));
    const removed = await busy.proxies.update(NAME, { allow: ["pypi.org"], credentials: [] });
    expect(removed.ok).toBe(true);
    expect(busy.store.has(`${secrets}/${NAME}-credentials`)).toBe(false);
  });

  it("refuses release while a computer mounts it, naming the computer, and removes nothing", async () => {
    const { proxies, calls } = memory([joined]);
    const r = await proxies.release(NAME);
    expect(!r.ok && r.error.message).toMatch(/still serves computer-0123456789ab: release them first; nothing was removed/);
    expect(calls.filter((c) => c.startsWith("DELETE"))).toEqual([]);
    const free = memory();
    expect((await free.proxies.release(NAME)).ok).toBe(true);
    expect(free.store.size).toBe(0);
  });

  it("patches the ConfigMap for a new list and tells each joined Pod, without waiting", async () => {
    const { proxies, calls, bodies } = memory([joined]);
    const list = await proxies.update(NAME, { allow: ["pypi.org", "example.com"] });
    expect(list.ok && list.value.allow).toEqual(["example.com", "pypi.org"]);
    expect(calls.filter((c) => c.startsWith("PATCH")).map((c) => c.split("?")[0])).toEqual([
      `PATCH /api/v1/namespaces/agents/configmaps/${NAME}`,
      "PATCH /api/v1/namespaces/agents/pods/computer-0123456789ab",
    ]);
    // The same list again tells the Pod again, in a new value: an unchanged annotation would not make the kubelet sync it.
    await new Promise((r) => setTimeout(r, 5));
    expect((await proxies.update(NAME, { allow: ["pypi.org", "example.com"] })).ok).toBe(true);
    const told = calls.flatMap((c, i) => (c.startsWith("PATCH /api/v1/namespaces/agents/pods/") ? [JSON.stringify(bodies[i])] : []));
    expect(told).toHaveLength(2);
    expect(told[0]).toContain(listDigest(["example.com", "pypi.org"]));
    expect(told[0]).not.toBe(told[1]);
  });
});
