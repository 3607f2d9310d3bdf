// A file's chunks for a push (src/inside/file-chunks.ts): lent, read into two buffers in turn,
// sized by the file when it is smaller than 1 MiB; fresh, each chunk memory of its own. Either way
// the file's bytes in order, to its end.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { fileChunks } from "../../src/inside/file-chunks.js";

const dir = mkdtempSync(join(tmpdir(), "agentrun-file-chunks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** Each chunk copied as it is given, and the memory it was given in. */
async function read(path: string, size: number, lent: boolean) {
  const copies: Buffer[] = [];
  const memory: ArrayBufferLike[] = [];
  for await (const chunk of fileChunks(path, size, lent)) {
    copies.push(Buffer.from(chunk));
    memory.push(chunk.buffer);
  }
  return { bytes: Buffer.concat(copies), memory };
}

describe("a file's chunks", () => {
  const big = randomBytes(2.5 * 1024 * 1024);
  const bigPath = file("big.bin", big);

  it("lent: the file's bytes in 1 MiB chunks read into two buffers in turn", async () => {
    const { bytes, memory } = await read(bigPath, big.length, true);
    expect(bytes.equals(big)).toBe(true);
    expect(memory).toHaveLength(3);
    expect(new Set(memory).size).toBe(2);
    expect(memory[2]).toBe(memory[0]);
  });

  it("lent: a small file's buffers are its size, not 1 MiB, and a file that grew since its size was taken is read to its end", async () => {
    const small = randomBytes(1000);
    const path = file("small.bin", small);
    const { bytes, memory } = await read(path, small.length, true);
    expect(bytes.equals(small)).toBe(true);
    expect(memory.map((m) => m.byteLength)).toEqual([1000]);
    const grown = await read(path, 10, true);
    expect(grown.bytes.equals(small)).toBe(true);
  });

  it("fresh: each chunk in memory of its own", async () => {
    const { bytes, memory } = await read(bigPath, big.length, false);
    expect(bytes.equals(big)).toBe(true);
    expect(new Set(memory).size).toBe(memory.length);
  });
});
