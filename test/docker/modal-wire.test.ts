// Modal's faults at the wire: the real `modal` SDK against the loopback server, each fault answered
// as Modal's gRPC answers it (a lost create answer, an exec's stdout cut mid-stream, a 429 as
// RESOURCE_EXHAUSTED, a 5xx as UNAVAILABLE or INTERNAL, a token refused UNAUTHENTICATED). What the
// SDK absorbs (its retries with one idempotency key, its resumed stdio reads) is shown absorbed;
// what it passes on is a result with its code; and no ambient MODAL_* variable turns the SDK
// elsewhere. Nothing is left in Docker after each.
import { createHash } from "node:crypto";
import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { create } from "../../src/modal/create.js";
import { newToken } from "../support/modal-wire/server.js";

import { DAEMON, spec, wires } from "../support/modal-helpers.js";

const wire = wires();
const text = (b64: string) => Buffer.from(b64, "base64").toString("utf8");
const lost = { code: status.UNAVAILABLE, details: "upstream connect error or disconnect/reset before headers", afterWork: true };

describe("Modal's faults at the wire", () => {
  it("an ambient MODAL_SANDBOX_V2=0 does not turn the SDK to another backend: create is still SandboxCreateV2", async () => {
    process.env.MODAL_SANDBOX_V2 = "0";
    const built = await wire().finally(() => delete process.env.MODAL_SANDBOX_V2);
    const made = await built.provider.create(spec());
    if (!made.ok) throw new Error(`${made.error.message}; calls ${built.server.methods().join(" ")}`);
    expect(built.server.methods()).toContain("SandboxCreateV2");
    expect(await built.provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
  }, 120_000);

  it("a create whose answer is lost once is retried by the SDK under one idempotency key: one sandbox, not two", async () => {
    const { provider, server, fake } = await wire();
    server.fail("SandboxCreateV2", lost);
    const made = await provider.create(spec());
    if (!made.ok) throw new Error(made.error.message);
    expect(server.calls.filter((m) => m === "SandboxCreateV2")).toHaveLength(2);
    expect(await fake.running()).toEqual([made.value.id]);
    expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
  }, 120_000);

  it("a create whose answer is lost for good fails, and the owner's next create finds what it left and ends it", async () => {
    const { provider, server, fake } = await wire();
    // The SDK tries a unary call four times (three retries); every answer is lost after the sandbox was made.
    server.fail("SandboxCreateV2", lost, lost, lost, lost);
    const owner = "/work/stack\0urn:lost-answer";
    const first = await provider.create(spec(), { owner });
    expect(first).toMatchObject({ ok: false, error: { code: "unreachable" } });
    const left = await fake.running();
    expect(left).toHaveLength(1);
    const second = await provider.create(spec(), { owner });
    if (!second.ok) throw new Error(second.error.message);
    // The leftover (never uploaded to, so not whole) was terminated; the owner holds the new one only.
    expect(second.value.id).not.toBe(left[0]);
    expect(await fake.running()).toEqual([second.value.id]);
    expect(await provider.release(second.value, "delete")).toEqual({ ok: true, value: undefined });
  }, 180_000);

  it("an exec's stdout cut mid-stream is resumed by the SDK at its offset: the bridge's answer arrives whole", async () => {
    const { provider, server } = await wire();
    const made = await provider.create(spec());
    if (!made.ok) throw new Error(made.error.message);
    const connection = await provider.connect(made.value);
    if (!connection.ok) throw new Error(connection.error.message);
    const sum = await connection.value.client.call("exec.run", {
      argv: ["sh", "-c", "head -c 240000 /dev/urandom >/tmp/out; sha256sum /tmp/out"],
      timeoutMs: 30_000,
    });
    const reads = server.calls.filter((m) => m === "TaskExecStdioRead").length;
    // The bridge's answer carries the bytes as base64 inside JSON, some 430 KB: cut a quarter in.
    server.cut(100_000, { code: status.INTERNAL, details: "Received RST_STREAM with code 2 (Internal server error)" });
    const whole = await connection.value.client.call("exec.run", { argv: ["base64", "-w0", "/tmp/out"], timeoutMs: 30_000 });
    expect(
      createHash("sha256")
        .update(Buffer.from(text(whole.stdout), "base64"))
        .digest("hex"),
    ).toBe(text(sum.stdout).split(" ")[0]);
    // The cut came, and the stream was opened again from where it stopped.
    expect(server.pendingCuts()).toBe(0);
    expect(server.calls.filter((m) => m === "TaskExecStdioRead").length).toBeGreaterThan(reads);
    await connection.value.close();
    expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
  }, 120_000);

  it("an exec's stdout cut for good ends the call with an error, and release still leaves nothing", async () => {
    const { provider, server } = await wire();
    const made = await provider.create(spec());
    if (!made.ok) throw new Error(made.error.message);
    const connection = await provider.connect(made.value);
    if (!connection.ok) throw new Error(connection.error.message);
    // As many cuts as the SDK's tries of a stdio read (the first and ten retries): each is used.
    server.cut(0, { code: status.UNAVAILABLE, details: "connection reset" }, 11);
    await expect(connection.value.client.call("exec.run", { argv: ["sh", "-c", "echo hi"], timeoutMs: 10_000 })).rejects.toThrow();
    expect(server.pendingCuts()).toBe(0);
    await connection.value.close();
    expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
  }, 120_000);

  it("a 429 (RESOURCE_EXHAUSTED) on create is Modal's limit, and nothing is made", async () => {
    const { provider, server, fake } = await wire();
    server.fail("SandboxCreateV2", { code: status.RESOURCE_EXHAUSTED, details: "rate limit exceeded for sandbox creation" });
    const made = await provider.create(spec());
    expect(made).toMatchObject({ ok: false, error: { code: "limit" } });
    expect(await fake.running()).toEqual([]);
  }, 120_000);

  it("a 429 with Modal's retry policy is waited out by the SDK as the server asks: the create lands, one sandbox", async () => {
    const { provider, server, fake } = await wire();
    server.fail("SandboxCreateV2", { code: status.RESOURCE_EXHAUSTED, details: "too many requests", retryAfterSecs: 1 });
    const started = Date.now();
    const made = await provider.create(spec());
    if (!made.ok) throw new Error(made.error.message);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(server.calls.filter((m) => m === "SandboxCreateV2")).toHaveLength(2);
    expect(await fake.running()).toEqual([made.value.id]);
    expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
  }, 120_000);

  it("a 5xx once (UNAVAILABLE, then INTERNAL) is retried by the SDK; one for good is unreachable, and nothing is made", async () => {
    const { provider, server, fake } = await wire();
    server.fail("SandboxCreateV2", { code: status.UNAVAILABLE, details: "no healthy upstream" }, { code: status.INTERNAL, details: "internal error" });
    const made = await provider.create(spec());
    if (!made.ok) throw new Error(made.error.message);
    expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
    const down = { code: status.UNAVAILABLE, details: "no healthy upstream" };
    server.fail("SandboxCreateV2", down, down, down, down);
    expect(await provider.create(spec())).toMatchObject({ ok: false, error: { code: "unreachable" } });
    expect(await fake.running()).toEqual([]);
  }, 180_000);

  it("a token the server does not hold is refused UNAUTHENTICATED: unauthorized, in words without the secret, and nothing is made", async () => {
    const { server, fake } = await wire();
    const wrong = newToken();
    const provider = create({ ...wrong, serverUrl: server.serverUrl, app: "agentrun-test", daemonPath: DAEMON });
    const made = await provider.create(spec());
    expect(made).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    expect(JSON.stringify(made)).not.toContain(wrong.tokenSecret);
    expect(server.methods()).toEqual(["AuthTokenGet"]);
    expect(await fake.running()).toEqual([]);
  }, 60_000);
});
