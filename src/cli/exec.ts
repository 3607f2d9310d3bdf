// agentrun exec <name> [--user] [--cwd] [--env K=V] [--timeout s] -- <argv>: a program run through
// computerd (process.start, so its output streams as it comes), exiting with the program's code.
import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { withConnection } from "./computer.js";
import type { Context } from "./context.js";
import { EXIT } from "./errors.js";
import { exitOf, feed, follow } from "./follow.js";
import { collect, pairs, providerOf, type ProviderFlags, withProviderOptions } from "./settings.js";

interface ExecFlags extends ProviderFlags {
  user?: string;
  cwd?: string;
  env?: string[];
  timeout?: number;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n > 0) || n > 86_400) throw new InvalidArgumentError("give seconds, above 0 and at most a day (86400)");
  return n;
}

export function execCommand(program: Command, context: Context): Command {
  const { signal } = context;
  const command = program
    .command("exec")
    .description("run a program in a computer through its daemon; exits with the program's code (124 on --timeout)")
    .argument("<name>", "the computer, as `agentrun ls` names it")
    .argument("<argv...>", "the program and its arguments (after --)")
    .option("--user <uid[:gid]>", "run as this user (default: the computer's)")
    .option("--cwd <path>", "the working directory (default: the computer's)")
    .option("--env <K=V>", "an environment variable (repeatable)", collect)
    .option("--timeout <seconds>", "kill the program after this long and exit 124", seconds)
    .addHelpText("after", "\nExample:\n  agentrun exec computer-0123456789ab -- sh -c 'echo hi; exit 3'   # prints hi, exits 3");
  withProviderOptions(command);
  return command.action(async (name: string, argv: string[], flags: ExecFlags) => {
    const env = pairs(flags.env, "--env", "exec");
    const provider = await providerOf(flags, "exec", signal);
    // A pipe or a file on stdin is the program's stdin; a terminal is not read (use shell for that).
    const piped = process.stdin.isTTY !== true;
    process.exitCode = await withConnection(provider, name, signal, async ({ client }) => {
      const started = await client.call(
        "process.start",
        {
          argv,
          stdin: piped,
          ...(flags.cwd ? { cwd: flags.cwd } : {}),
          ...(flags.user ? { user: flags.user } : {}),
          ...(Object.keys(env).length > 0 ? { env } : {}),
        },
        { signal },
      );
      let timedOut = false;
      const timer =
        flags.timeout === undefined
          ? undefined
          : setTimeout(() => {
              timedOut = true;
              void client.call("process.signal", { id: started.id, signal: "KILL" }).catch(() => undefined);
            }, flags.timeout * 1000);
      // ^C here is ^C there: the program gets INT and the command exits as it does.
      const release = context.onInterrupt(() => void client.call("process.signal", { id: started.id, signal: "INT" }).catch(() => undefined));
      if (piped) void feed(client, started.id, process.stdin, signal);
      try {
        await Promise.all([follow(client, started.id, "stdout", process.stdout, signal), follow(client, started.id, "stderr", process.stderr, signal)]);
        const code = await exitOf(client, started.id, signal);
        if (!timedOut) return code;
        // 124 alone says nothing to a person: the stop is said on stderr, apart from the program's own output.
        process.stderr.write(`agentrun: ${argv[0] ?? "the program"} was killed after --timeout ${flags.timeout} s\n`);
        return EXIT.timeout;
      } finally {
        clearTimeout(timer);
        release();
        // The program has ended: what is still coming on stdin has nowhere to go.
        if (piped) process.stdin.destroy();
      }
    });
  });
}
