// agentrun shell <name>: an interactive terminal in a computer through process.start with a pty.
// Raw mode here, so every key (^C among them) reaches the remote terminal, whose driver sends INT
// to its foreground group; a window resize here is process.resize there; the exit code is the shell's.
import type { Command } from "commander";
import type { ComputerClient } from "../daemon/client.js";
import { withConnection } from "./computer.js";
import type { Context } from "./context.js";
import { exitOf, follow } from "./follow.js";
import { providerOf, type ProviderFlags, withProviderOptions } from "./settings.js";

interface ShellFlags extends ProviderFlags {
  user?: string;
  cwd?: string;
}

/** bash when the image has it, else sh; a login shell, so the image's profile sets the prompt. */
const SHELL = ["/bin/sh", "-c", "if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi"];
/** The terminal type the remote programs are told: a common one every terminfo knows. */
const TERM = "xterm-256color";

/** Keys to the remote terminal in order, one write at a time (writes to one process take turns). */
function writer(client: ComputerClient, id: string): (bytes: Buffer) => void {
  let chain = Promise.resolve();
  return (bytes) => {
    chain = chain
      .then(() => client.call("process.write", { id, data: bytes.toString("base64") }))
      .then(
        () => undefined,
        () => undefined,
      );
  };
}

export function shellCommand(program: Command, context: Context): Command {
  const command = program
    .command("shell")
    .description("an interactive terminal in a computer (exits with the shell's code)")
    .argument("<name>", "the computer, as `agentrun ls` names it")
    .option("--user <uid[:gid]>", "the shell's user (default: the computer's)")
    .option("--cwd <path>", "the directory it starts in (default: the computer's)");
  withProviderOptions(command);
  return command.action(async (name: string, flags: ShellFlags) => {
    const { signal } = context;
    const provider = await providerOf(flags, "shell", signal);
    process.exitCode = await withConnection(provider, name, signal, async ({ client }) => {
      const size = () => ({ cols: process.stdout.columns || 80, rows: process.stdout.rows || 24 });
      const started = await client.call(
        "process.start",
        {
          argv: SHELL,
          pty: size(),
          env: { TERM },
          ...(flags.cwd ? { cwd: flags.cwd } : {}),
          ...(flags.user ? { user: flags.user } : {}),
        },
        { signal },
      );
      const write = writer(client, started.id);
      const stdin = process.stdin;
      const raw = stdin.isTTY === true;
      const onData = (bytes: Buffer) => write(bytes);
      // Not a terminal here (a pipe): its end is the terminal's end of input.
      const onEnd = () => write(Buffer.from("\x04"));
      const onResize = () => void client.call("process.resize", { id: started.id, ...size() }).catch(() => undefined);
      // A ^C that reaches this process (not in raw mode) goes to the remote terminal as its ^C.
      const release = context.onInterrupt(() => write(Buffer.from("\x03")));
      if (raw) stdin.setRawMode(true);
      stdin.on("data", onData);
      stdin.on("end", onEnd);
      stdin.resume();
      process.stdout.on("resize", onResize);
      try {
        await follow(client, started.id, "pty", process.stdout, signal);
        return await exitOf(client, started.id, signal);
      } finally {
        release();
        process.stdout.off("resize", onResize);
        stdin.off("data", onData);
        stdin.off("end", onEnd);
        if (raw) stdin.setRawMode(false);
        stdin.pause();
      }
    });
  });
}
