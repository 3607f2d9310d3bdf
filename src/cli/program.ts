#!/usr/bin/env node
// agentrun: a person's way into the computers, through the library's public surface alone (the
// registry, the provider interface, the client, the janitor). Usage errors exit 2 in words.
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { Command, CommanderError } from "commander";
import { cdpCommand } from "./cdp.js";
import { conformanceCommand } from "./conformance.js";
import { type Context, processContext } from "./context.js";
import { cpCommand } from "./cp.js";
import { doctorCommand } from "./doctor.js";
import { CliError, EXIT } from "./errors.js";
import { execCommand } from "./exec.js";
import { lsCommand } from "./ls.js";
import { closeProviders } from "./settings.js";
import { shellCommand } from "./shell.js";
import { sweepCommand } from "./sweep.js";
import { uiCommand } from "./ui/command.js";

/** The program with every subcommand; errors are thrown (exitOverride), never exits of its own. */
export function program(context: Context): Command {
  const root = new Command("agentrun")
    .description("declarative computers for AI agents: list them, run in them, copy to and from them")
    .enablePositionalOptions()
    .showHelpAfterError("(add --help for usage)")
    .exitOverride()
    .addHelpText(
      "after",
      "\nExit codes: 0 done, 1 a call failed, 2 usage (a bad flag, an unknown computer); exec exits with the program's code, 124 on --timeout.\n" +
        "Settings: --provider and --set key=value, or --stack <name> for a stack's agentrun: config; never the environment.",
    );
  lsCommand(root, context);
  execCommand(root, context);
  shellCommand(root, context);
  cpCommand(root, context);
  cdpCommand(root, context);
  sweepCommand(root, context);
  doctorCommand(root, context);
  uiCommand(root, context);
  conformanceCommand(root);
  for (const sub of root.commands) sub.exitOverride().showHelpAfterError(`(see \`agentrun ${sub.name()} --help\`)`);
  return root;
}

/** Runs argv (after node and the script); the exit code. */
export async function run(argv: string[], context: Context): Promise<number> {
  process.exitCode = EXIT.ok;
  try {
    await program(context).parseAsync(argv, { from: "user" });
    return Number(process.exitCode ?? EXIT.ok);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed its words (and the hint); help and version are no failure.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof CliError) {
      process.stderr.write(`agentrun: ${error.message}\n`);
      return error.exitCode;
    }
    const words = error instanceof Error ? error.message : String(error);
    process.stderr.write(`agentrun: ${context.signal.aborted ? "interrupted" : words}\n`);
    return context.signal.aborted ? 130 : EXIT.failed;
  } finally {
    await closeProviders();
  }
}

// Run as the bin (npm links it, so the path is resolved), not when imported.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const code = await run(process.argv.slice(2), processContext());
  // Exits once the output is out, whatever still holds the event loop (a daemon's bridge).
  process.stdout.write("", () => process.exit(code));
}
