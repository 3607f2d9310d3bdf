// This provider's phones: the ledger joined with the service's sessions. Only phones the ledger
// names are seen, never another session of the account; a phone the service ended is forgotten
// once its own GET is a 404; a pending create's entry takes the one session whose request_key is
// its key exactly, so a phone made under a lost create is found and ended.
import { type ComputerInfo, type ComputerRef, type SpecReadBack } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import type { Hello } from "../daemon/protocol.js";
import { PhoneHarnessApi, type Session } from "./api.js";
import { PhoneClient } from "./client.js";
import { phoneGroups } from "./apps.js";
import type { LedgerEntry } from "./ledger.js";
import { linkPhone } from "./link.js";
import type { Settled } from "./options.js";
import { AdbError } from "./adb.js";

export const PROVIDER_ID = "phone-harness";
export const PENDING = "pending-";
/** The shell user adb's commands run as on Android. */
export const SHELL_USER = "2000:2000";

export class Phones {
  readonly api: PhoneHarnessApi;
  constructor(readonly o: Settled) {
    this.api = new PhoneHarnessApi(o);
  }

  refOf(entry: LedgerEntry, hello?: Hello): ComputerRef {
    return { id: entry.id, name: entry.id, provider: PROVIDER_ID, spec: this.specOf(entry), ...(hello ? { hello } : {}) };
  }

  specOf(entry: LedgerEntry): SpecReadBack {
    return { image: entry.image, user: SHELL_USER, network: "open", deadline: entry.deadline, kind: "android" };
  }

  /** The ledger's live phones, read before GET /sessions so a phone a create records meanwhile is never forgotten. */
  async list(signal?: AbortSignal): Promise<Result<{ entry: LedgerEntry; session: Session }[]>> {
    const entries = await this.o.ledger.list();
    const listed = await this.api.list(signal);
    if (!listed.ok) return listed;
    const sessions = listed.value.sessions;
    const out: { entry: LedgerEntry; session: Session }[] = [];
    for (const entry of entries) {
      if (entry.id.startsWith(PENDING)) {
        const found = sessions.find((s) => s.request_key === entry.requestKey);
        if (found) {
          const made = { ...entry, id: found.id };
          await this.o.ledger.put(made);
          await this.o.ledger.remove(entry.id);
          out.push({ entry: made, session: found });
        } else if (Date.parse(entry.deadline) < Date.now()) await this.o.ledger.remove(entry.id);
        continue;
      }
      const session = sessions.find((s) => s.id === entry.id) ?? (await this.readGone(entry, signal));
      if (session === "error") return fail("unreachable", `the phone harness did not say whether ${entry.id} still runs`);
      if (session && !entry.released) out.push({ entry, session });
    }
    return ok(out);
  }

  /** A phone the listing left out, read on its own: forgotten once its GET is a 404. */
  private async readGone(entry: LedgerEntry, signal?: AbortSignal): Promise<Session | undefined | "error"> {
    const one = await this.api.get(entry.id, signal);
    if (one.ok) return one.value;
    if (one.error.code !== "not_found") return "error";
    await this.o.ledger.remove(entry.id);
    return undefined;
  }

  infoOf({ entry }: { entry: LedgerEntry }): ComputerInfo {
    return { ref: this.refOf(entry), labels: entry.labels, deadline: new Date(entry.deadline), state: "running", network: "open" };
  }

  /** The ledger's live phone by id, read at the service: not_found for one it does not name, one released, or one the service ended. */
  async find(id: string, signal?: AbortSignal): Promise<Result<{ entry: LedgerEntry; session: Session }>> {
    if (typeof id !== "string" || !id || id.startsWith(PENDING)) return fail("invalid", "a phone-harness ref has its session id", { field: "id" });
    const entry = await this.o.ledger.get(id);
    if (!entry || entry.released) return fail("not_found", `${id} is not a phone of this provider's ledger (or it was released)`);
    const session = await this.api.get(id, signal);
    if (!session.ok) {
      if (session.error.code === "not_found") await this.o.ledger.remove(id);
      return session.error.code === "not_found" ? fail("not_found", `the phone ${id} has ended`) : session;
    }
    return ok({ entry, session: session.value });
  }

  /** A client that reports another version than the provider holds it to, refused in words; undefined when it is the provider's. */
  versionDrift(client: PhoneClient): { ok: false; error: { code: "refused"; message: string } } | undefined {
    if (client.hello.version === this.o.version) return undefined;
    return {
      ok: false,
      error: { code: "refused", message: `the phone's client reports version ${client.hello.version}, not the provider's ${this.o.version}` },
    };
  }

  /** The session's adb link, connected and unlocked, and probed (its screen's size and density). */
  async connect(id: string, signal?: AbortSignal): Promise<Result<PhoneClient>> {
    const link = await this.api.adb(id, signal);
    if (!link.ok) return link.error.code === "not_found" ? fail("gone", `the phone ${id} has ended`) : link;
    try {
      const phone = await linkPhone(this.o.adb, link.value.endpoint, link.value.unlock_code, signal);
      try {
        const density = Number(/(\d+)\s*$/.exec((await phone.shell("wm density", signal)).trim())?.[1]);
        const size = /(\d+)x(\d+)/.exec(await phone.shell("wm size", signal));
        if (!size || !density) throw new AdbError("refused", "the phone did not say its screen's size and density");
        const hello: Hello = {
          version: this.o.helloVersion,
          os: "android",
          kind: "android",
          arch: "unknown",
          groups: phoneGroups(this.o.installFrom !== undefined),
        };
        return ok(new PhoneClient(phone, hello, density / 160, this.o.installFrom));
      } catch (error) {
        await phone.close();
        throw error;
      }
    } catch (error) {
      if (!(error instanceof AdbError)) throw error;
      return fail(error.kind === "aborted" ? "aborted" : "unreachable", `connecting to the phone ${id} through adb failed: ${error.message}`);
    }
  }
}
