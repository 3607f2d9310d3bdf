// Docker's multiplexed stream as an attached exec without a TTY sends it: stdout passes through as
// bytes, stderr goes aside, whatever way the frames are cut into chunks.
import { describe, expect, it } from "vitest";
import { Frames, framesText } from "../../src/docker/frames.js";

function frame(stream: 1 | 2, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

async function through(chunks: Buffer[]): Promise<{ stdout: string; stderr: string }> {
  let stderr = "";
  const frames = new Frames((chunk) => (stderr += chunk.toString()));
  const out: Buffer[] = [];
  frames.on("data", (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve) => frames.on("end", resolve));
  for (const chunk of chunks) frames.write(chunk);
  frames.end();
  await ended;
  return { stdout: Buffer.concat(out).toString(), stderr };
}

const stream = Buffer.concat([frame(1, '{"id":1}\n'), frame(2, "a warning\n"), frame(1, ""), frame(1, '{"id":2}\n')]);

describe("Frames", () => {
  it("passes stdout through and sets stderr aside, in one chunk", async () => {
    expect(await through([stream])).toEqual({ stdout: '{"id":1}\n{"id":2}\n', stderr: "a warning\n" });
  });

  it("gives the same when every byte comes alone (headers and payloads split anywhere)", async () => {
    const bytes = [...stream].map((b) => Buffer.from([b]));
    expect(await through(bytes)).toEqual({ stdout: '{"id":1}\n{"id":2}\n', stderr: "a warning\n" });
  });

  it("gives the same cut at every point into two chunks", async () => {
    for (let at = 0; at <= stream.length; at += 1) {
      expect(await through([stream.subarray(0, at), stream.subarray(at)])).toEqual({ stdout: '{"id":1}\n{"id":2}\n', stderr: "a warning\n" });
    }
  });

  it("reads a whole reply (a container's logs) as text, both streams", () => {
    expect(framesText(stream)).toEqual({ stdout: '{"id":1}\n{"id":2}\n', stderr: "a warning\n" });
  });
});
