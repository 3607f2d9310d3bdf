// A computer's page: its spec as declared (its Computer's inputs in the stack's state with
// --stack, else what its labels and the vendor's record of it say) and as read back from the
// computer (the drift check's read), field by field side by side, its drift in words, and its
// processes (the daemon's process.list).
import { EPOCH_LABEL, RUN_LABEL } from "../../contract/labels.js";
import type { ComputerInfo, ComputerProvider, ReadBack } from "../../contract/provider.js";
import { boundedBy } from "../../daemon/bound.js";
import type { ProcessInfo } from "../../daemon/protocol.js";
import type { StackComputer } from "../stack-config.js";
import { SECRET_WORD, secretLabelsOf, type Tile } from "./fleet.js";

/** process.list pages read at most (each holds up to 768 KiB). */
const MAX_PAGES = 4;
/** The read back and the process list, each. */
const READ_MS = 30_000;

export interface SpecRow {
  field: string;
  declared: string;
  readBack: string;
  /** The two differ (a field one side does not say is no difference). */
  differs: boolean;
}

export interface Details {
  tile: Tile;
  /** Where the declared side comes from, in words. */
  declaredFrom: string;
  spec: SpecRow[];
  /** Why the computer could not be read back, or null. */
  readError: string | null;
  processes: Array<Pick<ProcessInfo, "id" | "pid" | "argv" | "running" | "exitCode" | "signal" | "startedAt" | "endedAt">>;
  /** Why the processes could not be listed (a stopped computer's daemon answers nothing), or null. */
  processError: string | null;
  /** Whether the page may send input (agentrun ui --control). */
  control: boolean;
  /** With --stack: the ComputerCommands the stack ran in it, each's last run (a secret output as "[secret]"). */
  commands: CommandRun[];
  /** With --stack: the ComputerApps the stack installed in it, and their addresses. */
  apps: AppShown[];
}

export interface CommandRun {
  resource: string;
  exitCode: number | null;
  passed: boolean | null;
  timedOut: boolean | null;
  /** The output's tail, as the state keeps it (its last 16 KiB), cut to its last MAX_TAIL characters. */
  stdout: string;
  stderr: string;
}

export interface AppShown {
  resource: string;
  name: string;
  address: string;
  drift: string[];
}

/** A command's output shown on the page: its last this many characters. */
const MAX_TAIL = 4_000;
const tail = (value: unknown) => (typeof value === "string" ? value.slice(-MAX_TAIL) : "");

/** The stack's commands and apps of a computer, as the page shows them. */
export function ranIn(computer: StackComputer | undefined): Pick<Details, "commands" | "apps"> {
  return {
    commands: (computer?.commands ?? []).map(({ resource, outputs: o }) => ({
      resource,
      exitCode: typeof o.exitCode === "number" ? o.exitCode : null,
      passed: typeof o.passed === "boolean" ? o.passed : null,
      timedOut: typeof o.timedOut === "boolean" ? o.timedOut : null,
      stdout: tail(o.stdout),
      stderr: tail(o.stderr),
    })),
    apps: (computer?.apps ?? []).map(({ resource, outputs: o }) => ({
      resource,
      name: typeof o.name === "string" ? o.name : resource,
      address: typeof o.address === "string" ? o.address : "",
      drift: Array.isArray(o.drift) ? o.drift.map(String) : [],
    })),
  };
}

const words = (value: unknown): string => (value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value));

/** A Computer's inputs as the fields a read-back names (network and allow as one network). */
function fromInputs(inputs: Record<string, unknown>): Record<string, unknown> {
  const { network, allow, labels, provider: _provider, ...rest } = inputs;
  return {
    ...rest,
    state: inputs.state ?? "running",
    network: network === "allow" ? { allow: allow ?? [] } : network,
    run: (labels as Record<string, unknown> | undefined)?.[RUN_LABEL],
    epoch: (labels as Record<string, unknown> | undefined)?.[EPOCH_LABEL],
  };
}

/**
 * The rows, declared beside read back: each field either side says. declared is the Computer's
 * inputs in the stack's state when there is one; else what the labels and the vendor's record say.
 */
export function specRows(info: ComputerInfo, kind: string, read: ReadBack | undefined, stackInputs?: Record<string, unknown>): SpecRow[] {
  const spec = read?.ref.spec;
  const recorded: Record<string, unknown> = {
    kind,
    state: "running",
    deadline: info.deadline?.toISOString(),
    network: info.network,
    mount: info.mount,
    run: info.labels[RUN_LABEL],
    epoch: info.labels[EPOCH_LABEL],
  };
  const declared = stackInputs ? { ...recorded, ...fromInputs(stackInputs) } : recorded;
  // A label the stack declares secret is shown on neither side.
  const secret = secretLabelsOf(stackInputs);
  for (const [field, key] of [
    ["run", RUN_LABEL],
    ["epoch", EPOCH_LABEL],
  ] as const)
    if (secret.has(key)) {
      if (recorded[field] !== undefined) declared[field] = SECRET_WORD;
      if (read?.labels[key] !== undefined) read = { ...read, labels: { ...read.labels, [key]: SECRET_WORD } };
    }
  const readBack: Record<string, unknown> = {
    kind: read?.hello?.kind ?? spec?.kind,
    state: read?.state,
    deadline: spec?.deadline,
    network: spec?.network,
    mount: spec?.mount,
    run: read?.labels[RUN_LABEL],
    epoch: read?.labels[EPOCH_LABEL],
    image: spec?.image,
    user: spec?.user,
    cpus: spec?.cpus,
    memoryMb: spec?.memoryMb,
    pids: spec?.pids,
    workdir: spec?.workdir,
    runtime: spec?.runtime,
    egress: spec?.egress,
    daemon: read?.hello ? `computerd ${read.hello.version} (${read.hello.groups.join(", ")})` : undefined,
  };
  const fields = [...new Set([...Object.keys(declared), ...Object.keys(readBack)])];
  return fields
    .map((field) => {
      const d = words(declared[field]);
      const r = words(readBack[field]);
      // Deadlines as times: the label's and the read-back's spelling may differ.
      const same = field === "deadline" && d && r ? Date.parse(d) === Date.parse(r) : d === r;
      return { field, declared: d, readBack: r, differs: d !== "" && r !== "" && !same };
    })
    .filter((row) => row.declared !== "" || row.readBack !== "");
}

/** Where the declared side comes from: the stack's Computer, or the computer's own record. */
export type Declared = { stack: string; computer: StackComputer | undefined } | { stack: string; error: string } | undefined;

function declaredWords(declared: Declared, name: string): string {
  if (!declared) return "declared: its labels and the vendor's record of it (give --stack for the stack's declaration)";
  if ("error" in declared) return `declared: its labels and the vendor's record of it (the stack ${declared.stack} could not be read: ${declared.error})`;
  if (!declared.computer?.inputs) return `declared: its labels and the vendor's record of it (no Computer of the stack ${declared.stack} is ${name})`;
  return `declared: its Computer's inputs in the stack ${declared.stack}'s state`;
}

/** The page's data: one read back, and the processes when the computer answers. */
export async function detailsOf(
  provider: ComputerProvider,
  info: ComputerInfo,
  tile: Tile,
  control: boolean,
  signal: AbortSignal,
  declared?: Declared,
): Promise<Details> {
  let read: ReadBack | undefined;
  let readError: string | null = null;
  if (provider.read) {
    const got = await provider.read({ id: info.ref.id }, { signal: boundedBy(READ_MS, signal).signal });
    if (got.ok) read = got.value;
    else readError = `could not be read back (${got.error.code}): ${got.error.message}`;
  } else readError = `${provider.id} cannot read a computer back`;
  const computer = declared && "computer" in declared ? declared.computer : undefined;
  const inputs = computer?.inputs;
  const out: Details = {
    tile,
    declaredFrom: declaredWords(declared, tile.name),
    spec: specRows(info, tile.kind, read, inputs),
    readError,
    processes: [],
    processError: null,
    control,
    ...ranIn(computer),
  };
  if (tile.state !== "running") {
    out.processError = `${tile.name} is ${tile.state}: its daemon lists no processes`;
    return out;
  }
  const bound = boundedBy(READ_MS, signal).signal;
  const connected = await provider.connect(info.ref, { signal: bound });
  if (!connected.ok) {
    out.processError = `its daemon could not be reached (${connected.error.code}): ${connected.error.message}`;
    return out;
  }
  try {
    let from: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await connected.value.client.call("process.list", from ? { from } : {}, { signal: bound });
      out.processes.push(
        ...listed.processes.map(({ id, pid, argv, running, exitCode, signal, startedAt, endedAt }) => ({
          id,
          pid,
          argv,
          running,
          exitCode,
          signal,
          startedAt,
          endedAt,
        })),
      );
      if (!listed.truncated || !listed.next) break;
      from = listed.next;
    }
  } catch (error) {
    out.processError = `process.list failed: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await connected.value.close().catch(() => undefined);
  }
  return out;
}
