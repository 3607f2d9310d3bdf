// The command's exit codes and its one refusal type: words for the person at the terminal, and
// the code a script reads.

/** 0 done, 1 a call failed, 2 usage (a bad flag, an unknown computer), 124 a timeout, as timeout(1). */
export const EXIT = { ok: 0, failed: 1, usage: 2, timeout: 124 } as const;

/** A refusal the command prints as it is (no stack) and exits on. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    readonly exitCode: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A usage refusal: exit 2, with where to read more. */
export function usageError(message: string, command: string): CliError {
  return new CliError(EXIT.usage, `${message}\n(see \`agentrun ${command} --help\`)`);
}

/** A failed library result as a refusal, its code beside its words. */
export function failed(what: string, error: { code: string; message: string }): CliError {
  return new CliError(EXIT.failed, `${what} (${error.code}): ${error.message}`);
}
