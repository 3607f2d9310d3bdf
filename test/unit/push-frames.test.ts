// How a push cuts its source into tar.push.write calls (src/daemon/files.ts pushTar), on a client
// that answers each at once. Framed: writes of exactly 1 MiB (the last shorter), each carrying
// views of the source's own chunks, never copies, however the source cuts them. On the spec's wire:
// base64 lines of at most 736 KiB, each sent after the last one's reply. A lent source (one that
// fills a chunk's memory again once the chunk after next is asked for) is copied into writes the
// push reuses once answered.
import { describe, expect, it } from "vitest";
import type { ComputerClient } from "../../src/daemon/client.js";
import { pushTar, WRITE_CHUNK_BYTES } from "../../src/daemon/files.js";

const MiB = 1024 * 1024;

function framedClient() {
  const frames: Uint8Array[][] = [];
  const client = {
    framed: true,
    call: async (method: string) => (method === "tar.push.begin" ? { id: "push1" } : { entries: 1 }),
    callFramed: async (_method: string, params: { data: Uint8Array | Uint8Array[] }) => {
      frames.push(params.data instanceof Uint8Array ? [params.data] : params.data);
      return {};
    },
  } as unknown as ComputerClient;
  return { client, frames, lengths: () => frames.map((f) => f.reduce((n, p) => n + p.length, 0)) };
}

async function* chunks(...parts: Buffer[]) {
  yield* parts;
}

describe("a framed push's writes", () => {
  it("are 1 MiB each, made of views of the source's chunks, a big chunk's included", async () => {
    const { client, frames, lengths } = framedClient();
    const header = Buffer.alloc(512, 1);
    const big = Buffer.alloc(1536 * 1024, 2);
    const pushed = await pushTar(client, "/work/in", chunks(header, big));
    expect(pushed).toEqual({ ok: true, value: { entries: 1 } });
    expect(lengths()).toEqual([MiB, 512 * 1024 + 512]);
    expect(frames[0]![0]!.buffer).toBe(header.buffer);
    for (const piece of [frames[0]![1]!, ...frames[1]!]) expect(piece.buffer).toBe(big.buffer);
    expect(Buffer.concat(frames.flat()).equals(Buffer.concat([header, big]))).toBe(true);
  });

  it("gather small pieces, and a pipe's 64 KiB reads, into one write of 1 MiB", async () => {
    const small = Array.from({ length: 10 }, (_, i) => Buffer.alloc(1024, i));
    const few = framedClient();
    await pushTar(few.client, "/work/in", chunks(...small));
    expect(few.lengths()).toEqual([10 * 1024]);
    expect(Buffer.concat(few.frames.flat()).equals(Buffer.concat(small))).toBe(true);

    const piped = Array.from({ length: 40 }, (_, i) => Buffer.alloc(64 * 1024, i));
    const pipe = framedClient();
    await pushTar(pipe.client, "/work/in", chunks(...piped));
    expect(pipe.lengths()).toEqual([MiB, MiB, 8 * 64 * 1024]);
    expect(Buffer.concat(pipe.frames.flat()).equals(Buffer.concat(piped))).toBe(true);
  });
});

describe("a push on the spec's wire", () => {
  it("sends base64 lines of at most 736 KiB, each after the last one's reply", async () => {
    const lines: string[] = [];
    let inFlight = 0;
    let most = 0;
    const client = {
      framed: false,
      call: async (method: string, params: { data?: string }) => {
        if (method === "tar.push.begin") return { id: "push1" };
        if (method === "tar.push.end") return { entries: 1 };
        most = Math.max(most, ++inFlight);
        lines.push(params.data!);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return {};
      },
    } as unknown as ComputerClient;
    const source = Array.from({ length: 30 }, (_, i) => Buffer.alloc(64 * 1024, i));
    expect(await pushTar(client, "/work/in", chunks(...source))).toEqual({ ok: true, value: { entries: 1 } });
    expect(most).toBe(1);
    expect(lines.map((l) => Buffer.from(l, "base64").length)).toEqual([WRITE_CHUNK_BYTES, WRITE_CHUNK_BYTES, 30 * 64 * 1024 - 2 * WRITE_CHUNK_BYTES]);
    expect(Buffer.concat(lines.map((l) => Buffer.from(l, "base64"))).equals(Buffer.concat(source))).toBe(true);
  });
});

/** A lent source: chunks of 700 KiB read into two buffers in turn, as src/inside/file-chunks.ts reads a file; and what each chunk held when given. */
function lentSource(count: number) {
  const given: Buffer[] = [];
  const buffers = [Buffer.alloc(700 * 1024), Buffer.alloc(700 * 1024)];
  async function* chunks() {
    for (let i = 0; i < count; i++) {
      const buffer = buffers[i % 2]!;
      buffer.fill(i + 1);
      buffer[0] = 255 - i; // each chunk's bytes its own, not only its fill
      given.push(Buffer.from(buffer));
      await new Promise((r) => setImmediate(r));
      yield buffer;
    }
  }
  return { chunks: chunks(), given };
}

describe("a push of a lent source", () => {
  it("framed: copies each chunk before it asks for the one after next, into at most six buffers, each used again only once its write is answered", async () => {
    const arrived: Buffer[] = [];
    const buffers = new Set<ArrayBufferLike>();
    const client = {
      framed: true,
      call: async (method: string) => (method === "tar.push.begin" ? { id: "push1" } : { entries: 1 }),
      // The daemon reads a write's bytes some time after it was sent, as a socket's peer does.
      callFramed: async (_method: string, params: { data: Uint8Array[] }) => {
        for (const piece of params.data) buffers.add(piece.buffer);
        await new Promise((r) => setTimeout(r, 2));
        arrived.push(Buffer.concat(params.data));
        return {};
      },
    } as unknown as ComputerClient;
    const { chunks, given } = lentSource(40);
    expect(await pushTar(client, "/work/in", chunks, { lent: true })).toEqual({ ok: true, value: { entries: 1 } });
    expect(arrived.map((w) => w.length)).toEqual([...Array(27).fill(MiB), 40 * 700 * 1024 - 27 * MiB]);
    expect(Buffer.concat(arrived).equals(Buffer.concat(given))).toBe(true);
    expect(buffers.size).toBeLessThanOrEqual(6);
  });

  it("on the spec's wire: copies each chunk before it asks for the one after next, into lines of at most 736 KiB", async () => {
    const lines: string[] = [];
    const client = {
      framed: false,
      call: async (method: string, params: { data?: string }) => {
        if (method === "tar.push.begin") return { id: "push1" };
        if (method === "tar.push.end") return { entries: 1 };
        lines.push(params.data!);
        return {};
      },
    } as unknown as ComputerClient;
    const { chunks, given } = lentSource(12);
    expect(await pushTar(client, "/work/in", chunks, { lent: true })).toEqual({ ok: true, value: { entries: 1 } });
    const sent = lines.map((l) => Buffer.from(l, "base64"));
    expect(sent.every((line) => line.length <= WRITE_CHUNK_BYTES)).toBe(true);
    expect(Buffer.concat(sent).equals(Buffer.concat(given))).toBe(true);
  });
});
