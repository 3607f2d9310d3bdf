// Defaults that follow the spec's Docker rules, shared by the resources.
import type { Settings } from "./config.js";

/**
 * The computer's user when none is declared: the docker settings' user, else this process's
 * uid:gid, or 1000:1000 when this process's uid or gid is 0 (a computer is never root unless asked).
 */
export function defaultUser(settings: Settings): string {
  if (settings.docker?.user) return settings.docker.user;
  const uid = process.getuid?.() ?? 1000;
  const gid = process.getgid?.() ?? 1000;
  return uid === 0 || gid === 0 ? "1000:1000" : `${uid}:${gid}`;
}
