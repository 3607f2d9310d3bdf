// A browser on the test cluster (npm run kube:up, then bash scripts/kube-browser-image.sh), in one
// run, interleaved: create to the first CDP answer, KubernetesProvider.create with its browser
// option (the Pod, the daemon's upload, Chromium started through it and its CDP waited for, the
// read-back) then connect and one Browser.getVersion through the URL the connection serves, beside
// its anchor, a bare Pod of the same image running the same Chromium as its command, made with
// `kubectl apply` + `kubectl wait --for=condition=Ready`, then `kubectl port-forward` to its CDP
// port and one Browser.getVersion there once it answers (kubectl the one built with the cluster).
// The computer's network is none or open (the third argument). Everything is made in a namespace
// of its own (agentrun-bench-kube-browser, made when missing and then deleted); every Pod is
// deleted, pass or fail, and when stopped half-way (SIGINT, SIGTERM) too. The load is printed.
// Run after `npm run build`: node bench/kube-browser.mjs [rounds] [none|open]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { create } from "../dist/src/kubernetes/index.js";
import { openCdp } from "../dist/src/conformance/cdp.js";
import { browserFlags } from "../dist/src/kits/browser/computer.js";
import { benchNamespace, kube, kubeconfigText, kubectl, uptime } from "./kube-namespace.mjs";

const rounds = Number(process.argv[2] ?? 5);
const network = process.argv[3] ?? "none";
if (network !== "none" && network !== "open") throw new Error(`the network is none or open, not ${network}`);
const NAMESPACE = "agentrun-bench-kube-browser";
const image = JSON.parse(readFileSync(new URL("../dist/kube-browser.json", import.meta.url), "utf8")).image;
const provider = create({ kubeconfig: kubeconfigText(), namespace: NAMESPACE, browser: { image } });
const { mine, cleanup } = benchNamespace(NAMESPACE, provider);
console.log(`network ${network}; load before: ${uptime()}`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spec = { image: "chromium", lifetimeMs: 600_000, network };
const version = async (url) => {
  const cdp = await openCdp(url);
  try {
    return await cdp.send("Browser.getVersion");
  } finally {
    cdp.close();
  }
};

/** The bare Pod: the same image, Chromium its command with the same flags (its profile in /tmp, the image's user 1000). */
const barePod = (name) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: NAMESPACE, labels: { "agentrun.bench": "kube-browser" } },
  spec: {
    restartPolicy: "Never",
    automountServiceAccountToken: false,
    terminationGracePeriodSeconds: 1,
    containers: [{ name: "chromium", image, command: ["chromium", ...browserFlags(network, "/tmp/.chromium"), "about:blank"] }],
  },
});

/** kubectl port-forward to the Pod's CDP port; its local port once it says it forwards, and its end. */
function forward(name) {
  const child = spawn(kube.kubectl, ["--kubeconfig", kube.kubeconfig, "port-forward", "-n", NAMESPACE, `pod/${name}`, ":9222"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const end = () => child.kill();
  return new Promise((resolve) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve({ port: Number(m[1]), end });
    });
    child.on("exit", () => resolve({ port: undefined, end }));
  });
}

/**
 * Browser.getVersion through a port-forward, asked until Chromium answers: kubectl's port-forward
 * ends at a connection to a port nothing listens on yet, so each try before Chromium listens is a
 * new port-forward, as a user with kubectl would start it again.
 */
async function firstAnswer(name) {
  for (;;) {
    const fwd = await forward(name);
    try {
      if (fwd.port !== undefined) {
        // Each try bounded: one through a port-forward that ends under it may otherwise never settle.
        let timer;
        const bound = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("no answer within 5 s")), 5_000)));
        const asked = (async () => {
          const r = await fetch(`http://127.0.0.1:${fwd.port}/json/version`, { signal: AbortSignal.timeout(5_000) });
          const url = (await r.json()).webSocketDebuggerUrl.replace(/^ws:\/\/[^/]+/, `ws://127.0.0.1:${fwd.port}`);
          return await version(url);
        })();
        try {
          return await Promise.race([asked, bound]);
        } finally {
          clearTimeout(timer);
        }
      }
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      fwd.end();
    }
  }
}

// One create first: the cluster's checks and the daemon's bytes are once per provider and process.
const warm = await provider.create(spec);
if (!warm.ok) throw new Error(warm.error.message);
await provider.release(warm.value, "delete");

const ours = [];
const bare = [];
try {
  for (let i = 0; i < rounds; i += 1) {
    let t0 = performance.now();
    const ref = await provider.create(spec);
    if (!ref.ok) throw new Error(ref.error.message);
    const conn = await provider.connect(ref.value);
    if (!conn.ok) throw new Error(conn.error.message);
    await version(conn.value.cdp.url);
    ours.push(performance.now() - t0);
    await conn.value.close();
    await provider.release(ref.value, "delete");

    const name = `bench-kube-browser-${process.pid}-${i}`;
    mine.push(name);
    t0 = performance.now();
    kubectl(JSON.stringify(barePod(name)), "apply", "-n", NAMESPACE, "-f", "-");
    kubectl(undefined, "wait", "-n", NAMESPACE, "--for=condition=Ready", `pod/${name}`, "--timeout=120s");
    await firstAnswer(name);
    bare.push(performance.now() - t0);
    kubectl(undefined, "delete", "pod", "-n", NAMESPACE, name, "--wait=true");
    mine.pop();
  }
  const o = median(ours);
  const a = median(bare);
  console.log(
    `create to the first CDP answer over ${rounds} rounds: provider ${(o / 1000).toFixed(2)} s median (${ours.map((x) => (x / 1000).toFixed(2)).join(", ")}); ` +
      `anchor (kubectl apply + wait Ready + port-forward, again until Chromium listens, + Browser.getVersion) ${(a / 1000).toFixed(2)} s (${bare.map((x) => (x / 1000).toFixed(2)).join(", ")}); ratio ${(o / a).toFixed(2)}`,
  );
  console.log(`load after: ${uptime()}`);
} finally {
  await cleanup();
}
