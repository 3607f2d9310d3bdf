// A one-line byte counter on stderr while a copy runs, only when stderr is a terminal.

export interface Progress {
  add(bytes: number): void;
  done(): void;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

/** Counts bytes and redraws at most ten times a second; of total when known (a bar), else a count. */
export function progress(label: string, total?: number): Progress {
  const on = process.stderr.isTTY === true;
  let bytes = 0;
  let drawn = 0;
  const draw = () => {
    if (!on) return;
    const width = 24;
    const bar = total ? `[${"#".repeat(Math.round((width * Math.min(bytes, total)) / total)).padEnd(width, ".")}] ` : "";
    process.stderr.write(`\r${label} ${bar}${size(bytes)}${total ? ` of ${size(total)}` : ""}\x1b[K`);
  };
  return {
    add(n) {
      bytes += n;
      if (Date.now() - drawn > 100) {
        drawn = Date.now();
        draw();
      }
    },
    done() {
      draw();
      if (on) process.stderr.write("\n");
    },
  };
}
