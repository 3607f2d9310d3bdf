// What the in-computer resources (ComputerFiles, ComputerCommand, ComputerApp) share on the
// plugin's side: the computer and provider fields, checked alike, and a session opened inside the
// named computer under the step's bound and the engine's cancel.
import type { CheckFailure } from "@pulumi/pulumi/provider/index.js";
import { z } from "zod";
import { withSession, type Session } from "../../src/inside/session.js";
import { DEFAULT_PROVIDER } from "../../src/providers.js";
import { fail, type Result } from "../../src/daemon/result.js";
import type { Context } from "../resource.js";
import { bounded, vendorOf } from "../resource.js";
import { UNKNOWN, type Props } from "../secrets.js";

/** The files a step wrote, as state keeps them: each by its path, read back (src/inside/load.ts's FileReadBack). */
export const WRITTEN = z.record(z.string(), z.looseObject({ sha256: z.string(), mode: z.string() }));

/** A variable name a command's or a service's env may set. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The computer and provider fields, refused into failures; the provider defaults to the registry's. */
export async function checkComputer(ctx: Context, given: Props, failures: CheckFailure[]): Promise<{ computer: unknown; provider: unknown }> {
  const computer = given.computer;
  if (computer !== UNKNOWN && (typeof computer !== "string" || computer === "")) {
    failures.push({ property: "computer", reason: "computer is required: the name of the Computer to act inside (a Computer's `name` output)" });
  }
  const provider = given.provider ?? DEFAULT_PROVIDER;
  if (provider !== UNKNOWN) {
    const made = typeof provider === "string" ? await ctx.vendor(provider) : undefined;
    if (!made?.ok) failures.push({ property: "provider", reason: made ? made.error.message : "provider is a provider's registry id, such as docker" });
  }
  return { computer, provider };
}

/** Work in a session inside the named computer (stored state that names none is refused), bounded by ms and the engine's cancel; the signal is the work's too. */
export async function inComputer<T>(
  ctx: Context,
  where: { computer?: string; provider?: string },
  ms: number,
  work: (session: Session, signal: AbortSignal) => Promise<Result<T>>,
): Promise<Result<T>> {
  if (where.computer === undefined) return fail("invalid", "the resource's state names no computer to act inside");
  const provider = await vendorOf(ctx, where.provider ?? DEFAULT_PROVIDER);
  const signal = bounded(ctx, ms);
  return withSession(provider, where.computer, { signal }, (session) => work(session, signal));
}
