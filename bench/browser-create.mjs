// Create-to-CDP-ready of a browser on each vendor's fake (Browserbase, Kernel) and on Docker: the
// provider's create, connect and one CDP Browser.getVersion through the URL it gives, beside the
// fake's own bare create (one POST with fetch) plus one Browser.getVersion through the URL it
// answers (Docker: a bare `docker run` of the same image plus one Browser.getVersion on its
// published port), in the same run, interleaved. Every browser is released; the fakes remove their containers on close;
// when stopped half-way (SIGINT, SIGTERM) too, a create then in flight awaited first.
//
//   node bench/browser-create.mjs [rounds]     (default 7; needs dist/ from npm run build)
import { resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const load = (p) => import(resolve(root, p));
const { FakeBrowserbase } = await load("dist/test/support/fake-browserbase.js");
const { FakeKernel } = await load("dist/test/support/fake-kernel.js");
const { openCdp } = await load("dist/src/conformance/cdp.js");
const bb = await load("dist/src/browserbase/create.js");
const kernel = await load("dist/src/kernel/create.js");
const { releaseOnStop } = await load("bench/stop.mjs");
const { dockerBrowsers } = await load("bench/docker-browser.mjs");
const rounds = Number(process.argv[2] ?? 7);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const version = async (url) => {
  const cdp = await openCdp(url);
  try {
    await cdp.send("Browser.getVersion");
  } finally {
    cdp.close();
  }
};
const spec = { image: "chromium", lifetimeMs: 300_000, network: "open", labels: { "agentrun.bench": "browser-create" } };

const vendors = [
  {
    name: "Browserbase",
    start: () => FakeBrowserbase.start({ apiKey: "bb_bench_key", projectId: "bench", prefix: `agentrun-bench-bb-${process.pid}` }),
    provider: (fake) => bb.create({ apiKey: "bb_bench_key", projectId: "bench", apiUrl: fake.apiUrl }),
    bare: async (fake) => {
      const r = await fetch(`${fake.apiUrl}/v1/sessions`, {
        method: "POST",
        headers: { "X-BB-API-Key": "bb_bench_key", "content-type": "application/json" },
        body: JSON.stringify({ projectId: "bench", keepAlive: true, timeout: 300 }),
      });
      const s = await r.json();
      return {
        url: s.connectUrl,
        end: () =>
          fetch(`${fake.apiUrl}/v1/sessions/${s.id}`, {
            method: "POST",
            headers: { "X-BB-API-Key": "bb_bench_key" },
            body: JSON.stringify({ status: "REQUEST_RELEASE" }),
          }),
      };
    },
  },
  {
    name: "Kernel",
    start: () => FakeKernel.start({ apiKey: "kernel_bench_key", prefix: `agentrun-bench-k-${process.pid}` }),
    provider: (fake) => kernel.create({ apiKey: "kernel_bench_key", apiUrl: fake.apiUrl }),
    bare: async (fake) => {
      const r = await fetch(`${fake.apiUrl}/browsers`, {
        method: "POST",
        headers: { Authorization: "Bearer kernel_bench_key", "content-type": "application/json" },
        body: JSON.stringify({ timeout_seconds: 300 }),
      });
      const b = await r.json();
      return {
        url: b.cdp_ws_url,
        end: () => fetch(`${fake.apiUrl}/browsers/${b.session_id}`, { method: "DELETE", headers: { Authorization: "Bearer kernel_bench_key" } }),
      };
    },
  },
  {
    name: "Docker",
    start: dockerBrowsers,
    provider: (docker) => docker.provider(),
    bare: (docker) => docker.bare(),
    goal: 1.1,
  },
];

for (const v of vendors) {
  const fake = await v.start();
  const provider = v.provider(fake);
  const cleanup = releaseOnStop(provider, () => fake.close());
  try {
    const ours = [];
    const anchor = [];
    for (let i = 0; i < rounds; i += 1) {
      let t = performance.now();
      const made = await v.bare(fake);
      await version(made.url);
      anchor.push(performance.now() - t);
      await made.end();

      t = performance.now();
      const ref = await provider.create(spec);
      if (!ref.ok) throw new Error(ref.error.message);
      const conn = await provider.connect(ref.value);
      if (!conn.ok) throw new Error(conn.error.message);
      await version(conn.value.cdp.url);
      ours.push(performance.now() - t);
      await conn.value.close();
      await provider.release(ref.value, "delete");
    }
    const a = median(anchor);
    const o = median(ours);
    console.log(
      `${v.name}${v.goal ? "" : " fake"}, create-to-CDP-ready over ${rounds} rounds: provider ${o.toFixed(0)} ms median; anchor (bare create + Browser.getVersion) ${a.toFixed(0)} ms; ratio ${(o / a).toFixed(2)} (goal <= ${v.goal ?? 1.2})`,
    );
  } finally {
    await cleanup();
  }
}
