// input.actions of one tap through the phone harness provider (its client: one adb shell
// service on the server's socket) beside the anchor, one `adb -s <serial> shell input tap x y`,
// on the same simulated phone through the same adb server, interleaved. Goal: at most 1.2x.
//
//   node bench/phone-input.mjs [runs]     (default 100)
import { makePhone, median } from "./phone-stand.mjs";

const runs = Number(process.argv[2] ?? 100);
const phone = await makePhone();
try {
  const tap = [{ type: "tap", point: [20, 900] }];
  const provider = [];
  const anchor = [];
  for (let i = 0; i < runs + 5; i++) {
    let t0 = performance.now();
    const r = await phone.client.call("input.actions", { actions: tap });
    if (i >= 5) provider.push(performance.now() - t0);
    if (r.done !== 1) throw new Error(`input.actions answered ${JSON.stringify(r)}`);
    t0 = performance.now();
    await phone.adb(["shell", "input", "tap", "20", "900"]);
    if (i >= 5) anchor.push(performance.now() - t0);
  }
  const [p, a] = [median(provider), median(anchor)];
  console.log(`input.actions of one tap through the provider: median ${p.toFixed(2)} ms over ${runs}`);
  console.log(`anchor, adb -s <serial> shell input tap: median ${a.toFixed(2)} ms over ${runs}`);
  console.log(`the provider takes ${(p / a).toFixed(2)}x the anchor (goal: at most 1.2x)`);
} finally {
  await phone.remove();
}
