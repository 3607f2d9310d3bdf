// The conformance CLI: npm run conformance -- --provider <registry id | ./module.js> [--image <image>]
// [--only a,b] [--kind k] [--fixture <path>] [--json]. Exits 0 when Core passes (or the kind, with
// --kind), 1 when it fails, 2 on a usage error, 3 on a partial run.
import { access } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { ComputerProvider } from "../contract/provider.js";
import { RUNTIMES, type Runtime } from "../contract/runtime.js";
import { isProviderId, PROVIDER_IDS, providerModule } from "../providers.js";
import type { MountFor } from "./case.js";
import type { RunShape } from "./kind.js";
import { formatReport } from "./format.js";
import type { ConformanceReport } from "./report.js";
import { casesOfRun, type Progress, runConformance } from "./runner.js";

export const EXIT = { pass: 0, fail: 1, usage: 2, partial: 3 } as const;

export function usage(): string {
  return [
    "usage: npm run conformance -- --provider <id | ./module.js> [--image <image>] [--only <group or case>,...] [--kind <kind>] [--runtime <runtime>] [--fixture <path>] [--json]",
    `  --provider  a registry id (${PROVIDER_IDS.join(", ")}), or a module path from where npm was run`,
    "  --image     the image every computer starts from (default: the provider's conformance image)",
    "  --only      groups or case ids: a run that leaves a Core case out is partial (exit 3)",
    "  --kind      sandbox, desktop, phone or browser (or linux, android, ios): that kind's cases and verdict; never with --only",
    `  --runtime   every computer under this runtime (${RUNTIMES.join(", ")}; default runc), held to what the provider declares for it`,
    "  --fixture   the input fixture for a desktop or phone (default: the provider's own, when its module has one)",
    "  --json      the report as JSON on stdout",
    "exit codes: 0 Core passes (with --kind, the kind passes), 1 it fails, 2 usage, 3 a partial run",
  ].join("\n");
}

/**
 * What a conformance module (or a provider file) given to --provider exports. Its settings come
 * from its own names (the first argument, left to its default); the run's shape comes second.
 */
interface ConformanceModule {
  createProvider?: (settings?: undefined, run?: RunShape) => ComputerProvider | Promise<ComputerProvider>;
  createDriftedProvider?: (settings?: undefined, run?: RunShape) => ComputerProvider | Promise<ComputerProvider>;
  mountFor?: MountFor;
  conformanceImage?: (run?: RunShape) => string | undefined;
  /** The input fixture this package builds for the run, used when --fixture gives none. */
  conformanceFixture?: (run?: RunShape) => string | undefined | Promise<string | undefined>;
  conformanceNotes?: string[];
  create?: (options: unknown) => ComputerProvider;
  optionsFromSettings?: (settings: Record<string, unknown>) => unknown;
  conformance?: () => Promise<unknown>;
}

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Where npm was run (INIT_CWD), for a module path. */
  cwd: string;
  /** Progress lines on stderr (a terminal, and no --json). */
  progress: boolean;
  signal?: AbortSignal;
}

class UsageError extends Error {}

async function resolveModule(given: string, cwd: string): Promise<{ conformance: ConformanceModule; fromRegistry: boolean }> {
  if (isProviderId(given)) {
    const module = (await providerModule(given)) as ConformanceModule;
    return { conformance: module.conformance ? ((await module.conformance()) as ConformanceModule) : module, fromRegistry: true };
  }
  if (!/^(\.{1,2}\/|\/)/.test(given) && !/\.[cm]?js$/.test(given)) {
    throw new UsageError(`--provider ${JSON.stringify(given.slice(0, 60))} is neither a registry id (${PROVIDER_IDS.join(", ")}) nor a module path`);
  }
  const file = path.resolve(cwd, given);
  let module: ConformanceModule;
  try {
    module = (await import(pathToFileURL(file).href)) as ConformanceModule;
  } catch (error) {
    throw new UsageError(`--provider ${file} could not be loaded: ${(error as Error).message}`);
  }
  if (typeof module.createProvider !== "function" && typeof module.create !== "function") {
    throw new UsageError(`--provider ${file} exports neither createProvider() (a conformance module) nor create(options) (a provider file)`);
  }
  return { conformance: module, fromRegistry: false };
}

function progressLine(event: Progress): string {
  switch (event.type) {
    case "shared":
      return event.state === "making"
        ? "… making the shared computer"
        : event.state === "ready"
          ? "✓ the shared computer is up"
          : `✗ the shared computer: ${event.words}`;
    case "group-start":
      return `… ${event.group} (${event.cases} case${event.cases === 1 ? "" : "s"})`;
    case "group-end":
      return `${event.failed > 0 ? "✗" : "✓"} ${event.group}: ${event.passed} passed, ${event.failed} failed, ${event.skipped} skipped in ${(event.ms / 1000).toFixed(1)} s`;
    case "cleanup":
      return "… releasing what the run made";
  }
}

/** The CLI's arguments, or the exit code when they cannot be run (said on io). */
function argsOf(argv: string[], io: Io): { exit: number } | { values: Args; only: string[] | undefined } {
  let values: Args;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        provider: { type: "string" },
        image: { type: "string" },
        only: { type: "string" },
        kind: { type: "string" },
        runtime: { type: "string" },
        fixture: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    io.stderr(`${(error as Error).message}\n${usage()}\n`);
    return { exit: EXIT.usage };
  }
  if (values.help) {
    io.stdout(`${usage()}\n`);
    return { exit: EXIT.pass };
  }
  if (!values.provider) {
    io.stderr(`--provider is required\n${usage()}\n`);
    return { exit: EXIT.usage };
  }
  const only = values.only
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (values.only !== undefined && only!.length === 0) {
    io.stderr(`--only names no group or case\n${usage()}\n`);
    return { exit: EXIT.usage };
  }
  if (values.runtime !== undefined && !(RUNTIMES as readonly string[]).includes(values.runtime)) {
    io.stderr(`--runtime takes ${RUNTIMES.join(" or ")}, not ${JSON.stringify(values.runtime.slice(0, 40))}\n${usage()}\n`);
    return { exit: EXIT.usage };
  }
  return { values, only };
}

type Args = { provider?: string; image?: string; only?: string; kind?: string; runtime?: string; fixture?: string; json?: boolean; help?: boolean };

/** The provider and its drifted twin, from a conformance module (or create() with the CLI's options, which are none). */
async function providersOf(conformance: ConformanceModule, run: RunShape): Promise<{ provider: ComputerProvider; drifted?: ComputerProvider }> {
  const provider = conformance.createProvider
    ? await conformance.createProvider(undefined, run)
    : conformance.create!(conformance.optionsFromSettings?.({}) ?? {});
  if (conformance.createProvider && conformance.createDriftedProvider) return { provider, drifted: await conformance.createDriftedProvider(undefined, run) };
  return { provider };
}

/** The run's image: --image, the module's, else the provider's own made ready; or the exit code, said on io. */
async function imageOf(
  values: Args,
  run: RunShape,
  conformance: ConformanceModule,
  provider: ComputerProvider,
  io: Io,
): Promise<{ exit: number } | { image: string }> {
  let image = values.image ?? conformance.conformanceImage?.(run);
  if (!image && provider.image) {
    const made = await provider.image({ ...(io.signal ? { signal: io.signal } : {}) });
    if (!made.ok) {
      io.stderr(`the provider's image could not be made ready (${made.error.code}): ${made.error.message}\n`);
      return { exit: EXIT.fail };
    }
    image = made.value;
  }
  if (!image) {
    io.stderr(`no image to run: give --image\n${usage()}\n`);
    return { exit: EXIT.usage };
  }
  return { image };
}

/**
 * The run's input fixture: --fixture, else the one the module names for the run (the package's
 * own), said in a note either way it goes, since a desktop's input cases skip without one.
 */
async function fixtureOf(values: Args, run: RunShape, conformance: ConformanceModule, io: Io): Promise<{ fixture?: string; notes: string[] }> {
  if (values.fixture) return { fixture: path.resolve(io.cwd, values.fixture), notes: [] };
  const own = await conformance.conformanceFixture?.(run);
  if (!own) return { notes: [] };
  try {
    await access(own);
  } catch {
    return { notes: [`no --fixture was given, and the package's own input fixture is not at ${own} (npm run setup builds it)`] };
  }
  return { fixture: own, notes: [`no --fixture was given: the input cases used the package's own fixture, ${own}`] };
}

/** Runs the CLI with argv (after the node and script); the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  const args = argsOf(argv, io);
  if ("exit" in args) return args.exit;
  const { values, only } = args;
  let loaded;
  try {
    loaded = await resolveModule(values.provider!, io.cwd);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${error.message}\n${usage()}\n`);
      return EXIT.usage;
    }
    throw error;
  }
  const { conformance } = loaded;
  // The run's shape, the one value every part of the module is handed.
  const run: RunShape = {
    ...(values.kind !== undefined ? { kind: values.kind } : {}),
    ...(values.runtime !== undefined ? { runtime: values.runtime as Runtime } : {}),
  };
  let made: { provider: ComputerProvider; drifted?: ComputerProvider };
  try {
    made = await providersOf(conformance, run);
  } catch (error) {
    io.stderr(`the provider could not be made: ${(error as Error).message}\n`);
    return EXIT.fail;
  }
  const { provider, drifted } = made;
  const chosen = casesOfRun(provider.capabilities(), { ...(only ? { only } : {}), ...run });
  if (!chosen.ok) {
    io.stderr(`${chosen.error.message}\n${usage()}\n`);
    return EXIT.usage;
  }
  const image = await imageOf(values, run, conformance, provider, io);
  if ("exit" in image) return image.exit;
  const fixture = await fixtureOf(values, run, conformance, io);
  const notes = [...(conformance.conformanceNotes ?? []), ...fixture.notes];
  const report = await runConformance(provider, {
    image: image.image,
    ...(only ? { only } : {}),
    ...run,
    ...(drifted ? { drifted } : {}),
    ...(conformance.createProvider && conformance.mountFor ? { mountFor: conformance.mountFor } : {}),
    ...(fixture.fixture ? { fixture: fixture.fixture } : {}),
    ...(notes.length ? { notes } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
    ...(io.progress && !values.json ? { onProgress: (event: Progress) => io.stderr(`${progressLine(event)}\n`) } : {}),
  });
  io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return exitCodeOf(report);
}

/** 0 when Core passes (with a kind, when the kind passes), 1 when it fails, 3 for a partial run. */
export function exitCodeOf(report: ConformanceReport): number {
  if (report.kindVerdict) return report.kindVerdict.verdict === "pass" ? EXIT.pass : EXIT.fail;
  return report.core === "pass" ? EXIT.pass : report.core === "partial" ? EXIT.partial : EXIT.fail;
}

/** The command: argv (default the process's), the report on stdout, then the exit. `agentrun conformance` runs this too. */
export async function command(argv: string[] = process.argv.slice(2)): Promise<void> {
  const controller = new AbortController();
  // A first ^C ends the cases and still releases what the run made; a second one exits at once.
  process.once("SIGINT", () => {
    process.stderr.write("interrupted: ending the cases and releasing what the run made (^C again to exit now)\n");
    controller.abort();
    process.once("SIGINT", () => process.exit(130));
  });
  const code = await main(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.env.INIT_CWD ?? process.cwd(),
    progress: Boolean(process.stderr.isTTY),
    signal: controller.signal,
  }).catch((error: Error) => {
    process.stderr.write(`conformance: ${error.stack ?? error.message}\n`);
    return EXIT.fail;
  });
  // The CLI exits once the report is out, whatever still holds the event loop.
  process.stdout.write("", () => process.exit(code));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) void command();
