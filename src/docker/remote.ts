// What an engine on another host changes. Its folders are not this machine's, so the daemon goes
// into each computer by the Engine API (an archive put before start), not a bind of a path here,
// and a run folder is bound only from where the caller says the engine's host has it. Its
// addresses are not this machine's interfaces, so an allowlist needs them named.
import path from "node:path";
import type { Refusal } from "../daemon/result.js";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import type { EngineAddress } from "./engine.js";
import type { TarFile } from "../kits/image/tar.js";

/** A remote engine as check and create see it. */
export interface RemoteEngine {
  engine: EngineAddress;
  /** The engine host's folders a run folder may be bound from (absolute paths there). */
  hostFolders: readonly string[];
}

/** Why this machine is not the Docker host, in words, for the refusals that hang on it. */
export function elsewhereWords(engine: EngineAddress): string {
  return `the Docker engine is ${engine.address} (from ${engine.from}), another host's`;
}

/** A run folder's bind on a remote engine: refused unless it is at or below one of hostFolders. */
export function remoteBindRefusal(folder: string, remote: RemoteEngine): Refusal | undefined {
  const inside = remote.hostFolders.some((f) => {
    const rel = path.posix.relative(path.posix.normalize(f), folder);
    return path.posix.isAbsolute(f) && !rel.startsWith("..") && !path.posix.isAbsolute(rel);
  });
  if (inside) return undefined;
  return {
    field: "mount.path",
    message: `${elsewhereWords(remote.engine)}, so the run folder ${folder} would be bound from that host's disk, not this machine's; say the engine's host has it with agentrun:docker's engine.hostFolders (the provider's hostFolders option) naming a folder at or above it there, or make the computer with no mount`,
  };
}

/** The daemon as a file of the archive put at / of a computer before it starts: /opt/agentrun/computerd, 0755, root's. */
export function daemonFile(daemon: Uint8Array): TarFile {
  return { path: DAEMON_IN_COMPUTER.slice(1), mode: 0o755, bytes: daemon };
}
