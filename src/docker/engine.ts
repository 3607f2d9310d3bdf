// Which Docker engine the provider talks to, found as the docker CLI finds it: DOCKER_HOST (with
// DOCKER_TLS_VERIFY and DOCKER_CERT_PATH), else the context DOCKER_CONTEXT or the CLI config's
// currentContext names (its endpoint and TLS material), else the default socket. The library
// reads no environment: the caller hands its environment in, and the answer is the provider's
// engine option. A local unix socket, TCP with TLS verified both ways, and ssh are taken; plain
// TCP is refused in words (an engine anyone on the network may ask is root on its host).
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { HostEnvironment } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";

/** The engine the CLI talks to when nothing names another. */
export const DEFAULT_ENGINE = "unix:///var/run/docker.sock";

/** The TLS material of an engine over TCP, as files: the CA that signed the engine's certificate, and this client's certificate and key. */
export interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
}

interface Located {
  /** As written: unix:///path, tcp://host:port, ssh://user@host:port. */
  address: string;
  /** Where the address came from, for words: "DOCKER_HOST", "the docker context x", or "the default engine". */
  from: string;
}

/** An engine on this machine, at its unix socket. */
export interface UnixEngine extends Located {
  kind?: "unix";
  socket: string;
}

/** An engine over TCP, TLS verified both ways. */
export interface TcpEngine extends Located {
  kind: "tcp";
  host: string;
  port: number;
  tls: TlsFiles;
}

/** An engine reached through this machine's ssh client running `docker system dial-stdio` on its host. */
export interface SshEngine extends Located {
  kind: "ssh";
  host: string;
  user?: string;
  port?: number;
  /** The ssh client's argv before its own arguments (default ["ssh"]): ["ssh", "-F", "/path/config"]. */
  ssh: string[];
}

export type EngineAddress = UnixEngine | TcpEngine | SshEngine;

/** What an address may carry besides itself: the TLS files of a tcp:// one, the ssh client of an ssh:// one. */
export interface EngineExtras {
  tls?: TlsFiles;
  ssh?: string[];
}

/** Whether the engine is another host's: every address but a unix socket. */
export function isRemote(engine: EngineAddress): engine is TcpEngine | SshEngine {
  return engine.kind === "tcp" || engine.kind === "ssh";
}

const refuse = (from: string, words: string) => fail("unsupported", `${from} ${words}`, { field: "engine" });

/** The TLS files of a directory as the docker CLI names them (ca.pem, cert.pem, key.pem). */
export function tlsIn(dir: string): TlsFiles {
  return { ca: path.join(dir, "ca.pem"), cert: path.join(dir, "cert.pem"), key: path.join(dir, "key.pem") };
}

/** Each TLS file that is missing, in words, or undefined when all are there. */
function missingTls(tls: TlsFiles | undefined): string | undefined {
  if (!tls) return "no TLS material";
  const missing = (["ca", "cert", "key"] as const).filter((k) => typeof tls[k] !== "string" || !existsSync(tls[k]));
  return missing.length ? `no ${missing.map((k) => `${k} (${tls[k] ?? "unset"})`).join(", ")}` : undefined;
}

/** The engine an address names, or a refusal saying what is not supported and what to do. */
export function engineAt(address: string, from = "the engine option", extras: EngineExtras = {}): Result<EngineAddress> {
  if (typeof address !== "string" || address.length === 0 || address.includes("\0")) {
    return fail("invalid", `${from} is empty or not a string; give unix:///var/run/docker.sock, tcp://host:2376 with its TLS files, or ssh://user@host`, {
      field: "engine",
    });
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(address)?.[1]?.toLowerCase();
  if (scheme === "unix") {
    const socket = address.slice("unix://".length);
    if (!path.isAbsolute(socket))
      return fail("invalid", `${from} is ${address}: a unix socket's path is absolute (unix:///var/run/docker.sock)`, { field: "engine" });
    return ok({ address, socket: path.normalize(socket), from });
  }
  if (scheme === undefined && path.isAbsolute(address)) return ok({ address: `unix://${address}`, socket: path.normalize(address), from });
  if (scheme === "tcp" || scheme === "https") {
    let url: URL;
    try {
      url = new URL(`https://${address.slice(scheme.length + 3)}`);
    } catch {
      return fail("invalid", `${from} is not a tcp://host:port address`, { field: "engine" });
    }
    if (url.pathname !== "/" || url.search || url.username) return fail("invalid", `${from} is tcp://host:port and nothing more`, { field: "engine" });
    const missing = missingTls(extras.tls);
    if (missing) {
      return refuse(
        from,
        `names an engine over TCP with ${missing}: the provider talks TCP to an engine only with TLS verified both ways (the engine's certificate against a CA, and this client's certificate and key), as an engine that takes plain TCP is root on its host for anyone who reaches it. Set DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH (ca.pem, cert.pem, key.pem), use a docker context made with --docker "host=tcp://…,ca=…,cert=…,key=…", or give the engine option { host, certPath }`,
      );
    }
    return ok({ kind: "tcp", address, host: url.hostname.replace(/^\[|\]$/g, ""), port: Number(url.port || 2376), tls: extras.tls!, from });
  }
  if (scheme === "ssh") {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      return fail("invalid", `${from} is not an ssh://user@host[:port] address`, { field: "engine" });
    }
    if ((url.pathname && url.pathname !== "/") || url.search || url.password)
      return fail("invalid", `${from} is ssh://user@host[:port] and nothing more (no password, no path)`, { field: "engine" });
    const ssh = extras.ssh ?? ["ssh"];
    if (!Array.isArray(ssh) || ssh.length === 0 || !ssh.every((a) => typeof a === "string" && a.length > 0))
      return fail("invalid", `${from}: the ssh client is an argv, a list of strings such as ["ssh"]`, { field: "engine" });
    return ok({
      kind: "ssh",
      address,
      host: url.hostname.replace(/^\[|\]$/g, ""),
      ...(url.username ? { user: decodeURIComponent(url.username) } : {}),
      ...(url.port ? { port: Number(url.port) } : {}),
      ssh,
      from,
    });
  }
  const why: Record<string, string> = {
    http: "a Docker engine over plain HTTP is not supported: an engine anyone on the network may ask is root on its host; give tcp:// with TLS verified",
    npipe: "a Windows named pipe is not supported",
    fd: "a socket passed as a file descriptor is not supported",
  };
  const words = (scheme && why[scheme]) ?? `${JSON.stringify(address.slice(0, 80))} is not an engine address this provider takes`;
  return refuse(
    from,
    `names ${scheme ? `${scheme}://…` : "no engine address"}: ${words}; give unix:///path, tcp://host:port with its TLS files, or ssh://user@host`,
  );
}

/** The CLI config's currentContext, or undefined when the file or the key is not there. */
function currentContext(configDir: string): Result<string | undefined> {
  let text: string;
  try {
    text = readFileSync(path.join(configDir, "config.json"), "utf8");
  } catch {
    return ok(undefined);
  }
  try {
    const context = (JSON.parse(text) as { currentContext?: unknown }).currentContext;
    return ok(typeof context === "string" && context ? context : undefined);
  } catch {
    return fail(
      "invalid",
      `${path.join(configDir, "config.json")} is not JSON, so the docker CLI's current context cannot be read; fix it, or give the engine option`,
      { field: "engine" },
    );
  }
}

/**
 * A docker context by name, as the CLI stores it under configDir: its address is meta.json's
 * Endpoints.docker.Host, under contexts/meta/<sha256 of its name>/; its TLS files are
 * contexts/tls/<the same>/docker/{ca,cert,key}.pem. One that skips TLS verification is refused.
 */
export function contextEngine(configDir: string, name: string, extras: Pick<EngineExtras, "ssh"> = {}): Result<EngineAddress> {
  if (name === "default") return engineAt(DEFAULT_ENGINE, "the default engine");
  const where = `the docker context ${JSON.stringify(name)}`;
  const hash = createHash("sha256").update(name).digest("hex");
  const meta = path.join(configDir, "contexts", "meta", hash, "meta.json");
  let host: unknown;
  let skip: unknown;
  try {
    const read = JSON.parse(readFileSync(meta, "utf8")) as { Endpoints?: { docker?: { Host?: unknown; SkipTLSVerify?: unknown } } };
    host = read.Endpoints?.docker?.Host;
    skip = read.Endpoints?.docker?.SkipTLSVerify;
  } catch {
    return fail("not_found", `${where} is not there (no ${meta}); run docker context ls, or give the engine option`, { field: "engine" });
  }
  if (typeof host !== "string" || !host) return fail("invalid", `${where} names no Docker endpoint in ${meta}; give the engine option`, { field: "engine" });
  if (skip === true)
    return refuse(
      where,
      `skips TLS verification for ${host}: the provider talks to an engine over TCP only with its certificate verified; make the context with its ca, cert and key`,
    );
  return engineAt(host, where, { tls: tlsIn(path.join(configDir, "contexts", "tls", hash, "docker")), ...extras });
}

/**
 * The engine as the docker CLI resolves it from this environment (DOCKER_HOST, DOCKER_TLS_VERIFY,
 * DOCKER_CERT_PATH, DOCKER_CONTEXT, DOCKER_CONFIG) and config (under DOCKER_CONFIG, else home's
 * .docker): DOCKER_HOST wins, its TLS files in DOCKER_CERT_PATH (default the config directory)
 * when DOCKER_TLS_VERIFY is set; else the context DOCKER_CONTEXT names, else the config's
 * currentContext; the context "default" (or none) is unix:///var/run/docker.sock.
 */
export function resolveEngine(lookup: HostEnvironment): Result<EngineAddress> {
  const { env } = lookup;
  const configDir = env.DOCKER_CONFIG || path.join(lookup.home, ".docker");
  if (env.DOCKER_HOST) {
    // The CLI verifies the engine's certificate when DOCKER_TLS_VERIFY is set at all; DOCKER_TLS
    // alone is TLS unverified, which is refused as plain TCP is.
    const tls = env.DOCKER_TLS_VERIFY ? tlsIn(env.DOCKER_CERT_PATH || configDir) : undefined;
    return engineAt(env.DOCKER_HOST, "DOCKER_HOST", tls ? { tls } : {});
  }
  let name = env.DOCKER_CONTEXT || undefined;
  if (name === undefined) {
    const current = currentContext(configDir);
    if (!current.ok) return current;
    name = current.value;
  }
  if (name === undefined) return engineAt(DEFAULT_ENGINE, "the default engine");
  return contextEngine(configDir, name);
}
