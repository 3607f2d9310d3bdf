// An open connection to a named computer's daemon, with its user's home read from inside: what
// every in-computer step starts from. A computer that is gone is a result (gone), never a throw.
import { asFailure, type CallOptions, type ComputerClient } from "../daemon/client.js";
import type { Hello } from "../daemon/protocol.js";
import type { ComputerInfo, ComputerProvider } from "../contract/provider.js";
import { untilAborted } from "../daemon/bound.js";
import { fail, ok, type Result } from "../daemon/result.js";

export interface Session {
  /** The computer's name, for words. */
  name: string;
  client: ComputerClient;
  /** The computer's user's home, absolute, as its daemon's programs see it ($HOME). */
  home: string;
  /** What the daemon said of the computer when the session opened: os, arch, kind, groups. */
  hello: Hello;
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
  return ok({ name, client, home: home.value, hello: connected.value.hello, close });
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

/** A session some steps share: how many are in it, and its opening (a result, once). */
interface Shared {
  users: number;
  opened: Promise<Result<Session>>;
}

/** Each provider's shared sessions, by computer name. */
const sharing = new WeakMap<ComputerProvider, Map<string, Shared>>();

/**
 * Runs work in a session of the named computer and leaves it, however the work ends. Work in
 * flight at once in one computer through one provider shares one session: the first opens it,
 * the others join it, the last to leave closes it. So N steps at once in a computer cost one
 * lookup, one connection and one read of the home, not N (on Docker a connection is a `docker
 * exec` of the bridge: 200 of them at once on a two-core host took seconds each, and a plugin
 * that busy answered the engine's checks late, so the engine started the steps over 20 s). The
 * daemon serves a connection's calls side by side. A failed opening, and a session whose
 * connection broke, are joined by no later step.
 */
export async function withSession<T>(
  provider: ComputerProvider,
  name: string,
  options: CallOptions,
  work: (session: Session) => Promise<Result<T>>,
): Promise<Result<T>> {
  let open = sharing.get(provider);
  if (!open) sharing.set(provider, (open = new Map()));
  const table = open;
  const joined = table.get(name);
  const mine = joined ?? { users: 0, opened: openSession(provider, name, options) };
  if (!joined) {
    table.set(name, mine);
    void mine.opened.then((o) => {
      if (!o.ok && table.get(name) === mine) table.delete(name);
    });
  }
  mine.users += 1;
  try {
    // This step's abort ends its wait, not the opening the others share.
    const opened = await untilAborted(mine.opened, options.signal, () => fail("aborted", `connecting to ${name} was aborted`));
    // The step that opened it was cancelled, not this one: this one opens again.
    if (joined && !opened.ok && opened.error.code === "aborted" && !options.signal?.aborted) return await withSession(provider, name, options, work);
    if (!opened.ok) return opened;
    const done = await work(opened.value);
    if (!done.ok && done.error.code === "closed" && table.get(name) === mine) table.delete(name);
    return done;
  } finally {
    mine.users -= 1;
    if (mine.users === 0) {
      if (table.get(name) === mine) table.delete(name);
      const opened = await mine.opened;
      if (opened.ok) await opened.value.close();
    }
  }
}
