// A file's bytes in chunks, for a push: each in memory of its own (a stream's 512 KiB reads), or
// lent: read into two buffers in turn (1 MiB, or the file's size if smaller), each filled again
// once the chunk after next is asked for. A lent read allocates nothing per chunk: the 150 MiB of
// fresh buffers a load of that size took made V8 run major collections for their external memory,
// a third of the loading process's CPU (bench/README.md).
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";

const FRESH_BYTES = 512 * 1024;
const LENT_BYTES = 1024 * 1024;

/** size: the file's as last seen, which sizes the lent buffers alone; the file is read to its end whatever it is. */
export async function* fileChunks(path: string, size: number, lent: boolean): AsyncGenerator<Uint8Array> {
  if (!lent) return yield* createReadStream(path, { highWaterMark: FRESH_BYTES });
  const file = await open(path, "r");
  try {
    const length = Math.max(1, Math.min(LENT_BYTES, size));
    const buffers: Buffer[] = [];
    for (let turn = 0; ; turn ^= 1) {
      // The second buffer only once a second read comes (a small file's end is found in it).
      const buffer = (buffers[turn] ??= Buffer.allocUnsafeSlow(length));
      const { bytesRead } = await file.read(buffer, 0, length, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await file.close();
  }
}
