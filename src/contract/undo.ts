// One undo stack for whatever a step makes: each part is pushed as it is made, and on a failure
// or an abort every part is undone in reverse, each undo bounded and run whatever the caller's
// signal (a removal must finish). A step that succeeds keeps its parts.
import type { Result } from "../daemon/result.js";

/** The bound of an undo that names none. */
export const UNDO_MS = 30_000;

export interface UndoStep {
  /** The part in words ("the container computer-…"), for an undo that fails. */
  what: string;
  /** Undoes it; given a signal of the undo's own bound, never the caller's. A failed result is a failed undo. */
  run(signal: AbortSignal): Promise<Result<unknown> | void>;
  /** The undo's bound in ms (default UNDO_MS). */
  ms?: number;
  /** A failed undo in the vendor's words, given the failure's (default "undoing <what> failed: <words>"). */
  words?(failure: string): string;
}

export class Undo {
  readonly #steps: UndoStep[] = [];

  /** A part just made, to be undone if what follows fails. */
  push(step: UndoStep): void {
    this.#steps.push(step);
  }

  /** How many parts are held. */
  get size(): number {
    return this.#steps.length;
  }

  /** Forgets every part: they are handed out. */
  keep(): void {
    this.#steps.length = 0;
  }

  /**
   * Every part undone, the last made first, each within its bound; the stack is then empty.
   * Returns the words of each undo that failed or ran out, empty when every part was undone.
   */
  async run(): Promise<string[]> {
    const failed: string[] = [];
    while (this.#steps.length > 0) {
      const step = this.#steps.pop()!;
      const words = await undoOne(step);
      if (words !== undefined) failed.push(words);
    }
    return failed;
  }
}

/** One undo, raced against its bound so one that ignores its signal still ends; its failure in words. */
async function undoOne(step: UndoStep): Promise<string | undefined> {
  const ms = step.ms ?? UNDO_MS;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<string>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(`undoing ${step.what} did not finish within ${ms / 1000} s`);
    }, ms);
  });
  const done = (async () => {
    try {
      const result = await step.run(controller.signal);
      return result && !result.ok ? failedWords(step, result.error.message) : undefined;
    } catch (error) {
      return failedWords(step, error instanceof Error ? error.message : String(error));
    }
  })();
  try {
    return await Promise.race([done, bound]);
  } finally {
    clearTimeout(timer);
  }
}

function failedWords(step: UndoStep, failure: string): string {
  return step.words ? step.words(failure) : `undoing ${step.what} failed: ${failure}`;
}
