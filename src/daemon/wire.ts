// The bytes of DaemonClient's lines. One field makes a line long: base64 data, up to 700 KB of
// it. JSON.stringify and JSON.parse walk such a string character by character, several times
// the cost of the base64 itself; base64 needs no escape in JSON, so a long field that is plain
// base64 is copied into a request, and out of a reply, as bytes. Anything else, and any line
// that is not in the expected shape, goes through JSON whole.
import { MAX_LINE_BYTES } from "./protocol.js";

/** Shorter fields go through JSON as they are: the copy pays off only on long lines. */
const LONG_FIELD = 16 * 1024;
/** Where a field is decoded to check it: as large as any base64 field of a 1 MiB line. */
const scratch = Buffer.allocUnsafe((MAX_LINE_BYTES / 4) * 3);

/**
 * True when s is base64 of the standard or URL alphabet, padded at its end only: characters no
 * JSON string escapes. Node's decoder skips any other character, so it then writes fewer bytes
 * than the length promises.
 */
export function isPlainBase64(s: string): boolean {
  if (s.length % 4 !== 0 || (s.length / 4) * 3 > scratch.length) return false;
  const padding = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0;
  return scratch.write(s, 0, "base64") === (s.length / 4) * 3 - padding;
}

/** A request line, newline included. Throws what JSON.stringify throws (a cycle, a BigInt). */
export function requestLine(id: number, method: string, params: unknown): Buffer {
  const data = (params as { data?: unknown } | null)?.data;
  if (typeof data !== "string" || data.length < LONG_FIELD || !isPlainObject(params) || !isPlainBase64(data)) {
    return Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  }
  const { data: _, ...rest } = params as { data: string };
  const fields = JSON.stringify(rest);
  const head = Buffer.from(
    `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${fields.slice(0, -1)}${fields === "{}" ? "" : ","}"data":"`,
  );
  const line = Buffer.allocUnsafe(head.length + data.length + 4);
  head.copy(line);
  line.write(data, head.length, "latin1");
  line.write('"}}\n', head.length + data.length, "latin1");
  return line;
}

/** An object JSON.stringify writes member by member: no prototype of its own, no toJSON. */
function isPlainObject(value: unknown): boolean {
  if (typeof value !== "object" || value === null || "toJSON" in value) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// A reply whose result opens with its data, as computerd writes files.read, tar.pull.read and
// process.read.
const DATA_FIRST = /^\{"jsonrpc":"2\.0","id":\d+,"result":\{"data":"/;

/** A reply line (no newline) as JSON. Throws SyntaxError when it is not JSON. */
export function parseLine(line: Buffer): unknown {
  if (line.length >= LONG_FIELD) {
    const open = DATA_FIRST.exec(line.toString("latin1", 0, 64));
    if (open) {
      const start = open[0].length;
      // The string ends at the first quote when it holds no backslash, the only escape.
      const end = line.indexOf(0x22, start);
      if (end > 0 && line.subarray(start, end).indexOf(0x5c) < 0) {
        const reply = JSON.parse(line.toString("utf8", 0, start) + line.toString("utf8", end)) as { result: { data: string } };
        reply.result.data = line.toString("utf8", start, end);
        return reply;
      }
    }
  }
  return JSON.parse(line.toString("utf8"));
}
