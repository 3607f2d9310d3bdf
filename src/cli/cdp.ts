// agentrun cdp <name>: a browser's CDP URL, asked of its vendor now (it is a secret, kept in no
// state), printed for a driver to dial. Piped, or to a terminal only with --reveal. A browser we
// run (Docker's, Kubernetes') has its URL served by this process through its connection: the
// command then serves it until it is interrupted, and says so on stderr.
import type { Command } from "commander";
import { withConnection } from "./computer.js";
import type { Context } from "./context.js";
import { CliError, EXIT, usageError } from "./errors.js";
import { providerOf, type ProviderFlags, withProviderOptions } from "./settings.js";

export function cdpCommand(program: Command, context: Context): Command {
  const command = program
    .command("cdp")
    .description("print a browser's CDP URL, asked of its vendor now (a secret: piped, or on a terminal with --reveal)")
    .argument("<name>", "the browser, as `agentrun ls` names it")
    .option("--reveal", "print it on this terminal too (anyone who sees it can drive the browser)")
    .addHelpText("after", "\nExample:\n  agentrun cdp computer-0123456789ab --provider browserbase --stack dev | xargs my-driver --cdp");
  withProviderOptions(command);
  return command.action(async (name: string, flags: ProviderFlags & { reveal?: boolean }) => {
    if (process.stdout.isTTY === true && !flags.reveal) {
      throw usageError("a CDP URL is a secret, so it is not printed on a terminal: pipe it to the program that dials it, or add --reveal", "cdp");
    }
    const provider = await providerOf(flags, "cdp", context.signal);
    await withConnection(provider, name, context.signal, async ({ cdp }) => {
      if (!cdp)
        throw new CliError(
          EXIT.failed,
          `${name} is not a browser: its connection has no CDP URL (\`agentrun exec\` and \`agentrun shell\` reach a computer's daemon)`,
        );
      process.stdout.write(`${cdp.url}\n`);
      if (!cdp.servedHere) return;
      process.stderr.write(`serving ${name}'s CDP on this machine's loopback until interrupted (Ctrl-C): the URL answers only while this runs\n`);
      // ^C (or a TERM) ends the serving, and the connection closes as usual (the relay with it).
      await new Promise<void>((resolve) => {
        const done = () => {
          release();
          process.off("SIGTERM", done);
          resolve();
        };
        const release = context.onInterrupt(done);
        process.once("SIGTERM", done);
        if (context.signal.aborted) done();
      });
    });
  });
}
