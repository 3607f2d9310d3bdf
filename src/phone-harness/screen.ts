// The phone's screen from its raw screencap: a shot cropped to a region and encoded as an RGBA
// PNG, held for screen.read; and the watch's frames, read once a second at most, across calls
// too, a new one only when the pixels changed.
import { createHash, randomUUID } from "node:crypto";
import { CallError } from "../daemon/client.js";
import { MAX_CHUNK_BYTES } from "../daemon/protocol.js";
import type { PhoneLink } from "./link.js";
import { encodePng } from "./png.js";

export interface RawScreen {
  width: number;
  height: number;
  rgba: Buffer;
}

type Region = { x: number; y: number; width: number; height: number };

/** Android's raw screencap: width, height and format (1, RGBA_8888) little-endian, a dataspace word on Android 9 and later, then the pixels. */
export function parseScreencap(bytes: Buffer): RawScreen {
  if (bytes.length < 12) throw new CallError("protocol", "the phone's screencap was shorter than its header", "screen.shot");
  const width = bytes.readUInt32LE(0);
  const height = bytes.readUInt32LE(4);
  const format = bytes.readUInt32LE(8);
  const size = width * height * 4;
  const header = bytes.length - size;
  if (format !== 1 || (header !== 12 && header !== 16) || width < 1 || height < 1) {
    throw new CallError("protocol", `the phone's screencap is not ${width}x${height} RGBA_8888 pixels behind its header`, "screen.shot");
  }
  return { width, height, rgba: bytes.subarray(header) };
}

export function crop(raw: RawScreen, r: Region): RawScreen {
  if (r.x + r.width > raw.width || r.y + r.height > raw.height) {
    throw new CallError("invalid", `the region ${r.width}x${r.height} at (${r.x}, ${r.y}) is past the ${raw.width}x${raw.height} screen`, "screen.shot");
  }
  const rgba = Buffer.alloc(r.width * r.height * 4);
  for (let y = 0; y < r.height; y++) raw.rgba.copy(rgba, y * r.width * 4, ((r.y + y) * raw.width + r.x) * 4, ((r.y + y) * raw.width + r.x + r.width) * 4);
  return { width: r.width, height: r.height, rgba };
}

/** Scaled to at most maxWidth wide by the nearest pixel. */
export function scaled(raw: RawScreen, maxWidth: number | undefined): RawScreen {
  if (!maxWidth || maxWidth >= raw.width) return raw;
  const width = maxWidth;
  const height = Math.max(1, Math.round((raw.height * maxWidth) / raw.width));
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    const sy = Math.floor((y * raw.height) / height);
    for (let x = 0; x < width; x++)
      raw.rgba.copy(
        rgba,
        (y * width + x) * 4,
        (sy * raw.width + Math.floor((x * raw.width) / width)) * 4,
        (sy * raw.width + Math.floor((x * raw.width) / width)) * 4 + 4,
      );
  }
  return { width, height, rgba };
}

/** One connection's screen: the held shot (until its eof or the next shot) and the watch's pacing. */
export class PhoneScreen {
  private held: { id: string; bytes: Buffer } | undefined;
  private seq = 0;
  private last: { hash: string; raw: RawScreen } | undefined;
  private lastRead = 0;

  constructor(
    private readonly link: PhoneLink,
    private readonly scale: number,
  ) {}

  async capture(signal?: AbortSignal): Promise<RawScreen> {
    return parseScreencap(await this.link.exec("screencap", signal));
  }

  async shot(region: Region | undefined, signal?: AbortSignal) {
    const raw = await this.capture(signal);
    const image = region ? crop(raw, region) : raw;
    return { ...this.hold(encodePng(image.width, image.height, image.rgba)), width: image.width, height: image.height, scale: this.scale };
  }

  /** The first chunk of bytes, held under an id for screen.read when there is more. */
  private hold(bytes: Buffer): { data: string; id: string | null; eof: boolean } {
    const eof = bytes.length <= MAX_CHUNK_BYTES;
    this.held = eof ? undefined : { id: randomUUID(), bytes };
    return { data: bytes.subarray(0, MAX_CHUNK_BYTES).toString("base64"), id: this.held?.id ?? null, eof };
  }

  read(id: string, offset: number): { data: string; eof: boolean } {
    if (!this.held || this.held.id !== id)
      throw new CallError("not_found", "no shot is held under that id: one shot is held, until its eof or the next shot", "screen.read");
    const part = this.held.bytes.subarray(offset, offset + MAX_CHUNK_BYTES);
    const eof = offset + part.length >= this.held.bytes.length;
    if (eof) this.held = undefined;
    return { data: part.toString("base64"), eof };
  }

  /** The next frame after `after`, or changed: false once waitMs is over; screencaps at most once a second. */
  async watch(params: { after: number; waitMs?: number; maxWidth?: number }, signal?: AbortSignal) {
    const until = Date.now() + (params.waitMs ?? 2000);
    if (this.last && params.after < this.seq) return this.frame(this.last.raw, params.maxWidth);
    for (;;) {
      const next = this.lastRead + 1000;
      if (next > until) {
        await sleep(Math.max(0, until - Date.now()), signal, "screen.watch");
        return { seq: this.seq, changed: false };
      }
      await sleep(Math.max(0, next - Date.now()), signal, "screen.watch");
      this.lastRead = Date.now();
      const raw = await this.capture(signal);
      const hash = createHash("sha256").update(raw.rgba).digest("hex");
      if (hash !== this.last?.hash) {
        this.last = { hash, raw };
        this.seq++;
        return this.frame(raw, params.maxWidth);
      }
    }
  }

  private frame(raw: RawScreen, maxWidth: number | undefined) {
    const image = scaled(raw, maxWidth);
    const png = encodePng(image.width, image.height, image.rgba);
    return {
      seq: this.seq,
      changed: true,
      format: "png" as const,
      frameWidth: image.width,
      frameHeight: image.height,
      width: raw.width,
      height: raw.height,
      ...this.hold(png),
    };
  }
}

/** Waits ms, or rejects as aborted when the signal goes first. */
export function sleep(ms: number, signal: AbortSignal | undefined, method: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(new CallError("aborted", `${method} was cancelled`, method));
    };
    if (signal?.aborted) return stop();
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal?.addEventListener("abort", stop, { once: true });
  });
}
