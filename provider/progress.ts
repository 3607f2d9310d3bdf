// A wait a person should see the reason for, on the resource's line while `pulumi up` runs: what
// it waits for when it starts, then how long it has taken every few seconds. The lines are the
// engine's ephemeral status: shown while the step runs, not kept in its summary.

const EVERY_MS = 5_000;

/** Says a status line on the resource's line in the engine (Context.say). */
export type Say = (message: string) => void;

export interface Ticker {
  /** What is waited for now (a build's next step): said at once, and on every tick after. */
  now(detail: string): void;
  /** Ends the ticks, saying how it ended (done, unless said otherwise) and how long the whole wait took. */
  stop(ended?: string): void;
}

/** Says what, now and with its seconds every few seconds, until stop() (which says how long it took). */
export function ticker(say: Say, what: string): Ticker {
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  let detail = "";
  say(what);
  const every = setInterval(() => say(`${what}${detail}: ${seconds()} s`), EVERY_MS);
  return {
    now(next) {
      detail = `: ${next}`;
      say(`${what}${detail}`);
    },
    stop(ended = "done") {
      clearInterval(every);
      say(`${what}: ${ended} in ${seconds()} s`);
    },
  };
}

/** Runs work, saying what it waits for while it runs; with no say, just runs it. */
export async function whileWaiting<T>(say: Say | undefined, what: string, work: () => Promise<T>): Promise<T> {
  if (!say) return work();
  const waiting = ticker(say, what);
  try {
    return await work();
  } finally {
    waiting.stop();
  }
}
