// A connection to a computer's daemon: docker exec -i <name> /opt/agentrun/computerd stdio, the
// bridge to init's socket, and a hello held to what the provider declares.
import { CallError, DaemonClient } from "../client.js";
import type { Hello } from "../protocol.js";
import type { Connection } from "../provider.js";
import { fail, ok, type Result } from "../result.js";
import type { DockerCli } from "./cli.js";
import { DAEMON_TARGET, HELLO_TIMEOUT_MS } from "./constants.js";

export interface HelloWant {
  version: string;
  kind: string;
  groups: readonly string[];
}

/** Opens the bridge and says hello within HELLO_TIMEOUT_MS and the caller's signal. */
export async function openConnection(cli: DockerCli, name: string, want: HelloWant | undefined, signal?: AbortSignal): Promise<Result<Connection>> {
  if (signal?.aborted) return fail("aborted", `connecting to ${name} was aborted`);
  const child = cli.spawn(["exec", "-i", name, DAEMON_TARGET, "stdio"]);
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString("utf8");
  });
  const spawned = new Promise<Error | undefined>((resolve) => {
    child.once("spawn", () => resolve(undefined));
    child.once("error", resolve);
  });
  const spawnError = await spawned;
  if (spawnError) return fail("unreachable", `connecting to ${name}: the docker CLI at ${cli.path} could not run (${spawnError.message})`);
  const client = new DaemonClient({ readable: child.stdout, writable: child.stdin });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const close = async () => {
    await client.close();
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };

  const bound = AbortSignal.timeout(HELLO_TIMEOUT_MS);
  const helloSignal = signal ? AbortSignal.any([signal, bound]) : bound;
  let hello: Hello;
  try {
    hello = await client.call("hello", { client: "agentrun-docker" }, { signal: helloSignal });
  } catch (error) {
    await close();
    if (signal?.aborted) return fail("aborted", `connecting to ${name} was aborted`);
    if (bound.aborted) return fail("timeout", `the daemon in ${name} did not say hello within ${HELLO_TIMEOUT_MS / 1000} s`);
    const why = stderr.trim().split("\n").pop() || (error instanceof CallError ? error.message : String(error));
    const gone = /No such container|is not running/i.test(stderr);
    return fail(gone ? "gone" : "unreachable", `the daemon in ${name} did not answer hello: ${why}`);
  }
  if (want) {
    const wrong: string[] = [];
    if (hello.version !== want.version) wrong.push(`version ${hello.version}, not the provider's ${want.version}`);
    if (hello.kind !== want.kind) wrong.push(`kind ${hello.kind}, not ${want.kind}`);
    const sorted = (g: readonly string[]) => [...g].sort().join(",");
    if (sorted(hello.groups) !== sorted(want.groups)) wrong.push(`groups ${hello.groups.join(", ")}, not ${want.groups.join(", ")}`);
    if (wrong.length) {
      await close();
      return fail("refused", `the daemon in ${name} is not the provider's: ${wrong.join("; ")}; make a new computer with this provider`);
    }
  }
  return ok({ client, hello, close });
}
