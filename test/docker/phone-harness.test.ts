// The phone harness provider against the fake service, whose phones are simulated Android
// devices reached through the real adb server: create, list, connect, the client's methods on
// Settings, release; the refusals in words.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePng } from "../../src/conformance/images.js";
import type { ComputerClient } from "../../src/daemon/client.js";
import { HEIGHT, WIDTH } from "../support/phone-sim/model.js";
import { PHONE_SPEC, phoneStand, type PhoneStand } from "../support/phone-harness-helpers.js";

let stand: PhoneStand;
beforeAll(async () => void (stand = await phoneStand()));
afterAll(async () => stand?.close());

async function shotOf(client: ComputerClient, region?: { x: number; y: number; width: number; height: number }) {
  const first = await client.call("screen.shot", region ? { region } : {});
  const parts = [Buffer.from(first.data, "base64")];
  for (let eof = first.eof; !eof;) {
    const next = await client.call("screen.read", { id: first.id!, offset: Buffer.concat(parts).length });
    parts.push(Buffer.from(next.data, "base64"));
    eof = next.eof;
  }
  return { ...first, png: Buffer.concat(parts) };
}

describe("the phone harness provider", () => {
  it("makes a phone, lists it by its labels, drives Settings through the in-process client, and releases it", async () => {
    const provider = stand.provider();
    const made = await provider.create(PHONE_SPEC);
    expect(made.ok, JSON.stringify(made)).toBe(true);
    if (!made.ok) return;
    try {
      expect(made.value.spec).toMatchObject({ image: "android", network: "open", kind: "android" });
      const listed = await provider.list({ story: "phone" });
      expect(listed.ok && listed.value.map((c) => c.ref.id)).toEqual([made.value.id]);
      const other = await stand.fake.startOther();
      expect((await provider.list()).ok && (await provider.list())).toMatchObject({ value: [{ ref: { id: made.value.id } }] });
      const connection = await provider.connect(made.value);
      expect(connection.ok, JSON.stringify(connection)).toBe(true);
      if (!connection.ok) return;
      const { client, hello } = connection.value;
      expect(hello).toMatchObject({ kind: "android", os: "android", groups: ["screen", "input.touch", "input.keys", "apps", "apps.ui_tree"] });
      const shot = await shotOf(client);
      expect([shot.width, shot.height, shot.scale]).toEqual([WIDTH, HEIGHT, 1.5]);
      expect(decodePng(shot.png).width).toBe(WIDTH);
      const region = await shotOf(client, { x: 10, y: 20, width: 30, height: 40 });
      expect([decodePng(region.png).width, decodePng(region.png).height]).toEqual([30, 40]);

      await client.call("apps.launch", { id: "com.android.settings" });
      expect((await client.call("apps.list", {})).foreground).toBe("com.android.settings");
      const tree = await client.call("apps.ui_tree", {});
      const texts: string[] = [];
      const walk = (n: typeof tree.root) => (n.text && texts.push(n.text), n.children.forEach(walk));
      walk(tree.root);
      expect(texts).toContain("Battery");
      expect(await client.call("input.actions", { actions: [{ type: "tap", point: [200, 700] }] })).toEqual({ done: 1, failed: null });
      const phone = stand.fake.phone(made.value.id)!;
      expect(phone.model.screen).toEqual({ page: "row", row: 4 });
      await client.call("input.actions", {
        actions: [
          { type: "button", button: "back" },
          { type: "tap", point: [270, 100] },
          { type: "type", text: "a b%sc\n" },
        ],
      });
      expect(phone.model.query).toBe("a b%sc");
      expect(phone.commands.filter((c) => c.startsWith("input text"))).toEqual(["input text 'a%sb%'", "input text 'sc'"]);
      await client.call("apps.terminate", { id: "com.android.settings" });
      expect((await client.call("apps.list", {})).foreground).toBe("com.android.launcher3");

      // screen.watch: PNG frames, a new one only when the pixels changed, screencaps at most once a second.
      const first = await client.call("screen.watch", { after: 0, maxWidth: 270 });
      expect(first).toMatchObject({ changed: true, format: "png", width: WIDTH, height: HEIGHT, frameWidth: 270, frameHeight: 480 });
      const started = Date.now();
      expect(await client.call("screen.watch", { after: first.seq, waitMs: 1500 })).toEqual({ seq: first.seq, changed: false });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      await client.call("apps.launch", { id: "com.android.settings" });
      const next = await client.call("screen.watch", { after: first.seq, waitMs: 3000 });
      expect(next).toMatchObject({ seq: first.seq + 1, changed: true });
      expect(decodePng(Buffer.from(next.data!, "base64")).width).toBe(WIDTH);
      // The connection's close ends a watch's wait in flight.
      const waiting = client.call("screen.watch", { after: next.seq, waitMs: 8000 });
      const closedAt = Date.now();
      setTimeout(() => void connection.value.close(), 100);
      await expect(waiting).rejects.toMatchObject({ kind: "closed" });
      // Ended by the close, not by the watch's 8 s wait running out (a margin for a loaded machine).
      expect(Date.now() - closedAt).toBeLessThan(6000);
      // Another client's session: not this provider's, so no DELETE is sent for it.
      const released = await provider.release({ id: other.id, name: other.id, provider: "phone-harness" }, "delete");
      expect(released).toMatchObject({ ok: false, error: { code: "not_found" } });
      expect(stand.fake.requests).not.toContain(`DELETE /sessions/${other.id}`);
      expect(stand.fake.running().map((s) => s.id)).toContain(other.id);
    } finally {
      expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
    }
    expect((await provider.list()).ok && (await provider.list())).toMatchObject({ value: [] });
    expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
    expect(await provider.attach({ id: made.value.id })).toMatchObject({ ok: false, error: { code: "not_found" } });
  });
});
