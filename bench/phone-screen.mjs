// screen.shot through the phone harness provider (a raw screencap over adb's exec service,
// encoded as an RGBA PNG, read to its end) beside the anchor, `adb exec-out screencap -p` on the
// same simulated phone through the same adb server, interleaved. Goal: at most 1.2x.
//
//   node bench/phone-screen.mjs [runs]     (default 30)
import { makePhone, median } from "./phone-stand.mjs";

const runs = Number(process.argv[2] ?? 30);
const phone = await makePhone();
try {
  const shot = async () => {
    const first = await phone.client.call("screen.shot", {});
    let size = Buffer.from(first.data, "base64").length;
    for (let eof = first.eof; !eof;) {
      const more = await phone.client.call("screen.read", { id: first.id, offset: size });
      size += Buffer.from(more.data, "base64").length;
      eof = more.eof;
    }
    return size;
  };
  const provider = [];
  const anchor = [];
  let bytes = 0;
  for (let i = 0; i < runs + 3; i++) {
    let t0 = performance.now();
    bytes = await shot();
    if (i >= 3) provider.push(performance.now() - t0);
    t0 = performance.now();
    const png = await phone.adb(["exec-out", "screencap", "-p"]);
    if (i >= 3) anchor.push(performance.now() - t0);
    if (png.length < 100) throw new Error("the anchor's screencap -p gave no PNG");
  }
  const [p, a] = [median(provider), median(anchor)];
  console.log(`screen.shot through the provider (540x960, ${bytes} bytes of PNG): median ${p.toFixed(2)} ms over ${runs}`);
  console.log(`anchor, adb exec-out screencap -p: median ${a.toFixed(2)} ms over ${runs}`);
  console.log(`the provider takes ${(p / a).toFixed(2)}x the anchor (goal: at most 1.2x)`);
} finally {
  await phone.remove();
}
