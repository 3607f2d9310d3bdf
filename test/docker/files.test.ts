// The file helpers against a real computerd: whole files in chunks, and a 50 MiB tree through a
// pull piped into a push on one connection; every push and pull that began is ended. Each case
// runs twice: as frames (the provider's connection asks for them), and as the spec's lines (the same
// connection seen through a client that never took frames up).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputerClient } from "../../src/daemon/client.js";
import { pullTar, pullTarStream, pushTar, readFile, writeFile } from "../../src/daemon/files.js";
import { MAX_CHUNK_BYTES, MAX_OPEN_TARS } from "../../src/daemon/protocol.js";
import { sh, startComputer, type TestComputer } from "../support/computerd.js";

let computer: TestComputer;
let framed: ComputerClient;
let client: ComputerClient;

beforeAll(async () => {
  computer = await startComputer("files", { workMb: 400 });
  framed = await computer.connect();
});
afterAll(async () => {
  await computer?.remove();
});

/** The connection as a client that never asked for frames sees it: call, request and close alone. */
const linesOnly = (c: ComputerClient): ComputerClient => ({ call: c.call.bind(c), request: c.request.bind(c), close: c.close.bind(c) });

describe.each([
  ["as frames", () => framed],
  ["as the spec's lines", () => linesOnly(framed)],
])("files helpers against computerd, %s", (how, clientOf) => {
  beforeAll(async () => {
    client = clientOf();
    expect(client.framed === true).toBe(how === "as frames");
    await sh(client, "cd /work && rm -rf files tree copy small small-copy in-the-way aborted");
  });

  it("writes and reads back a file over 512 KiB, read-only by the mode on its last chunk", async () => {
    const bytes = new Uint8Array(3 * MAX_CHUNK_BYTES + 12_345).map((_, i) => (i * 7 + (i >> 11)) & 0xff);
    const written = await writeFile(client, "/work/files/ro.bin", bytes, { mode: 0o444, parents: true });
    expect(written).toEqual({ ok: true, value: { size: bytes.length } });
    const stat = await client.call("files.stat", { path: "/work/files/ro.bin" });
    expect(stat).toMatchObject({ type: "file", size: bytes.length, mode: 0o444 });
    const read = await readFile(client, "/work/files/ro.bin");
    expect(read.ok).toBe(true);
    if (read.ok) expect(Buffer.compare(Buffer.from(read.value), Buffer.from(bytes))).toBe(0);
    expect(await sh(client, "sha256sum < /work/files/ro.bin | cut -c1-64")).toBe(
      `${(await import("node:crypto")).createHash("sha256").update(bytes).digest("hex")}\n`,
    );
  });

  it("writes and reads an empty file and one of exactly one chunk", async () => {
    expect(await writeFile(client, "/work/files/empty", new Uint8Array())).toEqual({ ok: true, value: { size: 0 } });
    expect(await readFile(client, "/work/files/empty")).toEqual({ ok: true, value: new Uint8Array() });
    const chunk = new Uint8Array(MAX_CHUNK_BYTES).fill(7);
    expect(await writeFile(client, "/work/files/one", chunk)).toEqual({ ok: true, value: { size: MAX_CHUNK_BYTES } });
    const read = await readFile(client, "/work/files/one");
    expect(read.ok && read.value.length).toBe(MAX_CHUNK_BYTES);
  });

  it("gives a failure as a result with the daemon's kind", async () => {
    expect(await readFile(client, "/work/files/missing")).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(await writeFile(client, "/proc/no/such/dir/f", new Uint8Array(1))).toMatchObject({ ok: false });
  });

  it("copies a 50 MiB tree with pushTar(client, dir, pullTarStream(client, path).chunks) on one connection", async () => {
    // 200 files of 256 KiB in 10 directories, random bytes, a symlink and modes to keep.
    await sh(
      client,
      `set -e; mkdir -p /work/tree; cd /work/tree
       for d in $(seq 0 9); do mkdir -p d$d; for f in $(seq 0 19); do head -c 262144 /dev/urandom > d$d/f$f; done; done
       chmod 0750 d3; chmod 0600 d4/f1; ln -s d0/f0 link`,
    );
    const { chunks, done } = pullTarStream(client, "/work/tree");
    const pushed = await pushTar(client, "/work/copy", chunks);
    expect(pushed.ok).toBe(true);
    if (pushed.ok) expect(pushed.value.entries).toBeGreaterThanOrEqual(211);
    const pulled = await done;
    expect(pulled.ok).toBe(true);
    if (pulled.ok) expect(pulled.value.bytes).toBeGreaterThan(50 * 1024 * 1024);
    const listing = "find . -printf '%p %y %m %l\\n' | sort; find . -type f -exec sha256sum {} + | sort";
    const original = await sh(client, `cd /work/tree && { ${listing}; }`);
    const copy = await sh(client, `cd /work/copy && { ${listing}; }`);
    expect(copy).toBe(original);
    expect(original).toContain("./link l 777 d0/f0");
    expect(original).toContain("./d3 d 750");
    await sh(client, "rm -rf /work/copy");
  }, 180_000);

  it("pulls a tree into memory and pushes it back from bytes", async () => {
    await sh(client, "mkdir -p /work/small/a && echo hello > /work/small/a/b");
    const archive = await pullTar(client, "/work/small");
    expect(archive.ok).toBe(true);
    if (!archive.ok) return;
    expect(await pushTar(client, "/work/small-copy", archive.value)).toMatchObject({ ok: true });
    expect(await sh(client, "cat /work/small-copy/a/b")).toBe("hello\n");
  });

  it("ends a pull its consumer left early, so the connection's 8 pulls are never used up", async () => {
    for (let i = 0; i < MAX_OPEN_TARS + 2; i++) {
      const { chunks, done } = pullTarStream(client, "/work/tree");
      for await (const chunk of chunks) {
        expect(chunk.length).toBeGreaterThan(0);
        break;
      }
      const ended = await done;
      expect(ended).toMatchObject({ ok: false, error: { code: "aborted" } });
      if (!ended.ok) expect(ended.error.message).toMatch(/^the pull of \/work\/tree was left before its end, after \d+ bytes$/);
    }
  });

  it("ends the pull piped into a push that fails", async () => {
    // A file where the tree has its directory d0: the push begins, then refuses that entry,
    // and, owning its source, ends the pull it was fed from.
    await sh(client, "mkdir -p /work/in-the-way && echo x > /work/in-the-way/d0");
    for (let i = 0; i < MAX_OPEN_TARS + 2; i++) {
      const { chunks, done } = pullTarStream(client, "/work/tree");
      const pushed = await pushTar(client, "/work/in-the-way", chunks);
      expect(pushed.ok).toBe(false);
      const pulled = await done;
      expect(pulled).toMatchObject({ ok: false, error: { code: "aborted" } });
      if (!pulled.ok) expect(pulled.error.message).toMatch(/after [1-9]\d* bytes$/);
    }
    expect((await pullTar(client, "/work/small")).ok).toBe(true);
  });

  it("ends a push whose source fails, and reports the source's failure", async () => {
    async function* broken() {
      yield new Uint8Array(1024);
      throw new Error("the source broke");
    }
    for (let i = 0; i < MAX_OPEN_TARS + 2; i++) {
      expect(await pushTar(client, "/work/broken", broken())).toEqual({ ok: false, error: { code: "failed", message: "the source broke" } });
    }
  });

  it("aborts a pull and a push on the caller's signal", async () => {
    const controller = new AbortController();
    const { chunks, done } = pullTarStream(client, "/work/tree", { signal: controller.signal });
    let n = 0;
    const pushing = pushTar(
      client,
      "/work/aborted",
      (async function* () {
        for await (const chunk of chunks) {
          if (++n === 3) controller.abort();
          yield chunk;
        }
      })(),
      { signal: controller.signal },
    );
    expect(await pushing).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(await done).toMatchObject({ ok: false, error: { code: "aborted" } });
    await expect(client.call("ping", {})).resolves.toEqual({});
  });
});
