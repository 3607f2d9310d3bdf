// An open connection to a named computer's daemon, with its user's home read from inside: what
// every in-computer step starts from. A computer that is gone is a result (gone), never a throw.
import { asFailure, type CallOptions, type ComputerClient } from "../client.js";
import type { ComputerInfo, ComputerProvider } from "../provider.js";
import { fail, ok, type Result } from "../result.js";

export interface Session {
  /** The computer's name, for words. */
  name: string;
  client: ComputerClient;
  /** The computer's user's home, absolute, as its daemon's programs see it ($HOME). */
  home: string;
  close(): Promise<void>;
}

/** The running computer of that name (or vendor id) at the provider; gone when it is not there or not running. */
export async function findRunning(provider: ComputerProvider, name: string, options: CallOptions = {}): Promise<Result<ComputerInfo>> {
  const listed = await provider.list(undefined, options);
  if (!listed.ok) return listed;
  const found = listed.value.find((info) => info.ref.name === name || info.ref.id === name);
  if (!found) return fail("gone", `there is no computer ${name} at ${provider.id}`);
  if (found.state !== "running") return fail("gone", `the computer ${name} is ${found.state}`);
  return ok(found);
}

/** The running computer of that name (or vendor id) at the provider: listed, connected, its home read. */
export async function openSession(provider: ComputerProvider, name: string, options: CallOptions = {}): Promise<Result<Session>> {
  const found = await findRunning(provider, name, options);
  if (!found.ok) return found;
  const connected = await provider.connect(found.value.ref, options);
  if (!connected.ok) return connected;
  const { client } = connected.value;
  const close = () => connected.value.close().catch(() => undefined);
  const home = await homeOf(client, options);
  if (!home.ok) {
    await close();
    return fail(home.error.code, `${name}: its home could not be read: ${home.error.message}`);
  }
  return ok({ name, client, home: home.value, close });
}

/** The home the daemon gives its programs (HOME is always set, for the computer's user). */
async function homeOf(client: ComputerClient, options: CallOptions): Promise<Result<string>> {
  try {
    const run = await client.call("exec.run", { argv: ["sh", "-c", 'printf %s "$HOME"'], timeoutMs: 10_000 }, options);
    const home = Buffer.from(run.stdout, "base64").toString("utf8");
    if (run.exitCode !== 0 || !home.startsWith("/")) return fail("failed", `sh printed no absolute HOME (exit ${run.exitCode ?? run.signal})`);
    return ok(home);
  } catch (error) {
    return asFailure(error);
  }
}

/** Runs work in a session and closes it, however the work ends. */
export async function withSession<T>(
  provider: ComputerProvider,
  name: string,
  options: CallOptions,
  work: (session: Session) => Promise<Result<T>>,
): Promise<Result<T>> {
  const opened = await openSession(provider, name, options);
  if (!opened.ok) return opened;
  try {
    return await work(opened.value);
  } finally {
    await opened.value.close();
  }
}
