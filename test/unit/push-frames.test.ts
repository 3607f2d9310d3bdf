// How a framed push cuts its source into tar.push.write frames (src/daemon/files.ts pushTar), on a
// client that takes frames and answers each at once: a big chunk goes as it is, in frames that are
// views of its own memory, never copies; small pieces are gathered into one frame.
import { describe, expect, it } from "vitest";
import type { ComputerClient } from "../../src/daemon/client.js";
import { pushTar } from "../../src/daemon/files.js";

function framedClient() {
  const frames: Buffer[] = [];
  const client = {
    framed: true,
    call: async (method: string) => (method === "tar.push.begin" ? { id: "push1" } : { entries: 1 }),
    callFramed: async (_method: string, params: { data: Uint8Array }) => {
      frames.push(Buffer.from(params.data.buffer, params.data.byteOffset, params.data.byteLength));
      return {};
    },
  } as unknown as ComputerClient;
  return { client, frames };
}

async function* chunks(...parts: Buffer[]) {
  yield* parts;
}

describe("a framed push's frames", () => {
  it("send a big chunk in views of its own bytes, at most 1 MiB each, after what was gathered before it", async () => {
    const { client, frames } = framedClient();
    const header = Buffer.alloc(512, 1);
    const big = Buffer.alloc(1536 * 1024, 2);
    const pushed = await pushTar(client, "/work/in", chunks(header, big));
    expect(pushed).toEqual({ ok: true, value: { entries: 1 } });
    expect(frames.map((f) => f.length)).toEqual([512, 1024 * 1024, 512 * 1024]);
    expect(frames[1]!.buffer).toBe(big.buffer);
    expect(frames[2]!.buffer).toBe(big.buffer);
    expect(Buffer.concat(frames).equals(Buffer.concat([header, big]))).toBe(true);
  });

  it("gather small pieces into one frame", async () => {
    const { client, frames } = framedClient();
    const small = Array.from({ length: 10 }, (_, i) => Buffer.alloc(1024, i));
    await pushTar(client, "/work/in", chunks(...small));
    expect(frames.map((f) => f.length)).toEqual([10 * 1024]);
    expect(Buffer.concat(frames).equals(Buffer.concat(small))).toBe(true);
  });
});
