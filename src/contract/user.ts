// A computer's user: the one rule of its shape and bounds, its normal form, and the default when
// neither the spec nor the provider names one. A Mount's owner and a Computer's user are the same
// value, so both are held to this rule and cannot disagree.
import { fail, ok, type Result } from "../daemon/result.js";

/** The highest uid or gid a container runtime takes (runc and Docker refuse ids past 2^31 - 1). */
export const MAX_ID = 2 ** 31 - 1;

export interface User {
  uid: number;
  gid: number;
}

const USER = /^(0|[1-9][0-9]*)(?::(0|[1-9][0-9]*))?$/;

/**
 * A uid or uid:gid in numbers, parsed; a uid alone is its own gid. A name is refused: the
 * computer's image may not have it. The words never hold the value (it may be a misplaced secret).
 */
export function parseUser(user: unknown): Result<User> {
  const m = typeof user === "string" ? USER.exec(user) : null;
  if (!m)
    return fail("invalid", "user is a uid or uid:gid in numbers, such as 1000:1000 (a name is refused: the computer's image may not have it)", {
      field: "user",
    });
  const uid = Number(m[1]);
  const gid = m[2] === undefined ? uid : Number(m[2]);
  if (uid > MAX_ID || gid > MAX_ID) return fail("invalid", `user's ids are at most ${MAX_ID}`, { field: "user" });
  return ok({ uid, gid });
}

/** Why the value is not a user, or undefined when it is one. */
export function userProblem(user: unknown): string | undefined {
  const parsed = parseUser(user);
  return parsed.ok ? undefined : parsed.error.message;
}

/** uid:gid, the normal form every read-back compares ("1000" is written "1000:1000"). */
export function userText(user: User): string {
  return `${user.uid}:${user.gid}`;
}

/** The user in its normal form; anything that is not a user is given back as it is, for a check to refuse. */
export function normalUser<T>(user: T): T | string {
  const parsed = parseUser(user);
  return parsed.ok ? userText(parsed.value) : user;
}

/** True for root or root's group: only a spec may ask for either. */
export function isRootOrRootGroup(user: User): boolean {
  return user.uid === 0 || user.gid === 0;
}

/** This process's uid:gid, or 1000:1000 when its uid or gid is 0: a computer is never root unless asked. */
export function processUser(): string {
  const uid = process.getuid?.() ?? 1000;
  const gid = process.getgid?.() ?? 1000;
  return uid === 0 || gid === 0 ? "1000:1000" : `${uid}:${gid}`;
}
