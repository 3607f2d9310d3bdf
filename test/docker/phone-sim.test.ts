// The simulated phone through the real adb server (Debian's adb, from the set-up): connected by
// `adb connect`, locked until unlock, and answering the shell in Android's formats.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePng } from "../../src/conformance/images.js";
import { HEIGHT, WIDTH } from "../support/phone-sim/model.js";
import { startPhone, type SimPhone } from "../support/phone-sim/index.js";
import { adbServer, type AdbServer } from "../support/phone-adb.js";

let phone: SimPhone;
let adb: AdbServer;
let serial: string;
const sh = (...args: string[]) => adb.cli(["-s", serial, "shell", ...args]);

beforeAll(async () => {
  phone = await startPhone({ code: "4711" });
  adb = await adbServer();
  serial = `127.0.0.1:${phone.port}`;
  expect(await adb.cli(["connect", serial])).toContain(`connected to ${serial}`);
});
afterAll(async () => {
  await adb?.stop();
  await phone?.close();
});

describe("the simulated phone through the real adb", () => {
  it("is listed by adb as a device, with its product and a transport id", async () => {
    const listed = await adb.cli(["devices", "-l"]);
    expect(listed).toMatch(new RegExp(`${serial}\\s+device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64xa transport_id:\\d+`));
  });

  it("answers locked until unlock with the code, on that connection", async () => {
    expect(await sh("wm size")).toBe("locked\n");
    expect(await sh("unlock 0000")).toBe("locked\n");
    expect(await sh("unlock 4711")).toBe("unlocked\n");
    expect(await sh("wm size")).toBe(`Physical size: ${WIDTH}x${HEIGHT}\n`);
    expect(await sh("wm density")).toBe("Physical density: 240\n");
  });

  it("shows Settings: launched, a row tapped opens its page, back returns, and the screenshot follows", async () => {
    const shot = async () => Buffer.from(await adb.cliBytes(["-s", serial, "exec-out", "screencap", "-p"]));
    const home = decodePng(await shot());
    expect([home.width, home.height]).toEqual([WIDTH, HEIGHT]);
    const started = await sh("am start -W --activity-clear-task -n com.android.settings/.Settings");
    expect(started).toMatch(
      /^Starting: Intent \{.*cmp=com\.android\.settings\/\.Settings \}\nStatus: ok\nLaunchState: COLD\nActivity: com\.android\.settings\/\.Settings\nTotalTime: \d+\nWaitTime: \d+\nComplete\n$/,
    );
    expect(await sh("dumpsys activity activities")).toMatch(/ResumedActivity: ActivityRecord\{\S+ u0 com\.android\.settings\/\.Settings t\d+\}/);
    const list = await shot();
    expect(list.equals(await shot())).toBe(true);
    expect(await sh("uiautomator dump /dev/tty")).toMatch(/text="Battery"[^>]*bounds="\[96,660\]\[516,780\]"/);
    await sh("input tap 200 700");
    const xml = await sh("uiautomator dump /dev/tty");
    expect(xml).toMatch(/content-desc="Battery"/);
    expect(xml).not.toMatch(/text="Storage"/);
    expect(xml).toMatch(/UI hierchary dumped to: \/dev\/tty\n$/);
    expect((await shot()).equals(list)).toBe(false);
    await sh("input keyevent KEYCODE_BACK");
    expect((await shot()).equals(list)).toBe(true);
  });

  it("scrolls on a swipe, types into search with %s as a space, and force-stops", async () => {
    await sh("input swipe 270 800 270 500 100");
    expect(phone.model.scroll).toBe(300);
    await sh("input tap 270 100");
    await sh("input text 'Sound%s&'");
    expect(await sh("uiautomator dump /dev/tty")).toMatch(/class="android.widget.EditText" package="com.android.settings.intelligence"|text="Sound &amp;"/);
    expect(phone.model.query).toBe("Sound &");
    await sh("am force-stop com.android.settings");
    expect(await sh("dumpsys activity activities")).toContain("com.android.launcher3/.uioverride.QuickstepLauncher");
    expect(await sh("pm list packages settings")).toBe("package:com.android.settings\npackage:com.android.settings.intelligence\n");
  });

  it("answers a raw screencap with Android's header: width, height, format 1 and its pixels", async () => {
    const raw = Buffer.from(await adb.cliBytes(["-s", serial, "exec-out", "screencap"]));
    expect([raw.readUInt32LE(0), raw.readUInt32LE(4), raw.readUInt32LE(8)]).toEqual([WIDTH, HEIGHT, 1]);
    expect(raw.length).toBe(16 + WIDTH * HEIGHT * 4);
  });
});
