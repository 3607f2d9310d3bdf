// The engine found as the docker CLI finds it, from an environment and a config handed in:
// DOCKER_HOST, then DOCKER_CONTEXT or the config's currentContext, then the default socket; and
// plain TCP, TLS unverified and TLS files missing refused in words.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { engineAt, resolveEngine } from "../../src/docker/engine.js";

const home = mkdtempSync(path.join(tmpdir(), "agentrun-engine-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** A context as `docker context create` writes it, under configDir. */
function context(configDir: string, name: string, endpoint: Record<string, unknown>): void {
  const dir = path.join(configDir, "contexts", "meta", createHash("sha256").update(name).digest("hex"));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "meta.json"), JSON.stringify({ Name: name, Metadata: {}, Endpoints: { docker: endpoint } }));
}

describe("resolveEngine", () => {
  const docker = path.join(home, ".docker");
  mkdirSync(docker, { recursive: true });
  context(docker, "rootless", { Host: "unix:///run/user/1000/docker.sock", SkipTLSVerify: false });
  context(docker, "remote", { Host: "ssh://builder@10.0.0.5", SkipTLSVerify: false });
  context(docker, "tls", { Host: "tcp://10.0.0.5:2376", SkipTLSVerify: true });

  it("is the default socket with nothing set and no config", () => {
    expect(resolveEngine({ env: {}, home: path.join(home, "nobody") })).toEqual({
      ok: true,
      value: { address: "unix:///var/run/docker.sock", socket: "/var/run/docker.sock", from: "the default engine" },
    });
  });

  it("takes DOCKER_HOST first, over any context", () => {
    expect(resolveEngine({ env: { DOCKER_HOST: "unix:///tmp/d.sock", DOCKER_CONTEXT: "rootless" }, home })).toMatchObject({
      ok: true,
      value: { socket: "/tmp/d.sock", from: "DOCKER_HOST" },
    });
  });

  it("takes the context DOCKER_CONTEXT names, then the config's currentContext", () => {
    expect(resolveEngine({ env: { DOCKER_CONTEXT: "rootless" }, home })).toMatchObject({
      ok: true,
      value: { socket: "/run/user/1000/docker.sock", from: 'the docker context "rootless"' },
    });
    writeFileSync(path.join(docker, "config.json"), JSON.stringify({ currentContext: "rootless" }));
    expect(resolveEngine({ env: {}, home })).toMatchObject({ ok: true, value: { socket: "/run/user/1000/docker.sock" } });
    expect(resolveEngine({ env: { DOCKER_CONTEXT: "default" }, home })).toMatchObject({ ok: true, value: { socket: "/var/run/docker.sock" } });
    rmSync(path.join(docker, "config.json"));
  });

  it("reads the config from DOCKER_CONFIG when it is set", () => {
    const elsewhere = path.join(home, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    context(elsewhere, "mine", { Host: "unix:///srv/docker.sock" });
    writeFileSync(path.join(elsewhere, "config.json"), JSON.stringify({ currentContext: "mine" }));
    expect(resolveEngine({ env: { DOCKER_CONFIG: elsewhere }, home })).toMatchObject({ ok: true, value: { socket: "/srv/docker.sock" } });
  });

  it("refuses in words a context that is not there, and one that skips TLS verification", () => {
    expect(resolveEngine({ env: { DOCKER_CONTEXT: "gone" }, home })).toMatchObject({ ok: false, error: { code: "not_found", field: "engine" } });
    const skip = resolveEngine({ env: { DOCKER_CONTEXT: "tls" }, home });
    expect(skip).toMatchObject({ ok: false, error: { code: "unsupported", field: "engine" } });
    if (!skip.ok) expect(skip.error.message).toMatch(/^the docker context "tls" skips TLS verification for tcp:\/\/10\.0\.0\.5:2376/);
  });

  it("takes a context over ssh: its user, host and port, through the ssh client", () => {
    expect(resolveEngine({ env: { DOCKER_CONTEXT: "remote" }, home })).toEqual({
      ok: true,
      value: { kind: "ssh", address: "ssh://builder@10.0.0.5", host: "10.0.0.5", user: "builder", ssh: ["ssh"], from: 'the docker context "remote"' },
    });
  });

  it("takes a context over TCP with its TLS files, from the context's own tls folder", () => {
    const hash = createHash("sha256").update("fleet").digest("hex");
    context(docker, "fleet", { Host: "tcp://10.0.0.9:2376", SkipTLSVerify: false });
    const tls = path.join(docker, "contexts", "tls", hash, "docker");
    const without = resolveEngine({ env: { DOCKER_CONTEXT: "fleet" }, home });
    expect(without).toMatchObject({ ok: false, error: { code: "unsupported", field: "engine" } });
    if (!without.ok) expect(without.error.message).toMatch(/with no ca .*, cert .*, key .*: .*root on its host/);
    mkdirSync(tls, { recursive: true });
    for (const f of ["ca.pem", "cert.pem", "key.pem"]) writeFileSync(path.join(tls, f), "");
    expect(resolveEngine({ env: { DOCKER_CONTEXT: "fleet" }, home })).toEqual({
      ok: true,
      value: {
        kind: "tcp",
        address: "tcp://10.0.0.9:2376",
        host: "10.0.0.9",
        port: 2376,
        tls: { ca: path.join(tls, "ca.pem"), cert: path.join(tls, "cert.pem"), key: path.join(tls, "key.pem") },
        from: 'the docker context "fleet"',
      },
    });
  });

  it("takes DOCKER_HOST over TCP only with DOCKER_TLS_VERIFY, its files in DOCKER_CERT_PATH", () => {
    const certs = path.join(home, "certs");
    mkdirSync(certs, { recursive: true });
    for (const f of ["ca.pem", "cert.pem", "key.pem"]) writeFileSync(path.join(certs, f), "");
    const plain = resolveEngine({ env: { DOCKER_HOST: "tcp://10.0.0.9:2375", DOCKER_CERT_PATH: certs }, home });
    expect(plain).toMatchObject({ ok: false, error: { code: "unsupported", field: "engine" } });
    if (!plain.ok) expect(plain.error.message).toMatch(/^DOCKER_HOST names an engine over TCP with no TLS material: .*root on its host/);
    expect(resolveEngine({ env: { DOCKER_HOST: "tcp://10.0.0.9:2376", DOCKER_TLS_VERIFY: "1", DOCKER_CERT_PATH: certs }, home })).toMatchObject({
      ok: true,
      value: { kind: "tcp", host: "10.0.0.9", port: 2376, tls: { ca: path.join(certs, "ca.pem") }, from: "DOCKER_HOST" },
    });
  });

  it("refuses a config that is not JSON, in words, rather than guessing", () => {
    const broken = path.join(home, "broken");
    mkdirSync(broken, { recursive: true });
    writeFileSync(path.join(broken, "config.json"), "{ not json");
    expect(resolveEngine({ env: { DOCKER_CONFIG: broken }, home })).toMatchObject({ ok: false, error: { code: "invalid", field: "engine" } });
  });
});

describe("engineAt", () => {
  it.each([
    ["tcp://127.0.0.1:2375", "names an engine over TCP with no TLS material"],
    ["http://127.0.0.1:2375", "a Docker engine over plain HTTP is not supported"],
    ["npipe:////./pipe/docker_engine", "a Windows named pipe is not supported"],
    ["fd://", "a socket passed as a file descriptor is not supported"],
  ])("refuses %s in words", (address, words) => {
    const at = engineAt(address, "DOCKER_HOST");
    expect(at).toMatchObject({ ok: false, error: { code: "unsupported", field: "engine" } });
    if (!at.ok) expect(at.error.message).toContain(words);
  });

  it("takes unix:///path and a bare absolute path; refuses a relative one", () => {
    expect(engineAt("unix:///var/run/docker.sock")).toMatchObject({ ok: true, value: { socket: "/var/run/docker.sock" } });
    expect(engineAt("/run/docker.sock")).toMatchObject({ ok: true, value: { address: "unix:///run/docker.sock" } });
    expect(engineAt("unix://docker.sock")).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(engineAt("")).toMatchObject({ ok: false, error: { code: "invalid" } });
  });

  it("takes ssh://user@host:port with the ssh client given, and refuses a password or a path in it", () => {
    expect(engineAt("ssh://me@[::1]:2222", "x", { ssh: ["ssh", "-F", "/c"] })).toMatchObject({
      ok: true,
      value: { kind: "ssh", host: "::1", user: "me", port: 2222, ssh: ["ssh", "-F", "/c"] },
    });
    expect(engineAt("ssh://me:secret@host")).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(engineAt("ssh://me@host/path")).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(engineAt("ssh://me@host", "x", { ssh: [] })).toMatchObject({ ok: false, error: { code: "invalid" } });
  });
});
