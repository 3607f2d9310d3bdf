// The docker CLI, for what the Engine API leaves to its clients: an image's build (BuildKit or
// the classic builder, as the CLI picks) and pull (the registry's credentials, from the CLI's own
// config and helpers), and the image inspect that decides whether either is needed. Every call is
// bounded in time and ended by the caller's signal. A call's outcome is a value; what it means is
// the caller's to say. execa is loaded at the first call: a read or a refresh never runs the CLI,
// and execa is 130 modules, a third of what the provider would load.
import type { ResultCode } from "../daemon/result.js";
import { loadModule } from "../load-module.js";
import { type EngineAddress, engineAt } from "./engine.js";

/** A call not given its own bound. */
export const DOCKER_CALL_MS = 60_000;

export interface CallBound {
  signal?: AbortSignal;
  /** Past it the CLI is killed and the outcome is timedOut. */
  timeoutMs?: number;
  /** Written to the CLI's stdin. */
  input?: string;
  /** Told each line of stdout as it comes (a build's progress); the outcome still holds it all. */
  onLine?: (line: string) => void;
}

export interface Outcome {
  ok: boolean;
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  aborted: boolean;
  timedOut: boolean;
  /** The docker CLI is not there to run. */
  missing: boolean;
}

/** The CLI's arguments that name an engine: its address, and an engine over TCP's TLS files, verified. */
export function engineArgs(engine: EngineAddress): string[] {
  if (engine.kind === "tcp") {
    return ["--host", engine.address, "--tlsverify", "--tlscacert", engine.tls.ca, "--tlscert", engine.tls.cert, "--tlskey", engine.tls.key];
  }
  return ["--host", engine.address];
}

/**
 * The docker CLI at a path, talking to the engine at host when given (an address, or one with its
 * TLS files), else to the one it resolves itself; onCall sees every argument list (the image
 * tests count calls). Over ssh the CLI runs the user's ssh itself, as it always does.
 */
export class DockerCli {
  readonly host: string | undefined;
  readonly #engineArgs: string[];

  constructor(
    readonly path = "docker",
    private readonly onCall?: (args: readonly string[]) => void,
    host?: string | EngineAddress,
  ) {
    const engine = typeof host === "string" ? engineAt(host, "the docker CLI's host") : host === undefined ? undefined : { ok: true as const, value: host };
    if (engine && !engine.ok) throw new TypeError(engine.error.message, { cause: engine.error });
    this.host = engine?.value.address;
    this.#engineArgs = engine ? engineArgs(engine.value) : [];
  }

  async run(args: readonly string[], bound: CallBound = {}): Promise<Outcome> {
    this.onCall?.(args);
    if (bound.signal?.aborted) return { ok: false, exitCode: undefined, stdout: "", stderr: "", aborted: true, timedOut: false, missing: false };
    const { execa } = await loadModule<typeof import("execa")>("execa");
    const running = execa(this.path, [...this.#engineArgs, ...args], {
      reject: false,
      timeout: bound.timeoutMs ?? DOCKER_CALL_MS,
      forceKillAfterDelay: 2_000,
      ...(bound.signal ? { cancelSignal: bound.signal } : {}),
      ...(bound.input !== undefined ? { input: bound.input } : { stdin: "ignore" as const }),
      stripFinalNewline: true,
      maxBuffer: 256 * 1024 * 1024,
    });
    if (bound.onLine) {
      const onLine = bound.onLine;
      let rest = "";
      running.stdout?.on("data", (chunk: Buffer) => {
        const lines = (rest + chunk.toString("utf8")).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) onLine(line);
      });
    }
    const result = await running;
    return {
      ok: !result.failed,
      exitCode: result.exitCode,
      stdout: String(result.stdout ?? ""),
      stderr: String(result.stderr ?? ""),
      aborted: result.isCanceled,
      timedOut: result.timedOut,
      missing: (result as { code?: string }).code === "ENOENT",
    };
  }
}

/** Docker's own words when its daemon was not reached. */
const UNREACHABLE = /Cannot connect to the Docker daemon|Is the docker daemon running|permission denied while trying to connect|error during connect/i;

/**
 * A failed call as a result's code and words: what was asked, and the next step. Docker's output
 * is summed up, never passed on whole: its last line alone, which names what Docker refused.
 */
export function failureOf(what: string, outcome: Outcome, docker: string): { code: ResultCode; message: string } {
  if (outcome.aborted) return { code: "aborted", message: `${what} was aborted` };
  if (outcome.timedOut) return { code: "timeout", message: `${what} did not finish in time; is the Docker host overloaded?` };
  if (outcome.missing)
    return { code: "unreachable", message: `${what} could not run: there is no docker CLI at ${docker}; install it or give the docker option` };
  if (UNREACHABLE.test(outcome.stderr)) {
    return { code: "unreachable", message: `${what}: Docker is not answering (is it running, and may this user reach it?)` };
  }
  const last =
    outcome.stderr
      .trim()
      .split("\n")
      .pop()
      ?.replace(/^Error( response from daemon)?:\s*/i, "") ?? "";
  return { code: "failed", message: `${what} failed (exit ${outcome.exitCode ?? "?"})${last ? `: ${last}` : ""}` };
}
