// The view tree to pixels (RGBA, WIDTH x HEIGHT): each view a filled box, each text a band of
// glyph blocks whose colours follow its characters, so a changed text is a changed screenshot.
import { HEIGHT, WIDTH } from "./model.js";
import type { View } from "./view.js";

export function render(root: View): Buffer {
  const px = Buffer.alloc(WIDTH * HEIGHT * 4);
  const words = new Uint32Array(px.buffer, px.byteOffset, WIDTH * HEIGHT);
  const fill = (l: number, t: number, r: number, b: number, rgba: number) => {
    const le = rgba >>> 0;
    const word = ((le & 0xff) << 24) | (((le >>> 8) & 0xff) << 16) | (((le >>> 16) & 0xff) << 8) | (le >>> 24); // RGBA bytes in memory order
    for (let y = Math.max(0, t); y < Math.min(HEIGHT, b); y++) words.fill(word >>> 0, y * WIDTH + Math.max(0, l), y * WIDTH + Math.min(WIDTH, r));
  };
  const paint = (v: View) => {
    const [l, t, r, b] = v.bounds;
    fill(l, t, r, b, v.color);
    const text = v.text || v.desc || "";
    const mid = Math.floor((t + b) / 2);
    for (let i = 0; i < text.length && l + 12 + i * 10 + 8 <= r; i++) {
      fill(l + 12 + i * 10, mid - 8, l + 12 + i * 10 + 8, mid + 8, ((text.charCodeAt(i) * 0x2f1c3b) << 8) | 0xff);
    }
    v.children.forEach(paint);
  };
  paint(root);
  return px;
}
