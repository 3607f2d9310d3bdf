#!/usr/bin/env node
// The sweep around a live Daytona run: --before <file> records the id of every sandbox carrying
// agentrun.computer=1; --after <file> deletes every one not in it (release "delete", which refuses
// a sandbox that is not a computer), reads each until Daytona answers 404, up to 60 s each, and
// prints {"swept":n,"notFound":m,"stillThere":[ids]}. Exit 0 when every swept sandbox reads 404,
// 1 when one is still there, 2 on a usage error, an unreadable file, no key or a refused listing.
// It reads COMPUTER_DAYTONA_API_KEY and COMPUTER_DAYTONA_API_URL through the conformance module.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { DaytonaProvider } from "../daytona/provider.js";
import { createProvider, settingsFromEnv } from "./daytona.js";

const USAGE = "usage: node dist/src/conformance/daytona-sweep.js --before <file> | --after <file>";
const GONE_MS = 60_000;

export interface SweepReport {
  swept: number;
  notFound: number;
  stillThere: string[];
}

/** The sweep itself, given the provider: its report, or the words of why nothing was deleted. */
export async function sweepAfter(provider: DaytonaProvider, before: readonly string[]): Promise<{ ok: true; report: SweepReport } | { ok: false; message: string }> {
  const listed = await provider.labelled();
  if (!listed.ok) return { ok: false, message: `Daytona's listing was refused, so nothing was deleted: ${listed.error.message}` };
  const known = new Set(before);
  const fresh = listed.value.filter((id) => !known.has(id));
  const report: SweepReport = { swept: fresh.length, notFound: 0, stillThere: [] };
  await Promise.all(fresh.map(async (id) => {
    await provider.release({ id, name: id, provider: "daytona" }, "delete", { signal: AbortSignal.timeout(GONE_MS) });
    const until = Date.now() + GONE_MS;
    for (;;) {
      const gone = await provider.gone(id);
      if (gone.ok && gone.value) return void (report.notFound += 1);
      if (Date.now() > until) return void report.stillThere.push(id);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }));
  return { ok: true, report };
}

export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const [flag, file, ...rest] = argv;
  if ((flag !== "--before" && flag !== "--after") || !file || rest.length) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let provider: DaytonaProvider;
  try {
    provider = createProvider(settingsFromEnv(env));
  } catch (error) {
    process.stderr.write(`daytona-sweep: ${(error as Error).message}\n`);
    return 2;
  }
  if (flag === "--before") {
    const listed = await provider.labelled();
    if (!listed.ok) {
      process.stderr.write(`daytona-sweep: ${listed.error.message}\n`);
      return 2;
    }
    writeFileSync(file, `${JSON.stringify(listed.value)}\n`);
    return 0;
  }
  let before: string[];
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
    if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === "string")) throw new Error("not a list of ids");
    before = parsed;
  } catch (error) {
    process.stderr.write(`daytona-sweep: the before file ${file} cannot be read (${(error as Error).message}); nothing was deleted\n`);
    return 2;
  }
  const swept = await sweepAfter(provider, before);
  if (!swept.ok) {
    process.stderr.write(`daytona-sweep: ${swept.message}\n`);
    return 2;
  }
  process.stdout.write(`${JSON.stringify(swept.report)}\n`);
  return swept.report.stillThere.length ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main(process.argv.slice(2), process.env).then((code) => process.exit(code));
}
