import { describe, expect, it } from "vitest";
import { KEYS, MAX_ACTIONS, MAX_BATCH_WAIT_MS, MAX_KEY_REPEAT, checkActions, createActionMapper, isKey, toAction } from "../../src/daemon/actions.js";

const desktop = ["exec", "files", "processes", "screen", "input.pointer", "input.keys"];
const phone = ["screen", "input.touch", "apps", "input.keys"];
const click = { type: "click", point: [10, 10] };

describe("checkActions", () => {
  it("takes a batch of 100 actions", () => {
    expect(MAX_ACTIONS).toBe(100);
    expect(
      checkActions(
        Array.from({ length: 100 }, () => click),
        desktop,
      ),
    ).toBeUndefined();
  });

  it("refuses 101 actions as limit, running nothing", () => {
    expect(
      checkActions(
        Array.from({ length: 101 }, () => click),
        desktop,
      ),
    ).toEqual({
      done: 0,
      failed: { index: 100, kind: "limit", message: "a batch holds at most 100 actions; this one has 101: send the rest in another batch" },
    });
  });

  it("refuses an unknown key at index 1: done 0, failed.index 1, kind invalid", () => {
    const result = checkActions(
      [
        { type: "key", keys: ["enter"] },
        { type: "key", keys: ["Hyper_Q"] },
      ],
      desktop,
    );
    expect(result?.done).toBe(0);
    expect(result?.failed).toMatchObject({ index: 1, kind: "invalid" });
    expect(result?.failed?.message).toMatch(/^action 1 \(key\): "Hyper_Q" is not a key/);
  });

  it("checks keys held by a click and a hold too", () => {
    expect(checkActions([{ ...click, keys: ["ctrl", "Meta"] }], desktop)?.failed).toMatchObject({ index: 0, kind: "invalid" });
    expect(checkActions([{ type: "hold", keys: ["shift"], ms: 10 }], desktop)).toBeUndefined();
  });

  it("refuses an action whose group is not declared, as unsupported", () => {
    expect(checkActions([{ type: "tap", point: [1, 1] }], desktop)?.failed).toEqual({
      index: 0,
      kind: "unsupported",
      message: "action 0 (tap) needs the group input.touch, which this computer does not declare",
    });
    expect(checkActions([{ type: "type", text: "hi" }], ["screen", "input.touch"])?.failed?.kind).toBe("unsupported");
    expect(checkActions([{ type: "wait", ms: 5 }], [])).toBeUndefined();
  });

  it("takes a phone's touches, keys and text on a phone's groups, and refuses a pointer's click there", () => {
    const touches = [
      { type: "tap", point: [1, 1] },
      { type: "swipe", from: [1, 1], to: [5, 5], ms: 100 },
      { type: "key", keys: ["enter"] },
      { type: "type", text: "hi" },
    ];
    expect(checkActions(touches, phone)).toBeUndefined();
    expect(checkActions([click], phone)?.failed).toEqual({
      index: 0,
      kind: "unsupported",
      message: "action 0 (click) needs the group input.pointer, which this computer does not declare",
    });
  });

  it("checks repeat after the group, as computerd does", () => {
    const tooMany = { type: "key", keys: ["a"], repeat: MAX_KEY_REPEAT + 1 };
    expect(checkActions([tooMany], ["input.pointer"])?.failed?.kind).toBe("unsupported");
    expect(checkActions([tooMany], desktop)?.failed).toEqual({ index: 0, kind: "limit", message: "action 0 (key): repeat is at most 100" });
    expect(checkActions([{ ...tooMany, repeat: 100 }], desktop)).toBeUndefined();
  });

  it("refuses a px scroll where only clicks exist", () => {
    const px = { type: "scroll", point: [5, 5], dy: 300, unit: "px" };
    expect(checkActions([px], desktop)?.failed).toMatchObject({ index: 0, kind: "unsupported" });
    expect(checkActions([px], [...desktop], { pixelScroll: true })).toBeUndefined();
  });

  it("holds waits and holds together to 300 s", () => {
    expect(MAX_BATCH_WAIT_MS).toBe(300_000);
    const ok = [
      { type: "wait", ms: 200_000 },
      { type: "hold", keys: ["shift"], ms: 100_000 },
    ];
    expect(checkActions(ok, desktop)).toBeUndefined();
    expect(checkActions([...ok, { type: "wait", ms: 1 }], desktop)?.failed).toMatchObject({ index: 2, kind: "limit" });
  });

  it("refuses a text over 65,536 characters as limit", () => {
    expect(checkActions([{ type: "type", text: "a".repeat(65_537) }], desktop)?.failed).toMatchObject({ index: 0, kind: "limit" });
    expect(checkActions([{ type: "type", text: "a".repeat(65_536) }], desktop)).toBeUndefined();
  });

  it("refuses a shape that is not an action, naming its index", () => {
    expect(checkActions([click, { type: "teleport" }], desktop)?.failed).toMatchObject({ index: 1, kind: "invalid" });
    expect(checkActions([{ type: "click", count: 4 }], desktop)?.failed).toMatchObject({ index: 0, kind: "invalid" });
    expect(checkActions([{ type: "drag", path: [[0, 0]] }], desktop)?.failed?.message).toMatch(/^action 0: path: /);
    expect(checkActions("click", desktop)?.failed).toMatchObject({ index: 0, kind: "invalid" });
  });
});

describe("KEYS", () => {
  it("holds the spec's names and one printable ASCII character", () => {
    for (const key of ["enter", "tab", "space", "backspace", "delete", "escape", "insert", "pageup", "f1", "f12", "super", "capslock"]) {
      expect(KEYS).toContain(key);
    }
    expect(isKey("a")).toBe(true);
    expect(isKey("~")).toBe(true);
    expect(isKey(" ")).toBe(false);
    expect(isKey("é")).toBe(false);
    expect(isKey("f13")).toBe(false);
    expect(isKey("Return")).toBe(false);
  });
});

describe("toAction", () => {
  it("maps a desktop's mouse, wheel, keys and text", () => {
    expect(toAction({ type: "mouse", action: "move", x: 10.4, y: 20.6 }, "desktop")).toEqual([{ type: "move", point: [10, 21] }]);
    expect(toAction({ type: "mouse", action: "down", x: 1, y: 2 }, "desktop")).toEqual([{ type: "down", point: [1, 2], button: "left" }]);
    expect(toAction({ type: "mouse", action: "up", x: 1, y: 2, button: "right" }, "desktop")).toEqual([{ type: "up", point: [1, 2], button: "right" }]);
    expect(toAction({ type: "wheel", x: 5, y: 5, deltaY: 240 }, "desktop")).toEqual([{ type: "scroll", point: [5, 5], dy: 2 }]);
    expect(toAction({ type: "wheel", x: 5, y: 5, deltaY: -100_000 }, "desktop")).toEqual([{ type: "scroll", point: [5, 5], dy: -20 }]);
    expect(toAction({ type: "key", key: "S", modifiers: ["ctrl", "shift"] }, "desktop")).toEqual([{ type: "key", keys: ["ctrl", "shift", "S"] }]);
    expect(toAction({ type: "key", key: "Enter" }, "desktop")).toEqual([{ type: "key", keys: ["enter"] }]);
    expect(toAction({ type: "text", text: "héllo" }, "desktop")).toEqual([{ type: "type", text: "héllo" }]);
  });

  it("makes a press with a modifier one click at the up, with its keys", () => {
    expect(toAction({ type: "mouse", action: "down", x: 3, y: 4, modifiers: ["ctrl"] }, "desktop")).toEqual([{ type: "move", point: [3, 4] }]);
    expect(toAction({ type: "mouse", action: "up", x: 3, y: 4, modifiers: ["ctrl"] }, "desktop")).toEqual([
      { type: "click", point: [3, 4], button: "left", count: 1, keys: ["ctrl"] },
    ]);
  });

  it("never sends ctrl+alt+backspace or ctrl+alt+F1 to F12", () => {
    expect(toAction({ type: "key", key: "backspace", modifiers: ["ctrl", "alt"] }, "desktop")).toMatchObject({ field: "key" });
    expect(toAction({ type: "key", key: "F7", modifiers: ["alt", "ctrl"] }, "desktop")).toMatchObject({ field: "key" });
    expect(toAction({ type: "key", key: "F7", modifiers: ["alt"] }, "desktop")).toEqual([{ type: "key", keys: ["alt", "f7"] }]);
  });

  it("maps a phone's taps, swipes (clamped to 0-1000 ms), buttons, keys and text", () => {
    expect(toAction({ type: "tap", x: 100, y: 200 }, "android")).toEqual([{ type: "tap", point: [100, 200] }]);
    expect(toAction({ type: "swipe", from: [0, 0], to: [0, 500], ms: 5000 }, "ios")).toEqual([{ type: "swipe", from: [0, 0], to: [0, 500], ms: 1000 }]);
    expect(toAction({ type: "swipe", from: [0, 0], to: [0, 500], ms: -3 }, "android")).toEqual([{ type: "swipe", from: [0, 0], to: [0, 500], ms: 0 }]);
    expect(toAction({ type: "button", button: "recents" }, "android")).toEqual([{ type: "button", button: "app_switch" }]);
    expect(toAction({ type: "text", text: "hi" }, "android")).toEqual([{ type: "type", text: "hi" }]);
  });

  it("refuses in words what a kind cannot take, and malformed events, never throwing", () => {
    expect(toAction({ type: "tap", x: 1, y: 1 }, "desktop")).toEqual({
      field: "type",
      message: "a desktop takes the mouse, the wheel, keys and text, not a tap event",
    });
    expect(toAction({ type: "mouse", action: "move", x: 1, y: 1 }, "android")).toMatchObject({ field: "type" });
    expect(toAction({ type: "key", key: "a" }, "linux")).toEqual({ field: "kind", message: "a linux computer takes no input from the viewer" });
    expect(toAction({ type: "mouse", action: "move", x: Number.NaN, y: 1 }, "desktop")).toMatchObject({ field: "point" });
    expect(toAction({ type: "mouse", action: "down", x: 1, y: 1, button: "fourth" } as never, "desktop")).toMatchObject({ field: "button" });
    expect(toAction({ type: "text", text: "a".repeat(65_537) }, "desktop")).toMatchObject({ field: "text" });
    expect(toAction(null as never, "desktop")).toMatchObject({ field: "event" });
    expect(toAction({ type: "key", key: "Hyper_Q" }, "desktop")).toMatchObject({ field: "key" });
  });
});

describe("createActionMapper", () => {
  it("keeps a press's strategy for its release: a modifier let go before the up still clicks with it", () => {
    const mapper = createActionMapper("desktop");
    expect(mapper.map({ type: "mouse", action: "down", x: 5, y: 5, modifiers: ["shift"] })).toEqual([{ type: "move", point: [5, 5] }]);
    expect(mapper.map({ type: "mouse", action: "up", x: 6, y: 6 })).toEqual([{ type: "click", point: [6, 6], button: "left", count: 1, keys: ["shift"] }]);
  });

  it("keeps a plain press plain, even when a modifier is held at its up", () => {
    const mapper = createActionMapper("desktop");
    expect(mapper.map({ type: "mouse", action: "down", x: 5, y: 5 })).toEqual([{ type: "down", point: [5, 5], button: "left" }]);
    expect(mapper.map({ type: "mouse", action: "up", x: 9, y: 9, modifiers: ["ctrl"] })).toEqual([{ type: "up", point: [9, 9], button: "left" }]);
  });

  it("gives the ups for buttons pressed and not released, then forgets them", () => {
    const mapper = createActionMapper("desktop");
    mapper.map({ type: "mouse", action: "down", x: 1, y: 1 });
    mapper.map({ type: "mouse", action: "down", x: 1, y: 1, button: "right" });
    mapper.map({ type: "mouse", action: "down", x: 1, y: 1, button: "middle", modifiers: ["alt"] });
    expect(mapper.release()).toEqual([
      { type: "up", button: "left" },
      { type: "up", button: "right" },
    ]);
    expect(mapper.release()).toEqual([]);
  });

  it("answers as toAction does for a phone", () => {
    const mapper = createActionMapper("android");
    expect(mapper.map({ type: "tap", x: 1, y: 2 })).toEqual([{ type: "tap", point: [1, 2] }]);
    expect(mapper.release()).toEqual([]);
  });
});
