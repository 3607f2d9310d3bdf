// The process helpers against a real computerd: a process followed with waitMs to its end, and
// the table listed page by page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputerClient } from "../../src/daemon/client.js";
import { listProcesses, readAll } from "../../src/daemon/processes.js";
import { startComputer, type TestComputer } from "../support/computerd.js";

let computer: TestComputer;
let client: ComputerClient;

beforeAll(async () => {
  computer = await startComputer("processes", { workMb: 64 });
  client = await computer.connect();
});
afterAll(async () => {
  await computer?.remove();
});

describe("processes helpers against computerd", () => {
  it("follows a process with waitMs to its end, and lists it", async () => {
    const started = await client.call("process.start", {
      argv: ["sh", "-c", "for i in 1 2 3 4 5; do echo line $i; sleep 0.3; done; echo done >&2; exit 4"],
    });
    expect(started.id).toMatch(/^p\d+$/);
    const t0 = Date.now();
    const out = await readAll(client, started.id, "stdout", { waitMs: 5000 });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(Buffer.from(out.value.data).toString()).toBe("line 1\nline 2\nline 3\nline 4\nline 5\n");
    expect(out.value.dropped).toBe(0);
    expect(out.value.nextOffset).toBe(35);
    expect(Date.now() - t0).toBeGreaterThan(1000);
    const err = await readAll(client, started.id, "stderr");
    expect(err.ok && Buffer.from(err.value.data).toString()).toBe("done\n");
    const waited = await client.call("process.wait", { id: started.id, timeoutMs: 5000 });
    expect(waited).toMatchObject({ running: false, exitCode: 4 });
    const listed = await listProcesses(client);
    expect(listed.ok).toBe(true);
    if (listed.ok) expect(listed.value.find((p) => p.id === started.id)).toMatchObject({ running: false, exitCode: 4, pty: false });
  });

  it("reads from an offset, and a process outlives the connection that started it", async () => {
    const other = await computer.connect();
    const started = await other.call("process.start", { argv: ["sh", "-c", "echo abcdef; sleep 1; echo ghi"] });
    await other.close();
    // An offset past what the stream holds is invalid, so wait for the first line's bytes first.
    const first = await client.call("process.read", { id: started.id, stream: "stdout", offset: 0, waitMs: 5000 });
    expect(Buffer.from(first.data, "base64").toString()).toBe("abcdef\n");
    const rest = await readAll(client, started.id, "stdout", { offset: 3 });
    expect(rest.ok && Buffer.from(rest.value.data).toString()).toBe("def\nghi\n");
  });
});
