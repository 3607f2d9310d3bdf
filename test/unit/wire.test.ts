// DaemonClient's line bytes: a long base64 field is copied rather than put through JSON, and the
// line means exactly what JSON.stringify and JSON.parse would have made of it, on either path.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isPlainBase64, parseLine, requestLine } from "../../src/daemon/wire.js";

const long = randomBytes(512 * 1024).toString("base64");
const viaJson = (id: number, method: string, params: unknown) => Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);

describe("isPlainBase64", () => {
  it("takes base64 of either alphabet, padded at its end", () => {
    for (const s of ["", "QUJD", "QUJDRA==", "QUJDREU=", "QU-_", long]) expect(isPlainBase64(s)).toBe(true);
  });

  it("refuses anything JSON would escape, and what is not base64", () => {
    for (const s of ['QUJ"', "QU\\D", "QU\nD", "QUJ\u0001", "QUJ\u0000", "QUJé", "QUJD\u2028AAA", "QU=D", "QQ==QUJD", "A===", "QUJ", "  QU"]) {
      expect(isPlainBase64(s), JSON.stringify(s)).toBe(false);
    }
  });
});

describe("requestLine", () => {
  it("copies a long base64 data field, and the line parses to the same request", () => {
    const params = { path: '/work/é "quoted"', offset: 524288, data: long, mode: 0o644 };
    const line = requestLine(7, "files.write", params);
    expect(line[line.length - 1]).toBe(10);
    expect(JSON.parse(line.toString("utf8"))).toEqual({ jsonrpc: "2.0", id: 7, method: "files.write", params });
    expect(line.length).toBe(viaJson(7, "files.write", params).length);
  });

  it("copies data as the only field", () => {
    const line = requestLine(1, "tar.push.write", { data: long });
    expect(JSON.parse(line.toString())).toEqual({ jsonrpc: "2.0", id: 1, method: "tar.push.write", params: { data: long } });
  });

  it("puts anything else through JSON: short data, data that needs escapes, no data, an object that is not plain", () => {
    const needsEscape = `${long.slice(0, 20000)}"\\\n${long.slice(0, 20000)}`;
    class Chunk {
      constructor(readonly data: string) {}
    }
    const withToJson = { data: long, toJSON: () => ({ data: "QUJD" }) };
    for (const params of [{ data: "QUJD" }, { data: needsEscape }, { argv: ["true"] }, {}, null, new Chunk(long), withToJson]) {
      expect(requestLine(3, "m", params).equals(viaJson(3, "m", params))).toBe(true);
    }
  });

  it("throws what JSON.stringify throws", () => {
    expect(() => requestLine(1, "m", { n: 1n })).toThrow(TypeError);
  });
});

describe("parseLine", () => {
  const reply = (result: unknown) => Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 12, result }));

  it("takes a long data-first result out of the line as it is", () => {
    const result = { data: long, eof: false, size: 123 };
    expect(parseLine(reply(result))).toEqual({ jsonrpc: "2.0", id: 12, result });
  });

  it("reads any other line as JSON: escapes in data, data not first, errors, short lines", () => {
    const escaped = `${long.slice(0, 20000)}"\\\u0001é${long.slice(0, 20000)}`;
    const lines = [
      reply({ data: escaped, eof: true, size: 1 }),
      reply({ eof: false, data: long }),
      Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: long, data: { kind: "invalid" } } })),
      reply({ data: "QUJD", eof: true, size: 3 }),
    ];
    for (const line of lines) expect(parseLine(line)).toEqual(JSON.parse(line.toString()));
  });

  it("throws SyntaxError on a line that is not JSON, on the fast path too", () => {
    expect(() => parseLine(Buffer.from("not json"))).toThrow(SyntaxError);
    expect(() => parseLine(Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"data":"${long}",}`))).toThrow(SyntaxError);
  });
});
