// agentrun ui: the fleet as one local page (this machine's loopback alone, a secret in the URL it
// prints), current on its own, with live screens and each computer's page. It runs until
// ^C or SIGTERM, then ends with nothing left: the page's connections, the screens' connections
// and watches, the fleet's reads (the program's end closes the providers).
import { spawn } from "node:child_process";
import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { secretValues } from "../../registry/settings.js";
import { everyOwn } from "../computer.js";
import type { Context } from "../context.js";
import { chosenOf, collect, pairs, providerFrom, type ProviderFlags, withProviderOptions } from "../settings.js";
import { type StackState, stackComputers } from "../stack-config.js";
import type { Declared } from "./details.js";
import { bounded } from "../bounds.js";
import { api, EventStreams } from "./api.js";
import { Screens } from "./screens.js";
import { byResource, secretLabelsOf } from "./fleet.js";
import { hider, newSecret } from "./secret.js";
import { serve } from "./server.js";
import { FleetWatch, FULL_READ_PACES } from "./watch.js";

interface UiFlags extends ProviderFlags {
  label?: string[];
  port: number;
  every: number;
  open?: boolean;
  control?: boolean;
}

/** How long the stop waits for a read or a connection in flight before it lets go anyway. */
const STOP_BOUND_MS = 5_000;

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > 65_535) throw new InvalidArgumentError("give a port from 0 (any free one) to 65535");
  return n;
}

function every(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n >= 1) || n > 3_600) throw new InvalidArgumentError("give seconds, from 1 to an hour (3600)");
  return n;
}

/** The stack's secret labels are read again no more often than this (a Pulumi CLI run each). */
const SECRET_LABELS_MS = 60_000;

/**
 * With --stack, the stack's state (`pulumi stack export`), read when asked and no more often than
 * the age asked for: a computer's page asks for one a pace old at most, the tiles (for the labels
 * the stack declares secret) for one a minute old, read in the background.
 */
function stackReader(flags: UiFlags, signal: AbortSignal) {
  const stack = flags.stack!;
  const source = { stack, cwd: process.cwd(), ...(flags.backend ? { backend: flags.backend } : {}) };
  let read: { at: number; computers: Promise<StackState> } | undefined;
  let known: StackState | undefined;
  const fresh = (maxAgeMs: number) => {
    if (!read || Date.now() - read.at > maxAgeMs) {
      const computers = stackComputers(source, bounded(signal));
      read = { at: Date.now(), computers };
      computers.then(
        (c) => (known = c),
        () => (read = read?.computers === computers ? undefined : read),
      );
    }
    return read.computers;
  };
  return {
    /** A computer as the stack declares it, for its page. */
    async declared(name: string, maxAgeMs: number): Promise<Declared> {
      try {
        return { stack, computer: (await fresh(maxAgeMs)).computers.get(name) };
      } catch (error) {
        return { stack, error: error instanceof Error ? error.message.split("\n")[0]! : String(error) };
      }
    },
    /** The labels the stack declares secret on a computer, as last read (a read begun when that is old). */
    secretLabels(name: string): Set<string> {
      void fresh(SECRET_LABELS_MS).catch(() => undefined);
      return secretLabelsOf(known?.computers.get(name)?.inputs);
    },
    /** The tiles by the stack's resource that made each, as last read. */
    grouping: byResource(stack, () => known),
    /** Waits for the first read, whatever it gives. */
    async ready(): Promise<void> {
      await fresh(SECRET_LABELS_MS).catch(() => undefined);
    },
  };
}

/** Runs until the signal aborts or SIGTERM comes. */
function stopped(signal: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const onTerm = () => done("SIGTERM");
    const done = (why: string) => {
      process.off("SIGTERM", onTerm);
      resolve(why);
    };
    process.once("SIGTERM", onTerm);
    if (signal.aborted) done("SIGINT");
    signal.addEventListener("abort", () => done("SIGINT"), { once: true });
  });
}

export function uiCommand(program: Command, context: Context): Command {
  const command = program
    .command("ui")
    .description("serve a page that watches the fleet (this machine's loopback alone; the URL it prints holds the page's secret)")
    .option("--label <k=v>", "only computers with this label (repeatable)", collect)
    .option("--port <n>", "the port (0: any free one)", port, 0)
    .option(
      "--every <seconds>",
      `list the fleet again this often (a computer is read back when its listing changed, or every ${FULL_READ_PACES}th time)`,
      every,
      5,
    )
    .option("--open", "open the page in this machine's browser (xdg-open)")
    .option("--control", "let the page click and type on a desktop's screen (off by default)")
    .addHelpText("after", "\nExample:\n  agentrun ui --stack dev --open   # prints http://127.0.0.1:<port>/?secret=<32 hex>; ^C stops it");
  withProviderOptions(command);
  return command.action(async (flags: UiFlags) => {
    const labels = pairs(flags.label, "--label", "ui");
    const chosen = await chosenOf(flags, "ui", context.signal);
    const provider = await providerFrom(chosen, "ui");
    // Every value its settings' schema marks secret (a vendor's key): none is ever served.
    const hide = hider(secretValues({ [chosen.id]: chosen.settings }));
    // The reads and the screens end with the command, whichever way it ends.
    const running = new AbortController();
    const signal = running.signal;
    const everyMs = flags.every * 1000;
    const stack = flags.stack ? stackReader(flags, signal) : undefined;
    // The tiles hide what the stack declares secret from the first render on.
    await stack?.ready();
    const fleet = new FleetWatch(provider, {
      labels: Object.keys(labels).length > 0 ? labels : (everyOwn(provider) ?? {}),
      everyMs,
      signal,
      secretLabels: (name) => stack?.secretLabels(name) ?? new Set(),
      ...(stack ? { grouping: stack.grouping } : {}),
    });
    const streams = new EventStreams(hide);
    const screens = new Screens(
      provider,
      (name) => fleet.screenOf(name),
      (event) => streams.broadcast("screen", event),
      signal,
    );
    fleet.on((state) => {
      streams.broadcast("fleet", { provider: provider.id, everyMs, control: flags.control === true, ...state });
      screens.settle();
    });
    const served = await serve({
      port: flags.port,
      secret: newSecret(),
      api: api({
        provider,
        fleet,
        screens,
        streams,
        control: flags.control === true,
        everyMs,
        signal,
        hide,
        ...(stack ? { declared: (name: string) => stack.declared(name, everyMs) } : {}),
      }),
      onError: (error) => process.stderr.write(`agentrun ui: a request failed: ${hide(error instanceof Error ? error.message : String(error))}\n`),
    });
    process.stdout.write(`agentrun ui: ${served.url}\n`);
    process.stdout.write(
      `agentrun ui: serving ${provider.id}'s computers on 127.0.0.1:${served.port} alone, read every ${flags.every} s; input ${flags.control ? "on" : "off"}; ^C or SIGTERM stops it\n`,
    );
    void fleet.start();
    if (flags.open) {
      const opener = spawn("xdg-open", [served.url], { stdio: "ignore", detached: true });
      opener.on("error", (error) => process.stderr.write(`agentrun ui: the browser could not be opened (xdg-open: ${error.message}); open the URL above\n`));
      opener.on("exit", (code) => {
        if (code) process.stderr.write(`agentrun ui: xdg-open exited ${code}; open the URL above\n`);
      });
      opener.unref();
    }
    const why = await stopped(context.signal);
    running.abort();
    const bound = new Promise((resolve) => setTimeout(resolve, STOP_BOUND_MS).unref());
    streams.closeAll();
    await Promise.race([Promise.all([served.close(), screens.close(), fleet.stop()]), bound]);
    process.stdout.write(`agentrun ui: stopped (${why})\n`);
  });
}
