// agentrun ui's phone tiles, on the phone harness's fake (simulated Android phones behind the real
// adb server): the fleet's watch lists a phone as a tile with a screen, and the screens read it
// through the harness's screencap: nothing while its tile is out of view, one shot every 2 s while
// it is in view, the provider's live view (the phone client's screen.watch) once it is opened,
// and nothing again, every watch and connection let go, once no page shows it; a click on it is a
// tap the phone gets, as typed text is. No browser: the
// page's part (a tile's image from the frames) is the desktops' and is tested in cli-ui.test.ts.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputerProvider, ComputerRef } from "../../src/contract/provider.js";
import { actionsOf } from "../../src/cli/ui/api.js";
import { LOW_RATE_MS, Screens } from "../../src/cli/ui/screens.js";
import { FleetWatch } from "../../src/cli/ui/watch.js";
import { decodePng } from "../../src/conformance/images.js";
import { HEIGHT, WIDTH } from "../support/phone-sim/model.js";
import { PHONE_SPEC, phoneStand, type PhoneStand } from "../support/phone-harness-helpers.js";

let stand: PhoneStand;
let phone: ComputerRef | undefined;
const labels = { story: `ui-phone-${randomBytes(4).toString("hex")}` };
const controller = new AbortController();
/** The provider's live views, as watch was asked for them and closed. */
const watches = { started: [] as string[], closed: [] as string[] };
const events: Array<{ at: number; name: string; seq: number }> = [];
let fleet: FleetWatch;
let screens: Screens;

beforeAll(async () => {
  stand = await phoneStand();
  const real = stand.provider();
  // The real provider (its methods on itself: it holds private fields), its live view's starts and ends counted.
  const watch = async (...args: Parameters<NonNullable<ComputerProvider["watch"]>>) => {
    watches.started.push(args[0].name);
    const watched = await real.watch(...args);
    if (!watched.ok) return watched;
    return { ...watched, value: { ...watched.value, close: async () => (watches.closed.push(args[0].name), watched.value.close()) } };
  };
  const provider = new Proxy(real, {
    get: (target, key) => {
      if (key === "watch") return watch;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as ComputerProvider;
  const made = await real.create({ ...PHONE_SPEC, labels });
  if (!made.ok) throw new Error(`${made.error.code}: ${made.error.message}`);
  phone = made.value;
  fleet = new FleetWatch(provider, { labels, everyMs: 60_000, signal: controller.signal });
  screens = new Screens(
    provider,
    (name) => fleet.screenOf(name),
    (e) => events.push({ at: Date.now(), name: e.name, seq: e.seq }),
    controller.signal,
  );
  await fleet.start();
}, 120_000);

afterAll(async () => {
  controller.abort();
  await screens?.close();
  await fleet?.stop();
  if (phone) await stand.provider().release(phone, "delete");
  await stand?.close();
});

/** Waits for a screen event of the phone after the time given; the event. */
async function nextEvent(after: number, timeoutMs = 20_000) {
  for (const end = Date.now() + timeoutMs; Date.now() < end;) {
    const found = events.find((e) => e.at > after && e.name === phone!.name);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no screen event of the phone in ${timeoutMs / 1000} s`);
}

describe("agentrun ui's phone tile", () => {
  it("is an android tile with a screen, its ref as the fleet's read gave it", () => {
    const tile = fleet.find(phone!.name)?.tile;
    expect(tile).toMatchObject({ kind: "android", state: "running", screen: true, drift: "ok" });
    expect(fleet.screenOf(phone!.name)).toMatchObject({ kind: "phone", ref: { id: phone!.id } });
  });

  it("reads nothing while the tile is out of view", async () => {
    screens.view("page", { visible: [], opened: null });
    await new Promise((r) => setTimeout(r, LOW_RATE_MS + 500));
    expect([events, screens.latest(phone!.name)]).toEqual([[], undefined]);
  });

  it("shows the phone's screen through the harness's screencap at the low rate while its tile is in view", async () => {
    const from = Date.now();
    screens.view("page", { visible: [phone!.name], opened: null });
    await nextEvent(from);
    const frame = screens.latest(phone!.name)!;
    expect([frame.type, frame.width, frame.height]).toEqual(["image/png", WIDTH, HEIGHT]);
    expect(decodePng(frame.bytes).width).toBe(WIDTH);
    // The low rate: a shot every 2 s, so no more than 3 in 5 s however fast the phone answers.
    const windowFrom = Date.now();
    await new Promise((r) => setTimeout(r, 5_000));
    const shots = events.filter((e) => e.at > windowFrom && e.at <= windowFrom + 5_000);
    expect(shots.length).toBeGreaterThanOrEqual(1);
    expect(shots.length).toBeLessThanOrEqual(3);
    expect(watches.started).toEqual([]);
  });

  it("takes a click on its screen as a tap the phone gets, and text it types", async () => {
    const taps = () => stand.fake.phone(phone!.id)!.model.log.filter((l) => l.startsWith("tap ") || l.startsWith("text "));
    const before = taps().length;
    const tapped = actionsOf({ type: "click", x: 30, y: 40 }, "android");
    const typed = actionsOf({ type: "text", text: "hi" }, "android");
    if (!Array.isArray(tapped) || !Array.isArray(typed)) throw new Error("the page's input was refused");
    expect(await screens.input(phone!.name, tapped)).toEqual({ ok: true, value: { done: 1 } });
    expect(await screens.input(phone!.name, typed)).toEqual({ ok: true, value: { done: 1 } });
    expect(taps().slice(before)).toEqual(["tap 30,40", "text hi"]);
  });

  it("watches it at the full rate once opened (the provider's live view), and lets it all go once no page shows it", async () => {
    const from = Date.now();
    screens.view("page", { visible: [phone!.name], opened: phone!.name });
    await nextEvent(from);
    expect(watches.started).toEqual([phone!.name]);
    screens.drop("page");
    for (const end = Date.now() + 10_000; watches.closed.length === 0 && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
    expect(watches.closed).toEqual([phone!.name]);
    expect(screens.latest(phone!.name)).toBeUndefined();
    const after = Date.now() + 500;
    await new Promise((r) => setTimeout(r, LOW_RATE_MS + 1_000));
    expect(events.filter((e) => e.at > after)).toEqual([]);
  });
});
