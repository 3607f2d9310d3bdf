// What every subcommand gets from the program: a signal that ^C aborts, and a way to take ^C over
// for the time a remote program runs (exec passes it on as INT).

export interface Context {
  signal: AbortSignal;
  /** While the handler is set, ^C calls it instead of aborting; the returned function lets go. */
  onInterrupt(handler: () => void): () => void;
}

/** A context tied to this process's SIGINT: first ^C aborts (or goes to the handler), a second one with nothing taken exits 130. */
export function processContext(): Context {
  const controller = new AbortController();
  let handler: (() => void) | undefined;
  process.on("SIGINT", () => {
    if (handler) return handler();
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write("interrupted: stopping (^C again to exit now)\n");
    controller.abort();
  });
  return {
    signal: controller.signal,
    onInterrupt(next) {
      handler = next;
      return () => {
        if (handler === next) handler = undefined;
      };
    },
  };
}
