// The session bridge's framing: Daytona's 01 01 01 / 02 02 02 prefixes in split, joined and cut
// WebSocket messages, whole lines out, echoed requests dropped, input sent a whole line a call.
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { wire } from "../../src/daytona/bridge.js";
import { SplitOutput } from "../../src/daytona/framing.js";
import { ok } from "../../src/daemon/result.js";

const OUT = "\x01\x01\x01";
const ERR = "\x02\x02\x02";
const b = (s: string) => Buffer.from(s, "latin1");

function read(chunks: string[]) {
  const split = new SplitOutput();
  const pieces = [...chunks.flatMap((c) => split.push(b(c))), ...split.end()];
  const join = (stream: string) =>
    pieces
      .filter((p) => p.stream === stream)
      .map((p) => p.data.toString("latin1"))
      .join("");
  return { stdout: join("stdout"), stderr: join("stderr") };
}

describe("SplitOutput", () => {
  it("reads joined frames: several prefixed lines in one message", () => {
    expect(read([`${OUT}{"a":1}\n${ERR}oops\n${OUT}{"b":2}\n`])).toEqual({ stdout: '{"a":1}\n{"b":2}\n', stderr: "oops\n" });
  });

  it("reads split frames: one line across messages", () => {
    expect(read([`${OUT}{"a"`, ":1}", "\n"])).toEqual({ stdout: '{"a":1}\n', stderr: "" });
  });

  it("reads a prefix cut across two messages, at every cut", () => {
    const whole = `${OUT}one\n${ERR}two\n${OUT}three\n`;
    for (let at = 0; at <= whole.length; at += 1) {
      expect(read([whole.slice(0, at), whole.slice(at)])).toEqual({ stdout: "one\nthree\n", stderr: "two\n" });
    }
    expect(read([`${OUT}a\n\x02`, "\x02", `\x02b\n`])).toEqual({ stdout: "a\n", stderr: "b\n" });
  });

  it("keeps a lone 01 or 02 that no prefix follows as data", () => {
    expect(read([`${OUT}x\x01y\n`, "\x01"])).toEqual({ stdout: "x\x01y\n\x01", stderr: "" });
  });
});

class FakeSocket extends EventEmitter {
  closed = false;
  close() {
    this.closed = true;
    this.emit("close");
  }
}

describe("the bridge's wiring", () => {
  it("hands whole stdout lines on, drops an echoed request, and sends each input line in its own call, in order", async () => {
    const socket = new FakeSocket();
    const sent: string[] = [];
    let ended = false;
    const bridge = wire(
      socket as never,
      async (line) => (sent.push(line), ok()),
      async () => void (ended = true),
    );
    const got: string[] = [];
    bridge.readable.on("data", (d: Buffer) => got.push(d.toString()));
    socket.emit("message", b(`${OUT}{"jsonrpc":"2.0","id":1,"method":"hello"}\n${OUT}{"jsonrpc":"2.0","id":1,`));
    socket.emit("message", b(`"result":{}}\n${ERR}a warning\n`));
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}\n']);
    expect(bridge.stderr()).toBe("a warning\n");
    await new Promise<void>((r) => bridge.writable.write('{"id":1}\n{"id":2}\n{"id', () => r()));
    await new Promise<void>((r) => bridge.writable.end('":3}\n', () => r()));
    expect(sent).toEqual(['{"id":1}\n', '{"id":2}\n', '{"id":3}\n']);
    expect(ended).toBe(true);
    socket.close();
    await new Promise((r) => setImmediate(r));
    expect(bridge.readable.readableEnded || bridge.readable.destroyed || bridge.readable.readableLength === 0).toBe(true);
  });
});
