// agentrun doctor: for every vendor configured (Docker, the default, always; each other one the
// stack's agentrun: config or a --set names), where its calls would go and whether its connection
// test passes: one line each, --json for CI. Exits 1 when any line fails; no key is ever printed.
import type { Command } from "commander";
import { hostEnvironment } from "../contract/host.js";
import { withoutValues } from "../daemon/redact.js";
import { DEFAULT_PROVIDER, isProviderId, PROVIDER_IDS, providerFromSettings } from "../providers.js";
import { testProvider } from "../registry/connection.js";
import { secretValues } from "../registry/settings.js";
import { bounded } from "./bounds.js";
import type { Context } from "./context.js";
import { EXIT, usageError } from "./errors.js";
import { collect, pairs } from "./settings.js";
import { agentrunConfig } from "./stack-config.js";
import { table } from "./table.js";

export interface DoctorLine {
  provider: string;
  /** Where its calls would go (the engine, the cluster, the vendor's address), or null when it could not be made. */
  target: string | null;
  ok: boolean;
  /** The failure's class (unauthorized, unreachable, invalid: settings refused, ...), null when it passed. */
  code: string | null;
  detail: string;
}

interface DoctorFlags {
  stack?: string;
  backend?: string;
  set?: string[];
  json?: boolean;
}

/** The settings by provider: the stack's, then each --set provider.key=value on top. */
async function configured(flags: DoctorFlags, signal: AbortSignal): Promise<Record<string, Record<string, unknown>>> {
  const byId: Record<string, Record<string, unknown>> = { [DEFAULT_PROVIDER]: {} };
  if (flags.stack) {
    const config = await agentrunConfig({ stack: flags.stack, cwd: process.cwd(), ...(flags.backend ? { backend: flags.backend } : {}) }, bounded(signal));
    for (const [id, settings] of Object.entries(config)) {
      if (!isProviderId(id)) continue;
      byId[id] = typeof settings === "object" && settings !== null ? { ...(settings as Record<string, unknown>) } : {};
    }
  }
  for (const [key, value] of Object.entries(pairs(flags.set, "--set", "doctor"))) {
    const [id, setting] = [key.slice(0, key.indexOf(".")), key.slice(key.indexOf(".") + 1)];
    if (!key.includes(".") || !isProviderId(id) || !setting)
      throw usageError(
        `--set takes <provider>.<key>=<value>, the provider one of ${PROVIDER_IDS.join(", ")}; ${JSON.stringify(key.slice(0, 40))} is not`,
        "doctor",
      );
    (byId[id] ??= {})[setting] = value;
  }
  return byId;
}

/** One vendor's line: made from its settings, then its one bounded account-level read. */
async function line(id: string, settings: Record<string, unknown>, signal: AbortSignal): Promise<DoctorLine> {
  const made = await providerFromSettings(id, settings, hostEnvironment());
  if (!made.ok) return { provider: id, target: null, ok: false, code: made.error.code, detail: `its settings were refused: ${made.error.message}` };
  const provider = made.value;
  try {
    const tested = await testProvider(id, provider, { signal });
    const target = provider.target?.() ?? null;
    return tested.ok
      ? { provider: id, target, ok: true, code: null, detail: tested.value.detail }
      : { provider: id, target, ok: false, code: tested.error.code, detail: tested.error.message };
  } finally {
    await provider.close?.();
  }
}

export function doctorCommand(program: Command, context: Context): Command {
  return program
    .command("doctor")
    .description("for each configured provider: where its calls go, and whether its connection test passes")
    .option("--stack <name>", "the providers and settings of this stack's agentrun: config (in the current project)")
    .option("--backend <url>", "the stack's state backend (default: file://<project>/.pulumi, as npm run up keeps it)")
    .option("--set <provider.key=value>", "a provider's setting, as the stack's agentrun:<provider>.<key> (repeatable)", collect)
    .option("--json", "the lines as JSON on stdout")
    .action(async (flags: DoctorFlags) => {
      const byId = await configured(flags, context.signal);
      const lines = await Promise.all(Object.entries(byId).map(([id, settings]) => line(id, settings, context.signal)));
      // A vendor may quote what it refused: no configured secret reaches the output.
      const secrets = secretValues(byId);
      const hide = (words: string) => withoutValues(words, secrets, "<secret>");
      const shown = lines.map((l) => ({ ...l, detail: hide(l.detail), target: l.target === null ? null : hide(l.target) }));
      if (flags.json) process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
      else
        process.stdout.write(
          table(
            ["PROVIDER", "TARGET", "TEST", "DETAIL"],
            shown.map((l) => [l.provider, l.target ?? "-", l.ok ? "ok" : l.code!, l.detail]),
          ),
        );
      if (shown.some((l) => !l.ok)) process.exitCode = EXIT.failed;
    });
}
