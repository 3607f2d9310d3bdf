// agentrun conformance ...: the conformance CLI itself (src/conformance/cli.ts), its flags, words
// and exit codes unchanged; `agentrun conformance --help` is its usage.
import type { Command } from "commander";

export function conformanceCommand(program: Command): Command {
  return program
    .command("conformance")
    .description("run the conformance suite against a provider (as `npm run conformance`; --help for its flags)")
    .argument("[args...]", "the conformance CLI's flags: --provider <id | ./module.js> [--image] [--only] [--kind] [--fixture] [--json]")
    .helpOption(false)
    .allowUnknownOption()
    .passThroughOptions()
    .action(async (args: string[]) => {
      // Loaded only here: the suite is large, and the other subcommands never need it.
      const { command } = await import("../conformance/cli.js");
      await command(args);
    });
}
