#!/usr/bin/env node
// The sweep around a live Modal run:
//   node dist/src/modal/conformance/sweep.js --before /tmp/modal-before.json
//   AGENTRUN_COMPUTER_LIVE_MODAL=1 npm run conformance -- --provider modal
//   node dist/src/modal/conformance/sweep.js --after /tmp/modal-before.json
// It reads COMPUTER_MODAL_TOKEN_ID, COMPUTER_MODAL_TOKEN_SECRET, COMPUTER_MODAL_APP and
// COMPUTER_MODAL_SERVER_URL alone (through the conformance module's settingsFromEnv), and makes its
// client the same pinned way. --after prints {"swept":n,"gone":m,"stillThere":[ids]} and exits 0
// when every swept sandbox has finished, 1 when one still runs, 2 on a usage error, an unreadable
// or foreign before file, a missing token or app, or a listing Modal refused, having ended nothing.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { DEFAULT_SERVER_URL, modalClient } from "../client.js";
import type { ModalSdk } from "../sdk.js";
import { computerIds, recordProblem, sweep, type SweepRecord } from "../sweep.js";
import { settingsFromEnv } from "./module.js";

const USAGE = "usage: modal-sweep --before <file> | --after <file>";

export async function sweepMain(
  argv: string[],
  env: Record<string, string | undefined>,
  sdkFor?: (settings: ReturnType<typeof settingsFromEnv>) => ModalSdk,
): Promise<{ code: number; out: string; err: string }> {
  const [flag, file, ...rest] = argv;
  if ((flag !== "--before" && flag !== "--after") || !file || rest.length > 0) return { code: 2, out: "", err: USAGE };
  let settings;
  try {
    settings = settingsFromEnv(env);
  } catch (error) {
    return { code: 2, out: "", err: (error as Error).message };
  }
  const server = settings.serverUrl ?? DEFAULT_SERVER_URL;
  let record: SweepRecord | undefined;
  if (flag === "--after") {
    try {
      record = JSON.parse(readFileSync(file, "utf8")) as SweepRecord;
    } catch {
      return { code: 2, out: "", err: `the before file ${file} could not be read as JSON` };
    }
    const problem = recordProblem(record, settings.app, server);
    if (problem) return { code: 2, out: "", err: problem };
  }
  let sdk: ModalSdk;
  try {
    sdk = sdkFor ? sdkFor(settings) : modalClient({ tokenId: settings.tokenId!, tokenSecret: settings.tokenSecret!, serverUrl: server });
  } catch (error) {
    return { code: 2, out: "", err: (error as Error).message };
  }
  if (flag === "--before") {
    const ids = await computerIds(sdk, settings.app);
    if (!ids.ok) return { code: 2, out: "", err: `Modal refused the listing: ${ids.error.message}` };
    writeFileSync(file, `${JSON.stringify({ app: settings.app, server, ids: ids.value } satisfies SweepRecord)}\n`);
    return { code: 0, out: JSON.stringify({ recorded: ids.value.length }), err: "" };
  }
  const swept = await sweep(sdk, record!);
  if (!swept.ok) return { code: 2, out: "", err: `Modal refused the listing: ${swept.error.message}` };
  return { code: swept.value.stillThere.length > 0 ? 1 : 0, out: JSON.stringify(swept.value), err: "" };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { code, out, err } = await sweepMain(process.argv.slice(2), process.env);
  if (out) process.stdout.write(`${out}\n`);
  if (err) process.stderr.write(`${err}\n`);
  process.exit(code);
}
