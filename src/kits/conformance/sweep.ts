// The sweep around a live run, one shape for every vendor that lists its computers by label
// (Daytona, E2B): --before <file> records the id of every sandbox carrying agentrun.computer=1;
// --after <file> releases every one not in it (release "delete", which refuses a sandbox that is
// not a computer), reads each back until the vendor no longer has it, up to 60 s each (once when
// its release failed, as nothing will remove it then), and prints
// {"swept":n,"gone":m,"stillThere":[ids]}. Exit 0 when every swept sandbox is gone, 1 when one is
// still there, 2 on a usage error, an unreadable before file, a refused setting or a refused
// listing (nothing is released then).
import { readFileSync, writeFileSync } from "node:fs";
import type { CallOptions } from "../../daemon/client.js";
import type { ComputerRef } from "../../contract/provider.js";
import type { Result } from "../../daemon/result.js";

/** What the sweep asks of a provider. */
export interface Sweepable {
  readonly id: string;
  labelled(options?: CallOptions): Promise<Result<string[]>>;
  release(ref: ComputerRef, how: "delete", options?: CallOptions): Promise<Result<undefined>>;
  gone(id: string, options?: CallOptions): Promise<Result<boolean>>;
}

export interface SweepReport {
  swept: number;
  gone: number;
  stillThere: string[];
}

export const SWEEP_WAIT_MS = 60_000;

/** Releases every labelled sandbox not in before, and reads each back: the report, or the words of why nothing was released. */
export async function sweepAfter(
  provider: Sweepable,
  before: readonly string[],
  waitMs = SWEEP_WAIT_MS,
): Promise<{ ok: true; report: SweepReport } | { ok: false; message: string }> {
  const listed = await provider.labelled();
  if (!listed.ok) return { ok: false, message: `the listing was refused, so nothing was released: ${listed.error.message}` };
  const known = new Set(before);
  const fresh = listed.value.filter((id) => !known.has(id));
  const report: SweepReport = { swept: fresh.length, gone: 0, stillThere: [] };
  await Promise.all(
    fresh.map(async (id) => {
      const released = await provider.release({ id, name: id, provider: provider.id }, "delete", { signal: AbortSignal.timeout(waitMs) });
      // A release refused (a sandbox that is not a computer) or failed removes nothing: read back once.
      const until = released.ok ? Date.now() + waitMs : 0;
      for (;;) {
        const gone = await provider.gone(id);
        if (gone.ok && gone.value) return void (report.gone += 1);
        if (Date.now() > until) return void report.stillThere.push(id);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }),
  );
  report.stillThere.sort();
  return { ok: true, report };
}

export interface SweepCli {
  /** The command's name, for its words. */
  name: string;
  /** The vendor's folder, where the command lives (dist/src/<vendor>/conformance/sweep.js). */
  vendor: string;
  /** The provider from the run's settings; throws in words on a refused setting. */
  build(): Sweepable;
  /** The report's key for what went (Daytona's sweep says notFound). */
  goneKey?: string;
}

/** The command: its exit code and what it prints on stdout and stderr. */
export async function sweepMain(argv: string[], cli: SweepCli): Promise<{ code: number; out: string; err: string }> {
  const [flag, file, ...rest] = argv;
  if ((flag !== "--before" && flag !== "--after") || !file || rest.length)
    return { code: 2, out: "", err: `usage: node dist/src/${cli.vendor}/conformance/sweep.js --before <file> | --after <file>` };
  let provider: Sweepable;
  try {
    provider = cli.build();
  } catch (error) {
    return { code: 2, out: "", err: `${cli.name}: ${(error as Error).message}` };
  }
  if (flag === "--before") {
    const listed = await provider.labelled();
    if (!listed.ok) return { code: 2, out: "", err: `${cli.name}: ${listed.error.message}` };
    writeFileSync(file, `${JSON.stringify(listed.value)}\n`);
    return { code: 0, out: "", err: "" };
  }
  let before: string[];
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
    if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === "string")) throw new Error("not a list of ids");
    before = parsed;
  } catch (error) {
    return { code: 2, out: "", err: `${cli.name}: the before file ${file} cannot be read (${(error as Error).message}); nothing was released` };
  }
  const swept = await sweepAfter(provider, before);
  if (!swept.ok) return { code: 2, out: "", err: `${cli.name}: ${swept.message}` };
  const { swept: n, gone, stillThere } = swept.report;
  return { code: stillThere.length ? 1 : 0, out: JSON.stringify({ swept: n, [cli.goneKey ?? "gone"]: gone, stillThere }), err: "" };
}

/** Runs the command as a program: prints, and exits with its code. */
export async function runSweep(cli: SweepCli): Promise<never> {
  const { code, out, err } = await sweepMain(process.argv.slice(2), cli);
  if (out) process.stdout.write(`${out}\n`);
  if (err) process.stderr.write(`${err}\n`);
  process.exit(code);
}
