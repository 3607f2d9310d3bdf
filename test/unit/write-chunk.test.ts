// A write carries more than a read (736 KiB, not 512): its line still fits the protocol's 1 MiB
// with the longest path a Linux file has (PATH_MAX), every byte of it escaped by JSON.
import { describe, expect, it } from "vitest";
import { WRITE_CHUNK_BYTES } from "../../src/daemon/files.js";
import { MAX_CHUNK_BYTES, MAX_LINE_BYTES } from "../../src/daemon/protocol.js";
import { requestLine } from "../../src/daemon/wire.js";

describe("a write's chunk", () => {
  const data = Buffer.alloc(WRITE_CHUNK_BYTES, 0xa5).toString("base64");

  it("is larger than a read's, and its files.write line with a PATH_MAX path of escapes fits 1 MiB", () => {
    expect(WRITE_CHUNK_BYTES).toBeGreaterThan(MAX_CHUNK_BYTES);
    const path = `/${"\u0001".repeat(4095)}`;
    const line = requestLine(2 ** 31, "files.write", { path, data, offset: 2 ** 52, mode: 0o644, parents: true });
    // Newline excluded, as the daemon counts it.
    expect(line.length - 1).toBeLessThanOrEqual(MAX_LINE_BYTES);
  });

  it("and its tar.push.write line fits too", () => {
    const line = requestLine(2 ** 31, "tar.push.write", { id: "push99999999", data });
    expect(line.length - 1).toBeLessThanOrEqual(MAX_LINE_BYTES);
  });
});
