// Frames, past the spec's wire, in two languages: src/daemon/frames.ts and DaemonClient held to
// test/vectors/frames.json, which computerd's Go side writes (its bounds, which methods carry bytes
// each way and which run in order, request frames it reads and a reply frame it wrote), both ways:
// the client writes the vector's request frames byte for byte, and reads the daemon's reply frame.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { DaemonClient } from "../../src/daemon/client.js";
import { BYTES_IN, BYTES_OUT, FRAME_LEAD_BYTES, FRAME_MARK, FRAME_VERSION, FRAMED, IN_ORDER, MAX_WIRE_FRAME_BYTES } from "../../src/daemon/frames.js";
import { MAX_LINE_BYTES, METHODS } from "../../src/daemon/protocol.js";

interface Example {
  what: string;
  head: string;
  bytesHex: string;
  frameHex: string;
}
interface Vector {
  mark: number;
  leadBytes: number;
  version: number;
  maxHeadBytes: number;
  maxFrameBytes: number;
  bytesIn: string[];
  bytesOut: string[];
  inOrder: string[];
  requests: Example[];
  replies: Example[];
}

const vector = JSON.parse(readFileSync(join(import.meta.dirname, "..", "vectors", "frames.json"), "utf8")) as Vector;

function framedPair() {
  const toDaemon = new PassThrough();
  const fromDaemon = new PassThrough();
  const client = new DaemonClient({ readable: fromDaemon, writable: toDaemon });
  client.useFrames();
  const written: Buffer[] = [];
  toDaemon.on("data", (chunk: Buffer) => written.push(chunk));
  return { client, fromDaemon, written: () => Buffer.concat(written) };
}

const dataOf = (shape: object | undefined) => (shape as { data?: { description?: string } } | undefined)?.data?.description;

describe("frames against the daemon's vector", () => {
  it("has the same mark, lead, version and bounds", () => {
    expect([FRAME_MARK, FRAME_LEAD_BYTES, FRAME_VERSION, MAX_LINE_BYTES, MAX_WIRE_FRAME_BYTES]).toEqual([
      vector.mark,
      vector.leadBytes,
      vector.version,
      vector.maxHeadBytes,
      vector.maxFrameBytes,
    ]);
  });

  it("has the same methods carrying bytes each way, and running in order", () => {
    expect([...BYTES_IN]).toEqual(vector.bytesIn);
    expect([...BYTES_OUT]).toEqual(vector.bytesOut);
    expect([...IN_ORDER]).toEqual(vector.inOrder);
    // Each is a method whose params, or result, carry base64 data in the spec's table.
    for (const m of BYTES_IN) expect(dataOf(METHODS[m].params.shape)).toBe("base64");
    for (const m of BYTES_OUT) expect(dataOf(METHODS[m].result.shape)).toBe("base64");
    for (const m of Object.keys(FRAMED)) expect([...BYTES_IN, ...BYTES_OUT]).toContain(m);
  });

  it("writes the vector's request frames byte for byte, from bytes in one array or in pieces", async () => {
    const { client, written } = framedPair();
    const bytes = (i: number) => Buffer.from(vector.requests[i]!.bytesHex, "hex");
    void client.callFramed("files.write", { path: "/work/a.bin", data: bytes(0), offset: 0 }).catch(() => {});
    void client.callFramed("files.read", { path: "/work/f" }).catch(() => {});
    const pieces = [bytes(2).subarray(0, 1), new Uint8Array(0), bytes(2).subarray(1)];
    void client.callFramed("tar.push.write", { id: "push1", data: pieces }).catch(() => {});
    await new Promise((resolve) => setImmediate(resolve));
    expect(written().toString("hex")).toBe(vector.requests.map((r) => r.frameHex).join(""));
    await client.close();
  });

  it("refuses pieces past a frame's 1 MiB together, sending nothing", async () => {
    const { client, written } = framedPair();
    const half = new Uint8Array(MAX_WIRE_FRAME_BYTES / 2 + 1);
    await expect(client.callFramed("tar.push.write", { id: "push1", data: [half, half] })).rejects.toMatchObject({ kind: "limit" });
    expect(written().length).toBe(0);
    await client.close();
  });

  it("reads the daemon's reply frame, one byte at a time", async () => {
    const { client, fromDaemon } = framedPair();
    void client.callFramed("files.write", { path: "/work/a.bin", data: new Uint8Array(1) }).catch(() => {});
    const read = client.callFramed("files.read", { path: "/work/f" });
    const [reply] = vector.replies;
    for (const byte of Buffer.from(reply!.frameHex, "hex")) fromDaemon.write(Buffer.of(byte));
    const got = await read;
    expect(Buffer.from(got.data).toString("hex")).toBe(reply!.bytesHex);
    const { data: _, ...rest } = (JSON.parse(reply!.head) as { result: Record<string, unknown> }).result;
    expect({ eof: got.eof, size: got.size }).toEqual(rest);
    await client.close();
  });

  it("ends the connection on a reply frame past the bounds", async () => {
    const { client, fromDaemon } = framedPair();
    const read = client.callFramed("files.read", { path: "/work/f" });
    const lead = Buffer.alloc(FRAME_LEAD_BYTES);
    lead.writeUInt32BE(2, 1);
    lead.writeUInt32BE(MAX_WIRE_FRAME_BYTES + 1, 5);
    fromDaemon.write(lead);
    await expect(read).rejects.toMatchObject({ kind: "closed" });
    await client.close();
  });

  it("reads a 0x00 as a line's until frames are taken up", async () => {
    const toDaemon = new PassThrough();
    const fromDaemon = new PassThrough();
    const client = new DaemonClient({ readable: fromDaemon, writable: toDaemon });
    const ping = client.call("ping", {});
    fromDaemon.write(Buffer.concat([Buffer.from(vector.replies[0]!.frameHex, "hex"), Buffer.from('\n{"jsonrpc":"2.0","id":1,"result":{}}\n')]));
    await expect(ping).resolves.toEqual({});
    await expect(client.callFramed("files.read", { path: "/work/f" })).rejects.toMatchObject({ kind: "invalid" });
    await client.close();
  });
});
