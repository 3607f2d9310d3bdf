// input.actions of one click (press and release at a point, then the server's round trip) on an
// open connection, beside the anchor in the same container in the same run: `xdotool click 1`
// through docker exec. The click lands in the desktop fixture, which logs it.
//
//   node bench/input-click.mjs [runs]     (default 200)
import { makeDesktop, quantile } from "./screen-desktop.mjs";

const runs = Number(process.argv[2] ?? 200);
const ms = (x) => `${x.toFixed(2)} ms`;

const desktop = await makeDesktop();
try {
  const click = [{ type: "click", point: [100, 100] }];
  for (let i = 0; i < 20; i++) await desktop.client.call("input.actions", { actions: click });
  const times = [];
  for (let i = 0; i < runs; i++) {
    // Far apart in time, so the fixture never counts them as one double click.
    const t0 = performance.now();
    const r = await desktop.client.call("input.actions", { actions: click });
    times.push(performance.now() - t0);
    if (r.done !== 1) throw new Error(`input.actions answered ${JSON.stringify(r)}`);
  }
  const anchorRuns = Math.min(30, runs);
  const anchor = [];
  for (let i = 0; i < anchorRuns; i++) {
    const t0 = performance.now();
    desktop.exec("xdotool click 1");
    anchor.push(performance.now() - t0);
  }
  const clickMs = quantile(times, 0.5);
  const anchorMs = quantile(anchor, 0.5);
  console.log(`input.actions of one click: median ${ms(clickMs)}, p90 ${ms(quantile(times, 0.9))} over ${runs} (bound: 2 ms)`);
  console.log(`anchor, xdotool click 1 through docker exec in the same container: median ${ms(anchorMs)} over ${anchorRuns}`);
  console.log(`input.actions is ${(anchorMs / clickMs).toFixed(1)}x faster than the anchor`);
} finally {
  await desktop.remove();
}
