// A computer by the name `agentrun ls` shows (or its vendor id), and a connection to its daemon.
import { COMPUTER_LABEL } from "../kits/browser/labels.js";
import type { ComputerInfo, ComputerProvider, Connection } from "../contract/provider.js";
import { stoppedWords } from "../contract/lifetime.js";
import { bounded } from "./bounds.js";
import { CliError, EXIT, failed } from "./errors.js";

/** The listed computer with that name or id; an unknown one is a usage refusal naming what there is. */
export async function findComputer(provider: ComputerProvider, name: string, signal: AbortSignal): Promise<ComputerInfo> {
  const listed = await provider.list(everyOwn(provider), { signal: bounded(signal) });
  if (!listed.ok) throw failed(`the computers at ${provider.id} could not be listed`, listed.error);
  const found = listed.value.find((info) => info.ref.name === name || info.ref.id === name);
  if (found) return found;
  const names = listed.value.map((info) => info.ref.name);
  const some = names.length === 0 ? "there are none" : `there are ${names.slice(0, 5).join(", ")}${names.length > 5 ? ", …" : ""}`;
  throw new CliError(EXIT.usage, `there is no computer "${name.slice(0, 80)}" at ${provider.id} (${some}); \`agentrun ls\` lists them`);
}

/** An open connection to the named computer's daemon; a stopped one is refused in words. */
export async function connectTo(provider: ComputerProvider, name: string, signal: AbortSignal): Promise<Connection> {
  const info = await findComputer(provider, name, signal);
  if (info.state !== "running") {
    throw new CliError(EXIT.failed, `${info.ref.name} is ${stoppedWords(info.deadline)}; \`agentrun sweep\` releases it once its deadline has passed`);
  }
  const connected = await provider.connect(info.ref, { signal: bounded(signal) });
  if (!connected.ok) throw failed(`${info.ref.name}'s daemon could not be reached`, connected.error);
  return connected.value;
}

/** Runs with a connection and closes it, however the work ends. */
export async function withConnection<T>(
  provider: ComputerProvider,
  name: string,
  signal: AbortSignal,
  work: (connection: Connection) => Promise<T>,
): Promise<T> {
  const connection = await connectTo(provider, name, signal);
  try {
    return await work(connection);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/**
 * The labels that list every computer of a provider: none, but for a browser vendor, whose list
 * takes at least one label (an account holds browsers no provider made): the mark each carries.
 */
export function everyOwn(provider: ComputerProvider): Record<string, string> | undefined {
  return provider.capabilities().kind === "browser" ? { [COMPUTER_LABEL]: "1" } : undefined;
}
