// The Modal provider through the real `modal` SDK at the wire: a loopback gRPC server speaking
// Modal's control plane and task command router, its sandboxes root Docker containers.
import { describe, expect, it } from "vitest";
import { spec } from "../support/modal-helpers.js";
import { wires } from "../support/modal-wire-helpers.js";

const wire = wires();
const text = (b64: string) => Buffer.from(b64, "base64").toString("utf8");

describe("Modal at the wire", () => {
  it("creates, connects, runs, lists and releases through the SDK", async () => {
    const { provider, server } = await wire();
    const made = await provider.create(spec({ labels: { "agentrun.test": "wire" } }));
    if (!made.ok) throw new Error(`${made.error.code}: ${made.error.message}; calls ${server.methods().join(" ")}`);
    const ref = made.value;
    const connection = await provider.connect(ref);
    if (!connection.ok) throw new Error(connection.error.message);
    const run = await connection.value.client.call("exec.run", { argv: ["sh", "-c", "id -u"], timeoutMs: 10_000 });
    expect(text(run.stdout)).toBe("2510\n");
    await connection.value.close();
    const listed = await provider.list({ "agentrun.test": "wire" });
    expect(listed.ok && listed.value.map((c) => c.ref.name)).toEqual([ref.name]);
    expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    expect(await server.fake.running()).toEqual([]);
    console.log(server.methods().join(" "));
  }, 180_000);
});
