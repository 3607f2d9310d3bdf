// The computer's user when neither the spec nor the provider names one.

/** This process's uid:gid, or 1000:1000 when its uid or gid is 0: a computer is never root unless asked. */
export function processUser(): string {
  const uid = process.getuid?.() ?? 1000;
  const gid = process.getgid?.() ?? 1000;
  return uid === 0 || gid === 0 ? "1000:1000" : `${uid}:${gid}`;
}
