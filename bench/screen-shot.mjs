// screen.shot of the whole 1280x800 screen (the PNG read to its end over the bridge), beside the
// anchor run in the same container in the same run: `xwd -root | convert xwd:- png:-` through
// docker exec. Also the daemon binary's size against its 4.2 MB bound. With --save <path>, the
// last shot is written there (the README's picture).
//
//   node bench/screen-shot.mjs [runs] [--save docs/desktop.png]     (default 50)
import { statSync, writeFileSync } from "node:fs";
import { makeDesktop, quantile, daemonPath } from "./screen-desktop.mjs";

const args = process.argv.slice(2);
const saveAt = args.indexOf("--save");
const save = saveAt >= 0 ? args.splice(saveAt, 2)[1] : undefined;
const runs = Number(args[0] ?? 50);
const ms = (x) => `${x.toFixed(1)} ms`;

async function shot(client) {
  const first = await client.call("screen.shot", {});
  const parts = [Buffer.from(first.data, "base64")];
  let size = parts[0].length;
  for (let eof = first.eof; !eof;) {
    const more = await client.call("screen.read", { id: first.id, offset: size });
    parts.push(Buffer.from(more.data, "base64"));
    size += parts.at(-1).length;
    eof = more.eof;
  }
  return { ...first, png: Buffer.concat(parts) };
}

const desktop = await makeDesktop();
try {
  for (let i = 0; i < 5; i++) await shot(desktop.client);
  const times = [];
  let last;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    last = await shot(desktop.client);
    times.push(performance.now() - t0);
  }
  const anchorRuns = Math.min(15, runs);
  const anchor = [];
  let anchorBytes = 0;
  for (let i = 0; i < anchorRuns; i++) {
    const t0 = performance.now();
    anchorBytes = desktop.exec("xwd -root -silent | convert xwd:- png:-").length;
    anchor.push(performance.now() - t0);
  }
  const shotMs = quantile(times, 0.5);
  const anchorMs = quantile(anchor, 0.5);
  const size = statSync(daemonPath).size;
  console.log(
    `screen.shot ${last.width}x${last.height}, ${last.png.length} bytes of PNG: median ${ms(shotMs)}, p90 ${ms(quantile(times, 0.9))} over ${runs} (bound: 25 ms)`,
  );
  console.log(
    `anchor, xwd -root | convert xwd:- png:- through docker exec in the same container: median ${ms(anchorMs)} over ${anchorRuns} (${anchorBytes} bytes)`,
  );
  console.log(`screen.shot is ${(anchorMs / shotMs).toFixed(1)}x faster than the anchor (bound: 5x or more)`);
  console.log(`computerd (${daemonPath.split("/").pop()}): ${size} bytes, ${(size / 1e6).toFixed(2)} MB (bound: 4.2 MB)`);
  if (save) {
    writeFileSync(save, last.png);
    console.log(`the last shot is at ${save}`);
  }
} finally {
  await desktop.remove();
}
