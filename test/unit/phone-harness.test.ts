// The phone harness provider's pure parts: input text's %s rule, the key and button commands,
// Android's raw screencap, uiautomator's XML as the protocol's tree, and the file ledger's
// atomic writes.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseUiXml } from "../../src/phone-harness/apps.js";
import { createProvider, liveProblem } from "../../src/phone-harness/conformance/module.js";
import { create } from "../../src/phone-harness/create.js";
import { commandsOf, typeCommands } from "../../src/phone-harness/input.js";
import { fileLedger } from "../../src/phone-harness/ledger.js";
import { crop, parseScreencap } from "../../src/phone-harness/screen.js";

describe("the phone's input commands", () => {
  it("types spaces as %s, splits a literal %s across two calls, and a line break is the enter key", () => {
    expect(typeCommands("Hello, agentrun! 123")).toEqual(["input text 'Hello,%sagentrun!%s123'"]);
    expect(typeCommands("a%sb")).toEqual(["input text 'a%'", "input text 'sb'"]);
    expect(typeCommands("it's\nok")).toEqual(["input text 'it'\\''s'", "input keyevent 66", "input text 'ok'"]);
  });

  it("maps taps, long presses, swipes, the three buttons and one key at a time to adb's input", () => {
    expect(commandsOf({ type: "tap", point: [1, 2] })).toEqual(["input tap 1 2"]);
    expect(commandsOf({ type: "long_press", point: [1, 2] })).toEqual(["input swipe 1 2 1 2 600"]);
    expect(commandsOf({ type: "swipe", from: [1, 2], to: [3, 4], ms: 250 })).toEqual(["input swipe 1 2 3 4 250"]);
    expect(["back", "home", "app_switch"].map((button) => commandsOf({ type: "button", button } as never)[0])).toEqual([
      "input keyevent 4",
      "input keyevent 3",
      "input keyevent 187",
    ]);
    expect(commandsOf({ type: "key", keys: ["enter"], repeat: 2 })).toEqual(["input keyevent 66 66"]);
    expect(commandsOf({ type: "key", keys: ["q"] })).toEqual(["input keyevent 45"]);
    expect(commandsOf({ type: "key", keys: ["!"] })).toEqual(["input text '!'"]);
  });
});

describe("the phone's screen", () => {
  const raw = (header: 12 | 16) => {
    const b = Buffer.alloc(header + 2 * 2 * 4);
    b.writeUInt32LE(2, 0);
    b.writeUInt32LE(2, 4);
    b.writeUInt32LE(1, 8);
    b.fill(7, header);
    return b;
  };
  it("reads Android's raw screencap with its 12- or 16-byte header, and refuses one that is not RGBA_8888 pixels", () => {
    expect(parseScreencap(raw(16))).toMatchObject({ width: 2, height: 2 });
    expect(parseScreencap(raw(12)).rgba.length).toBe(16);
    expect(() => parseScreencap(raw(16).subarray(0, 20))).toThrow(/not 2x2 RGBA_8888 pixels/);
    expect(() => crop(parseScreencap(raw(16)), { x: 1, y: 1, width: 2, height: 1 })).toThrow(/past the 2x2 screen/);
  });
});

describe("uiautomator's dump as the protocol's tree", () => {
  it("gives each node its role, id, text, label, bounds and booleans, under the hierarchy", () => {
    const xml = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" content-desc="" enabled="true" scrollable="false" bounds="[0,0][540,960]"><node index="0" text="A &amp; B" resource-id="p:id/t" class="android.widget.TextView" package="p" content-desc="Title" enabled="false" focused="true" bounds="[10,20][110,70]" /></node></hierarchy>`;
    const tree = parseUiXml(xml);
    expect(tree.nodes).toBe(3);
    expect(tree.truncated).toBe(false);
    const [frame] = tree.root.children;
    expect(frame!.bounds).toEqual({ x: 0, y: 0, width: 540, height: 960 });
    expect(frame!.children[0]).toMatchObject({
      role: "android.widget.TextView",
      id: "p:id/t",
      text: "A & B",
      label: "Title",
      enabled: false,
      focused: true,
      bounds: { x: 10, y: 20, width: 100, height: 50 },
    });
  });
});

describe("the file ledger", () => {
  it("writes whole files by renaming a part file into place, one change at a time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "phone-ledger-"));
    const path = join(dir, "ledger.json");
    const ledger = fileLedger(path);
    const entry = (id: string) => ({ id, labels: { a: id }, image: "android", deadline: new Date(0).toISOString(), requestKey: id });
    await Promise.all(["p1", "p2", "p3"].map((id) => ledger.put(entry(id))));
    await ledger.remove("p2");
    expect((await ledger.list()).map((e) => e.id).sort()).toEqual(["p1", "p3"]);
    expect(JSON.parse(readFileSync(path, "utf8")).p3.labels).toEqual({ a: "p3" });
    expect(readdirSync(dir)).toEqual(["ledger.json"]);
    expect(existsSync(`${path}.part`)).toBe(false);
  });
});

describe("the phone harness's conformance module", () => {
  it("rents nothing without AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS=1, and never reads the bare PHONE_HARNESS_API_KEY", () => {
    expect(liveProblem({ COMPUTER_PHONE_HARNESS_API_KEY: "k" })).toMatch(/needs AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS=1 \(it rents phones at 5 cents a minute/);
    expect(() => createProvider({ COMPUTER_PHONE_HARNESS_API_KEY: "k" })).toThrow(/AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS=1/);
    expect(liveProblem({ AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS: "1", PHONE_HARNESS_API_KEY: "bare-key" })).toBe(
      "the phone harness's run needs COMPUTER_PHONE_HARNESS_API_KEY (PHONE_HARNESS_API_KEY is never read: set COMPUTER_PHONE_HARNESS_API_KEY to a key meant for this run)",
    );
    expect(liveProblem({ AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS: "1", COMPUTER_PHONE_HARNESS_API_KEY: "k" })).toBeUndefined();
    expect(createProvider({ AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS: "1", COMPUTER_PHONE_HARNESS_API_KEY: "k" }).capabilities().maxLifetimeMs).toBe(10 * 60_000);
  });

  it("refuses the ios platform and a missing key in words that hold no key", () => {
    expect(() =>
      createProvider({ AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS: "1", COMPUTER_PHONE_HARNESS_API_KEY: "secret-k", COMPUTER_PHONE_HARNESS_PLATFORM: "ios" }),
    ).toThrow(/platform "ios" is not offered yet/);
    expect(() => create({ apiKey: "" })).toThrow(/apiKey is required/);
  });
});
