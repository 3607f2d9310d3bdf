// readFile decodes each chunk in place into one buffer of the size first read: a file that grows
// or shrinks while it is read is still read as the daemon gives it, to its eof.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ComputerClient } from "../../src/daemon/client.js";
import { readFile } from "../../src/daemon/files.js";
import { MAX_CHUNK_BYTES } from "../../src/daemon/protocol.js";

/** A client whose files.read serves file(), read afresh at every call, as a daemon would. */
function clientOf(file: () => Buffer): ComputerClient {
  return {
    call: (async (method: string, params: { offset: number; length: number }) => {
      if (method !== "files.read") throw new Error(`unexpected ${method}`);
      const bytes = file();
      const data = bytes.subarray(params.offset, params.offset + params.length);
      return { data: data.toString("base64"), eof: params.offset + data.length >= bytes.length, size: bytes.length };
    }) as ComputerClient["call"],
    request: async () => undefined,
    close: async () => undefined,
  };
}

describe("readFile", () => {
  it("reads a file of several chunks whole, into bytes that own their buffer", async () => {
    const bytes = randomBytes(3 * MAX_CHUNK_BYTES + 17);
    const read = await readFile(
      clientOf(() => bytes),
      "/f",
    );
    expect(read.ok && Buffer.from(read.value).equals(bytes)).toBe(true);
    expect(read.ok && read.value.buffer.byteLength).toBe(bytes.length);
    const empty = await readFile(
      clientOf(() => Buffer.alloc(0)),
      "/e",
    );
    expect(empty.ok && empty.value.length).toBe(0);
  });

  it("reads on past the size first read when the file grows meanwhile", async () => {
    const whole = randomBytes(5 * MAX_CHUNK_BYTES + 3);
    let calls = 0;
    // The first read sees one chunk and a bit; every later read sees the file grown.
    const read = await readFile(
      clientOf(() => (calls++ === 0 ? whole.subarray(0, MAX_CHUNK_BYTES + 5) : whole)),
      "/g",
    );
    expect(read.ok && Buffer.from(read.value).equals(whole)).toBe(true);
  });

  it("ends at the daemon's eof when the file shrinks meanwhile", async () => {
    const whole = randomBytes(4 * MAX_CHUNK_BYTES);
    let calls = 0;
    const shrunk = whole.subarray(0, 2 * MAX_CHUNK_BYTES + 9);
    const read = await readFile(
      clientOf(() => (calls++ === 0 ? whole : shrunk)),
      "/s",
    );
    expect(read.ok && Buffer.from(read.value).equals(shrunk)).toBe(true);
  });
});
