// The live network diagnostic (e2b-diagnose.js): one sandbox made as create makes one for network
// none, with E2B's timeout diagnoseMs; its read-back and the provider's check of it (passed, or
// its refusal in words); computerd probe --diagnose run in it as root, outside any namespace of
// the daemon's, so it reads what E2B's firewall does; then the sandbox killed and read back gone,
// whatever came before.
import { randomBytes } from "node:crypto";
import type { CallOptions } from "../daemon/client.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { COMPUTER_KEY, DEADLINE_KEY, IMAGE_KEY, MAX_KEY, NAME_KEY, TIMEOUT_KEY } from "./constants.js";
import { install, makeSandbox } from "./make.js";
import { infoDrift, labelsOf } from "./readback.js";
import type { E2BSandboxes } from "./sandboxes.js";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";

export type Diagnosis = { sandbox: string; readBack: unknown; check: string; diagnosis: unknown; gone: boolean; goneWords?: string };

export async function diagnose(sb: E2BSandboxes, template: string, options: CallOptions & { diagnoseMs?: number } = {}): Promise<Result<Diagnosis>> {
  const { signal } = options;
  const bytes = await sb.daemonBytes();
  if (!bytes.ok) return bytes;
  const daemon = bytes.value;
  const name = `computer-${randomBytes(6).toString("hex")}`;
  const now = Date.now();
  const timeoutS = Math.ceil((options.diagnoseMs ?? 600_000) / 1000);
  const at = (ms: number) => new Date(now + ms).toISOString();
  const metadata = {
    [COMPUTER_KEY]: "1",
    [NAME_KEY]: name,
    [DEADLINE_KEY]: at(timeoutS * 1000),
    [IMAGE_KEY]: template,
    [TIMEOUT_KEY]: String(timeoutS),
    [MAX_KEY]: at(timeoutS * 1000),
    "agentrun.diagnose": "1",
  };
  const made = await makeSandbox(sb, template, name, metadata, timeoutS, signal);
  if (!made.ok) return made;
  const id = made.value.sandboxId;
  let readBack: unknown;
  let check = "not read";
  let diagnosis: unknown;
  let failure: string | undefined;
  const info = await sb.getInfo(id, signal);
  if (info.ok) {
    readBack = { ...info.value, metadata: labelsOf(info.value.metadata) };
    const drift = infoDrift(info.value, { template, metadata, timeoutS });
    check = drift.length ? `refused: ${drift.join("; ")}` : "passed";
    const installed = await install(sb, made.value, name, daemon, signal);
    if (installed.ok) {
      const ran = await sb.run(made.value, `${DAEMON_IN_COMPUTER} probe --diagnose`, "computerd probe --diagnose", signal);
      if (ran.ok) {
        try {
          diagnosis = JSON.parse(ran.value.stdout.trim().split("\n").pop() ?? "");
        } catch {
          failure = `computerd probe --diagnose printed no JSON line (exit ${ran.value.exitCode}): ${ran.value.stderr.trim().slice(0, 400)}`;
        }
      } else failure = ran.error.message;
    } else failure = installed.error.message;
  } else failure = info.error.message;
  const gone = await sb.killAndWait(id);
  const out = { sandbox: id, readBack, check, diagnosis, gone: gone.ok, ...(gone.ok ? {} : { goneWords: gone.error.message }) };
  if (failure || diagnosis === undefined)
    return fail(
      signal?.aborted ? "aborted" : "failed",
      `${failure ?? "no diagnosis"}; ${gone.ok ? `${name} was killed` : `killing ${name} failed: ${gone.error.message}`}`,
    );
  return ok(out);
}
