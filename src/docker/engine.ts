// Which Docker engine the provider talks to, found as the docker CLI finds it: DOCKER_HOST, else
// the context DOCKER_CONTEXT or the CLI config's currentContext names, else the default socket.
// The library reads no environment: the caller hands its environment in, and the answer is the
// provider's engine option. Only a local unix socket is taken; the rest is refused in words.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { HostEnvironment } from "../contract/provider.js";
import { fail, ok, type Result } from "../contract/result.js";

/** The engine the CLI talks to when nothing names another. */
export const DEFAULT_ENGINE = "unix:///var/run/docker.sock";

export interface EngineAddress {
  /** As written: unix:///path. */
  address: string;
  /** The unix socket's path. */
  socket: string;
  /** Where the address came from, for words: "DOCKER_HOST", "the context x", or "the default". */
  from: string;
}

/** The unix socket an address names, or a refusal saying what is not supported and what to do. */
export function engineAt(address: string, from = "the engine option"): Result<EngineAddress> {
  if (typeof address !== "string" || address.length === 0 || address.includes("\0")) {
    return fail("invalid", `${from} is empty or not a string; give a unix socket, unix:///var/run/docker.sock`, { field: "engine" });
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(address)?.[1]?.toLowerCase();
  if (scheme === "unix") {
    const socket = address.slice("unix://".length);
    if (!path.isAbsolute(socket))
      return fail("invalid", `${from} is ${address}: a unix socket's path is absolute (unix:///var/run/docker.sock)`, { field: "engine" });
    return ok({ address, socket: path.normalize(socket), from });
  }
  if (scheme === undefined && path.isAbsolute(address)) return ok({ address: `unix://${address}`, socket: path.normalize(address), from });
  const why: Record<string, string> = {
    tcp: "a Docker engine over TCP (with or without TLS) is not supported",
    http: "a Docker engine over HTTP is not supported",
    https: "a Docker engine over HTTPS is not supported",
    ssh: "a Docker engine over ssh is not supported",
    npipe: "a Windows named pipe is not supported",
    fd: "a socket passed as a file descriptor is not supported",
  };
  const words = (scheme && why[scheme]) ?? `${JSON.stringify(address.slice(0, 80))} is not an engine address this provider takes`;
  return fail(
    "unsupported",
    `${from} names ${scheme ? `${scheme}://…` : "no unix socket"}: ${words}; the provider talks to a local engine over its unix socket (unix:///var/run/docker.sock). Reach a remote engine through a local socket (ssh -L /path/docker.sock:/var/run/docker.sock) and give that`,
    { field: "engine" },
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
 * The engine as the docker CLI resolves it from this environment (DOCKER_HOST, DOCKER_CONTEXT,
 * DOCKER_CONFIG) and config (under DOCKER_CONFIG, else home's .docker): DOCKER_HOST wins;
 * else the context DOCKER_CONTEXT names, else the config's currentContext; the context "default"
 * (or none) is unix:///var/run/docker.sock. A context's address is its meta.json's
 * Endpoints.docker.Host, under contexts/meta/<sha256 of its name>/.
 */
export function resolveEngine(lookup: HostEnvironment): Result<EngineAddress> {
  const { env } = lookup;
  if (env.DOCKER_HOST) return engineAt(env.DOCKER_HOST, "DOCKER_HOST");
  const configDir = env.DOCKER_CONFIG || path.join(lookup.home, ".docker");
  let name = env.DOCKER_CONTEXT || undefined;
  if (name === undefined) {
    const current = currentContext(configDir);
    if (!current.ok) return current;
    name = current.value;
  }
  if (name === undefined || name === "default") return engineAt(DEFAULT_ENGINE, "the default engine");
  const where = `the docker context ${JSON.stringify(name)}`;
  const meta = path.join(configDir, "contexts", "meta", createHash("sha256").update(name).digest("hex"), "meta.json");
  let host: unknown;
  let tls: unknown;
  try {
    const read = JSON.parse(readFileSync(meta, "utf8")) as { Endpoints?: { docker?: { Host?: unknown; SkipTLSVerify?: unknown } } };
    host = read.Endpoints?.docker?.Host;
    tls = read.Endpoints?.docker?.SkipTLSVerify;
  } catch {
    return fail("not_found", `${where} is not there (no ${meta}); run docker context ls, or give the engine option`, { field: "engine" });
  }
  if (typeof host !== "string" || !host) return fail("invalid", `${where} names no Docker endpoint in ${meta}; give the engine option`, { field: "engine" });
  if (tls === true)
    return fail("unsupported", `${where} skips TLS verification for ${host}: a Docker engine over TLS is not supported; give a local unix socket`, {
      field: "engine",
    });
  return engineAt(host, where);
}
