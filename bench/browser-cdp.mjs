// A CDP round trip (Runtime.evaluate of 1+1 on a page) through the URL the provider's connect
// gives (the fake's signed URL, piped raw to the container; on Docker the daemon's connection),
// beside the same call on the container's published port directly (on Docker, whose browser
// publishes no port, a bare `docker run` of the same image with its port published), on each
// vendor's fake and on Docker, in the same run, in alternating blocks; and the live view's first frame, watch() to the first frame handed over, beside
// Page.startScreencast on the same page over the container's port (connect, attach, start, first
// frame), alternating. The browser is released; the fakes remove their containers on close; when
// stopped half-way (SIGINT, SIGTERM) too, a create then in flight awaited first.
//
//   node bench/browser-cdp.mjs [calls] [watches]   (default 1000 and 20; needs dist/ from npm run build)
import { resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const load = (p) => import(resolve(root, p));
const { FakeBrowserbase } = await load("dist/test/support/fake-browserbase.js");
const { FakeKernel } = await load("dist/test/support/fake-kernel.js");
const { openCdp, openPage } = await load("dist/src/conformance/cdp.js");
const bb = await load("dist/src/browserbase/create.js");
const kernel = await load("dist/src/kernel/create.js");
const { releaseOnStop } = await load("bench/stop.mjs");
const { dockerBrowsers } = await load("bench/docker-browser.mjs");
const calls = Number(process.argv[2] ?? 1000);
const watches = Number(process.argv[3] ?? 20);
const BLOCK = 50;

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const spec = { image: "chromium", lifetimeMs: 300_000, network: "open", labels: { "agentrun.bench": "browser-cdp" } };

/** A fake's browser on its container's published port. */
function fakeDirect(fake, ref) {
  const browser = fake.browserOf(ref.id);
  return `ws://127.0.0.1:${browser.port}${browser.browserPath}`;
}

const vendors = [
  {
    name: "Browserbase",
    start: () => FakeBrowserbase.start({ apiKey: "bb_bench_key", projectId: "bench", prefix: `agentrun-bench-bb-${process.pid}` }),
    provider: (fake) => bb.create({ apiKey: "bb_bench_key", projectId: "bench", apiUrl: fake.apiUrl }),
    direct: fakeDirect,
  },
  {
    name: "Kernel",
    start: () => FakeKernel.start({ apiKey: "kernel_bench_key", prefix: `agentrun-bench-k-${process.pid}` }),
    provider: (fake) => kernel.create({ apiKey: "kernel_bench_key", apiUrl: fake.apiUrl }),
    direct: fakeDirect,
  },
  {
    name: "Docker",
    start: dockerBrowsers,
    provider: (docker) => docker.provider(),
    direct: async (docker) => (await docker.bare()).url,
    goal: 1.2,
  },
];

async function evaluator(url) {
  const cdp = await openCdp(url);
  const page = await openPage(cdp, "<p>bench</p>");
  return {
    once: async () => {
      const r = await cdp.send("Runtime.evaluate", { expression: "1+1", returnByValue: true }, page.sessionId);
      if (r.result?.value !== 2) throw new Error("1+1 was not 2");
    },
    close: () => cdp.close(),
  };
}

/** The anchor: the first screencast frame of the browser's first page, straight over CDP. */
async function rawFirstFrame(url) {
  const t = performance.now();
  const cdp = await openCdp(url);
  try {
    const { targetInfos } = await cdp.send("Target.getTargets");
    const page = targetInfos.find((x) => x.type === "page");
    const { sessionId } = await cdp.send("Target.attachToTarget", { targetId: page.targetId, flatten: true });
    const first = new Promise((res) =>
      cdp.listen({ event: (e) => e.method === "Page.screencastFrame" && e.sessionId === sessionId && res(), closed: () => {} }),
    );
    await cdp.send("Page.startScreencast", { format: "jpeg", quality: 60, maxWidth: 1280 }, sessionId);
    await first;
    return performance.now() - t;
  } finally {
    cdp.close();
  }
}

/** Ours: watch() to its first frame. */
async function watchFirstFrame(provider, ref) {
  const t = performance.now();
  let ms;
  let watch;
  await new Promise((res, rej) => {
    void provider
      .watch(ref, { frame: () => ((ms ??= performance.now() - t), res()), ended: (e) => rej(new Error(e.message)) })
      .then((w) => (w.ok ? (watch = w.value) : rej(new Error(w.error.message))));
  });
  while (!watch) await new Promise((r) => setTimeout(r, 1));
  await watch.close();
  return ms;
}

for (const v of vendors) {
  const fake = await v.start();
  const provider = v.provider(fake);
  const cleanup = releaseOnStop(provider, () => fake.close());
  try {
    const ref = await provider.create(spec);
    if (!ref.ok) throw new Error(ref.error.message);
    const conn = await provider.connect(ref.value);
    if (!conn.ok) throw new Error(conn.error.message);
    const directUrl = await v.direct(fake, ref.value);
    const through = await evaluator(conn.value.cdp.url);
    const direct = await evaluator(directUrl);
    const ours = [];
    const anchor = [];
    for (let i = 0; i < 20; i += 1) await Promise.all([through.once(), direct.once()]); // warm
    for (let done = 0; done < calls; done += BLOCK) {
      for (const [sink, side] of [
        [anchor, direct],
        [ours, through],
      ]) {
        for (let j = 0; j < BLOCK; j += 1) {
          const t = performance.now();
          await side.once();
          sink.push(performance.now() - t);
        }
      }
    }
    through.close();
    direct.close();
    const o = quantile(ours, 0.5);
    const a = quantile(anchor, 0.5);
    console.log(
      `${v.name}${v.goal ? "" : " fake"}, Runtime.evaluate(1+1) over ${calls} calls: through the provider's URL p50 ${o.toFixed(3)} ms (p99 ${quantile(ours, 0.99).toFixed(3)}); the container's port directly p50 ${a.toFixed(3)} ms (p99 ${quantile(anchor, 0.99).toFixed(3)}); ratio ${(o / a).toFixed(2)} (goal <= ${v.goal ?? 1.1})`,
    );
    const cast = [];
    const raw = [];
    for (let i = 0; i < watches; i += 1) {
      raw.push(await rawFirstFrame(directUrl));
      cast.push(await watchFirstFrame(provider, ref.value));
    }
    await conn.value.close();
    const w = quantile(cast, 0.5);
    const r = quantile(raw, 0.5);
    console.log(
      `${v.name}${v.goal ? "" : " fake"}, the live view's first frame over ${watches} watches: watch() p50 ${w.toFixed(1)} ms (p99 ${quantile(cast, 0.99).toFixed(1)}); Page.startScreencast on the container's port p50 ${r.toFixed(1)} ms (p99 ${quantile(raw, 0.99).toFixed(1)}); ratio ${(w / r).toFixed(2)} (no goal: watch() adds the vendor's read and the signed URL's relay)`,
    );
  } finally {
    await cleanup();
  }
}
