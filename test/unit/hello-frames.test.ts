// helloWithin's ask for frames (docs/frames.md), against a peer on an in-memory stream pair: a
// daemon that takes them up, one from before frames that refuses the param, and a bridge that is
// not asked.
import { PassThrough } from "node:stream";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { DaemonClient } from "../../src/daemon/client.js";
import { helloWithin } from "../../src/daemon/hello.js";
import { boundedBy } from "../../src/daemon/bound.js";

const HELLO = { version: "0.1.0", os: "linux", kind: "linux", arch: "amd64", groups: ["exec", "files", "processes"] };

/** A peer that answers each hello with answer(params), and keeps every hello's params. */
function peer(answer: (params: Record<string, unknown>) => unknown) {
  const toDaemon = new PassThrough();
  const fromDaemon = new PassThrough();
  const client = new DaemonClient({ readable: fromDaemon, writable: toDaemon });
  const asked: Array<Record<string, unknown>> = [];
  createInterface({ input: toDaemon }).on("line", (line) => {
    const { id, params } = JSON.parse(line) as { id: number; params: Record<string, unknown> };
    asked.push(params);
    fromDaemon.write(`${JSON.stringify({ jsonrpc: "2.0", id, ...(answer(params) as object) })}\n`);
  });
  const hello = (frames: boolean) =>
    helloWithin({ client, who: "t", target: "c", bounded: boundedBy(5_000), boundMs: 5_000, close: () => client.close(), frames });
  return { client, asked, hello };
}

describe("helloWithin and frames", () => {
  it("takes frames up when the daemon does, and gives the spec's hello", async () => {
    const { client, asked, hello } = peer((p) => ({ result: { ...HELLO, ...(p.frames ? { frames: 1 } : {}) } }));
    const said = await hello(true);
    expect(said).toEqual({ ok: true, value: HELLO });
    expect(asked).toEqual([{ client: "t", frames: 1 }]);
    expect(client.framed).toBe(true);
    await client.close();
  });

  it("asks again as the spec does when a daemon from before frames refuses the param", async () => {
    const { client, asked, hello } = peer((p) =>
      p.frames ? { error: { code: -32602, message: 'invalid params: json: unknown field "frames"', data: { kind: "invalid" } } } : { result: HELLO },
    );
    expect(await hello(true)).toEqual({ ok: true, value: HELLO });
    expect(asked).toEqual([{ client: "t", frames: 1 }, { client: "t" }]);
    expect(client.framed).toBe(false);
    await client.close();
  });

  it("never asks over a bridge that carries text", async () => {
    const { client, asked, hello } = peer(() => ({ result: HELLO }));
    expect(await hello(false)).toEqual({ ok: true, value: HELLO });
    expect(asked).toEqual([{ client: "t" }]);
    expect(client.framed).toBe(false);
    await client.close();
  });
});
