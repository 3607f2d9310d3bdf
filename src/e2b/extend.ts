// E2B's extend: one at a time per computer, each after the one before it. E2B's timer is moved
// (whole seconds, never past the cap of the create's time plus maxLifetimeMs), read back, and
// init's deadline moved to the same time through the daemon.
import type { CallOptions } from "../daemon/client.js";
import type { ComputerRef } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { codeOf, wordsOf } from "./calls.js";
import { EXTEND_PAST_MS } from "./constants.js";
import { createdEnd } from "./readback.js";
import type { E2BSandboxes } from "./sandboxes.js";

export class Extender {
  readonly #sb: E2BSandboxes;
  /** One extend of a computer at a time, each after the one before it. */
  readonly #extends = new Map<string, Promise<unknown>>();
  /** The deadline init took at each computer's last extend here. */
  readonly #initDeadline = new Map<string, number>();

  constructor(sb: E2BSandboxes) {
    this.#sb = sb;
  }

  async extend(ref: ComputerRef, ttlMs: number, options: CallOptions = {}): Promise<Result<{ deadline: string }>> {
    if (!Number.isInteger(ttlMs) || ttlMs <= 0) return fail("invalid", "extend takes ttlMs: a whole number of milliseconds above 0", { field: "ttlMs" });
    const key = String(ref?.id);
    const before = this.#extends.get(key) ?? Promise.resolve();
    const mine = before.then(() => this.#extendOnce(ref, ttlMs, options.signal));
    this.#extends.set(
      key,
      mine.catch(() => undefined),
    );
    return mine;
  }

  async #extendOnce(ref: ComputerRef, ttlMs: number, signal?: AbortSignal): Promise<Result<{ deadline: string }>> {
    const sb = this.#sb;
    const found = await sb.target(ref, signal);
    if (!found.ok) return found;
    const { info, own } = found.value;
    const now = Date.now();
    const cap = Date.parse(own.max);
    const held = Math.max(new Date(info.endAt).getTime(), this.#initDeadline.get(info.sandboxId) ?? Date.parse(own.deadline));
    if (now + ttlMs > cap)
      return fail("limit", `${ref.name} cannot live past ${own.max} (its create's time plus the cap of ${sb.o.maxLifetimeMs} ms), so nothing moved`, {
        field: "ttlMs",
      });
    const want = Math.max(now + ttlMs, createdEnd(info, own) + EXTEND_PAST_MS);
    // Whole seconds, rounded down at the cap, so E2B's end never passes it by this machine's clock.
    const seconds = Math.floor((Math.min(want, cap) - now) / 1000);
    if (now + seconds * 1000 < held) {
      return fail(
        "limit",
        `${ref.name}'s deadline stays ${new Date(held).toISOString()}: no whole number of seconds within the cap (${own.max}) reaches it from now + ${ttlMs} ms, so nothing moved`,
        { field: "ttlMs" },
      );
    }
    const set = await sb.e2b(`Sandbox.setTimeout of ${own.name}`, (sdk, opts) => sdk.setTimeout(info.sandboxId, seconds * 1000, opts), signal);
    if (!set.ok) return set;
    const after = await sb.getInfo(info.sandboxId, signal);
    if (!after.ok)
      return fail(after.error.code, `E2B's timer of ${own.name} moved, but it could not be read back, so init's deadline did not: ${after.error.message}`);
    const at = new Date(Math.min(new Date(after.value.endAt).getTime(), cap)).toISOString();
    const connection = await sb.connectTo({ info: after.value, own }, signal);
    const notMoved = `E2B's timer of ${own.name} moved to ${at} and init's deadline did not (its programs end at the old one)`;
    if (!connection.ok) return fail(connection.error.code, `${notMoved}: ${connection.error.message}`);
    try {
      const took = await connection.value.client.call("deadline.extend", { at }, signal ? { signal } : {});
      this.#initDeadline.set(info.sandboxId, Date.parse(took.at));
      return ok({ deadline: took.at });
    } catch (error) {
      return fail(codeOf(error) === "failed" ? "refused" : codeOf(error), `${notMoved}: ${wordsOf(error)}`);
    } finally {
      await connection.value.close();
    }
  }
}
