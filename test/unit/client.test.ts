// DaemonClient's framing and settling, against a peer on an in-memory stream pair that answers
// as the test says (the real daemon is test/docker/client.test.ts).
import { PassThrough } from "node:stream";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { CallError, DaemonClient } from "../../src/daemon/client.js";
import { MAX_CHUNK_BYTES, MAX_LINE_BYTES } from "../../src/daemon/protocol.js";

interface Request {
  id?: number;
  method: string;
  params: unknown;
}

function pair() {
  const toDaemon = new PassThrough();
  const fromDaemon = new PassThrough();
  const client = new DaemonClient({ readable: fromDaemon, writable: toDaemon });
  const received: Request[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: toDaemon })
    .on("line", (line) => {
      received.push(JSON.parse(line) as Request);
      waiters.splice(0).forEach((w) => w());
    })
    // readline passes its input's error on; a test that breaks the pipe asserts the client's words alone.
    .on("error", () => {});
  const nextRequests = async (n: number) => {
    while (received.length < n) await new Promise<void>((r) => waiters.push(r));
    return received.slice(0, n);
  };
  const reply = (value: unknown) => fromDaemon.write(JSON.stringify(value) + "\n");
  return { client, received, nextRequests, reply, fromDaemon, toDaemon };
}

const hello = { version: "0.1.0", os: "linux", kind: "linux", arch: "amd64", groups: ["exec", "files", "processes"] };

describe("DaemonClient", () => {
  it("matches replies to calls by id, in any order", async () => {
    const { client, nextRequests, reply } = pair();
    const a = client.call("hello", { client: "t" });
    const b = client.call("ping", {});
    const [ra, rb] = await nextRequests(2);
    expect(ra).toMatchObject({ method: "hello", params: { client: "t" } });
    reply({ jsonrpc: "2.0", id: rb!.id, result: {} });
    reply({ jsonrpc: "2.0", id: ra!.id, result: hello });
    await expect(b).resolves.toEqual({});
    await expect(a).resolves.toEqual(hello);
  });

  it("reads a reply split across chunks and two replies in one chunk", async () => {
    const { client, nextRequests, fromDaemon } = pair();
    const a = client.call("ping", {});
    const b = client.call("ping", {});
    const [ra, rb] = await nextRequests(2);
    const text = JSON.stringify({ jsonrpc: "2.0", id: ra!.id, result: {} }) + "\n" + JSON.stringify({ jsonrpc: "2.0", id: rb!.id, result: {} }) + "\n";
    fromDaemon.write(text.slice(0, 7));
    fromDaemon.write(text.slice(7));
    await expect(Promise.all([a, b])).resolves.toEqual([{}, {}]);
  });

  it("gives a daemon error its kind and words", async () => {
    const { client, nextRequests, reply } = pair();
    const call = client.call("files.read", { path: "/nope" });
    const [r] = await nextRequests(1);
    reply({ jsonrpc: "2.0", id: r!.id, error: { code: -32000, message: "/nope: no such file", data: { kind: "not_found" } } });
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallError);
    expect(error).toMatchObject({ kind: "not_found", message: "/nope: no such file", method: "files.read" });
  });

  it("refuses a result that does not match the protocol in words, and goes on", async () => {
    const { client, nextRequests, reply } = pair();
    const bad = client.call("files.read", { path: "/a" });
    const [r] = await nextRequests(1);
    reply({ jsonrpc: "2.0", id: r!.id, result: { data: 7, eof: "yes" } });
    const error = (await bad.catch((e: unknown) => e)) as CallError;
    expect(error.kind).toBe("protocol");
    expect(error.message).toMatch(/^files\.read: the daemon's result does not match the protocol \(data: .*eof: .*size: /);
    const good = client.call("ping", {});
    const [, r2] = await nextRequests(2);
    reply({ jsonrpc: "2.0", id: r2!.id, result: {} });
    await expect(good).resolves.toEqual({});
  });

  it("ignores a line that is not JSON and still matches the next reply", async () => {
    const { client, nextRequests, reply, fromDaemon } = pair();
    const call = client.call("ping", {});
    const [r] = await nextRequests(1);
    fromDaemon.write("computerd: something odd\n");
    reply({ jsonrpc: "2.0", id: r!.id, result: {} });
    await expect(call).resolves.toEqual({});
  });

  it("refuses params that do not match before sending", async () => {
    const { client, received } = pair();
    const error = (await client.call("files.read", { path: "relative" }).catch((e: unknown) => e)) as CallError;
    expect(error).toMatchObject({ kind: "invalid" });
    expect(error.message).toBe("files.read: path: a path must be absolute");
    expect(received).toHaveLength(0);
  });

  it.each([
    ["files.read", { path: "/work/big", length: MAX_CHUNK_BYTES + 1 }, "length"],
    ["process.read", { id: "p1", stream: "stdout", offset: 0, maxBytes: MAX_CHUNK_BYTES + 1 }, "maxBytes"],
    ["tar.pull.read", { id: "t1", maxBytes: MAX_CHUNK_BYTES + 1 }, "maxBytes"],
  ] as const)("refuses %s past 512 KiB as limit, the daemon's kind, before sending", async (method, params, field) => {
    const { client, received } = pair();
    const error = (await client.call(method, params as never).catch((e: unknown) => e)) as CallError;
    expect(error).toMatchObject({ kind: "limit" });
    expect(error.message).toBe(`${method}: ${field}: ${field} is past the most one call carries, 524288 bytes (512 KiB): read in chunks`);
    expect(received).toHaveLength(0);
  });

  it("takes a read of exactly 512 KiB, and calls a bad value beside a limit invalid", async () => {
    const { client, nextRequests, reply } = pair();
    const call = client.call("files.read", { path: "/work/big", length: MAX_CHUNK_BYTES });
    const [r] = await nextRequests(1);
    reply({ jsonrpc: "2.0", id: r!.id, result: { data: "", eof: true, size: 0 } });
    await expect(call).resolves.toEqual({ data: "", eof: true, size: 0 });
    const error = (await client.call("files.read", { path: "relative", length: MAX_CHUNK_BYTES + 1 }).catch((e: unknown) => e)) as CallError;
    expect(error.kind).toBe("invalid");
  });

  it("refuses a line over 1 MiB before it is sent", async () => {
    const { client, received, nextRequests, reply } = pair();
    const data = Buffer.alloc(MAX_LINE_BYTES).toString("base64");
    const error = (await client.call("files.write", { path: "/work/big", data }).catch((e: unknown) => e)) as CallError;
    expect(error.kind).toBe("limit");
    expect(error.message).toMatch(/^files\.write: the request is \d+ bytes, over the protocol's 1 MiB line/);
    expect(received).toHaveLength(0);
    const after = client.call("ping", {});
    const [r] = await nextRequests(1);
    reply({ jsonrpc: "2.0", id: r!.id, result: {} });
    await expect(after).resolves.toEqual({});
  });

  it("sends $/cancelRequest on abort and settles the call as aborted", async () => {
    const { client, nextRequests, reply } = pair();
    const controller = new AbortController();
    const call = client.call("exec.run", { argv: ["sleep", "10"] }, { signal: controller.signal });
    const [r] = await nextRequests(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ kind: "aborted", message: "exec.run was aborted" });
    const [, cancel] = await nextRequests(2);
    expect(cancel).toEqual({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: r!.id } });
    // The daemon's late reply to the cancelled call is dropped.
    reply({ jsonrpc: "2.0", id: r!.id, error: { code: -32000, message: "aborted", data: { kind: "aborted" } } });
  });

  it("does not send a call whose signal already aborted", async () => {
    const { client, received } = pair();
    await expect(client.call("ping", {}, { signal: AbortSignal.abort() })).rejects.toMatchObject({ kind: "aborted" });
    expect(received).toHaveLength(0);
  });

  it("settles every call in flight on close(), and refuses calls after it", async () => {
    const { client, nextRequests } = pair();
    const a = client.call("ping", {});
    const b = client.call("hello", {});
    await nextRequests(2);
    await client.close();
    await expect(a).rejects.toMatchObject({ kind: "closed" });
    await expect(b).rejects.toMatchObject({ kind: "closed" });
    await expect(client.call("ping", {})).rejects.toMatchObject({ kind: "closed" });
    expect(client.isClosed).toBe(true);
  });

  it("settles calls in flight when the daemon's side ends", async () => {
    const { client, nextRequests, fromDaemon } = pair();
    const a = client.call("ping", {});
    await nextRequests(1);
    fromDaemon.end();
    await expect(a).rejects.toMatchObject({ kind: "closed", message: "ping got no reply: the connection to the daemon ended" });
    await expect(client.closed).resolves.toBe("the connection to the daemon ended");
  });

  it("says a broken pipe or a reset ended the connection, as its end does, with the cause; another error failed it", async () => {
    for (const [code, words] of [
      ["EPIPE", "the connection to the daemon ended (write EPIPE)"],
      ["ECONNRESET", "the connection to the daemon ended (write ECONNRESET)"],
      ["EACCES", "the connection to the daemon failed: write EACCES"],
    ] as const) {
      const { client, nextRequests, toDaemon } = pair();
      const a = client.call("ping", {});
      await nextRequests(1);
      toDaemon.destroy(Object.assign(new Error(`write ${code}`), { code }));
      await expect(a).rejects.toMatchObject({ kind: "closed", message: `ping got no reply: ${words}` });
      await expect(client.closed).resolves.toBe(words);
    }
  });

  it("ends the connection when the daemon sends a line over 1 MiB", async () => {
    const { client, nextRequests, fromDaemon } = pair();
    const a = client.call("ping", {});
    await nextRequests(1);
    fromDaemon.write(Buffer.alloc(MAX_LINE_BYTES + 10, 0x61));
    await expect(a).rejects.toMatchObject({ kind: "closed", message: "ping got no reply: the daemon sent a line over the protocol's 1 MiB" });
  });

  it("passes an unknown method through request() unchecked", async () => {
    const { client, nextRequests, reply } = pair();
    const call = client.request("no.such", { x: 1 });
    const [r] = await nextRequests(1);
    expect(r).toMatchObject({ method: "no.such", params: { x: 1 } });
    reply({ jsonrpc: "2.0", id: r!.id, error: { code: -32601, message: "no.such: no such method" } });
    await expect(call).rejects.toMatchObject({ kind: "unsupported", code: -32601 });
  });
});
