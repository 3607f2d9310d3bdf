// A body of zeros for the benches' large downloads: written in 1 MiB chunks as fast as the writable
// (a socket, an HTTP response) drains, then ended. It makes nothing to remove.
const chunk = Buffer.alloc(1024 * 1024);

/** Writes size bytes of zeros (a whole number of MiB) to out, then ends it. */
export function sendZeros(out, size) {
  let left = size / chunk.length;
  const pump = () => {
    while (left > 0) {
      left -= 1;
      if (!out.write(chunk)) return out.once("drain", pump);
    }
    out.end();
  };
  pump();
}
