// The Settings cases against the phone harness's fake: a tap whose page never comes fails
// touch.tap in the words the spec asks (the screen in px and dp, what is in front, the tap point
// and the row's bounds, where the title shows, whether the next row is still shown). And
// apps.install-launch: the set-up's fixture APK installed through the real adb (its streamed
// install), listed, launched, its button's tap logged, terminated; apps.install's refusals.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "../../src/conformance/runner.js";
import { PHONE_SPEC, phoneStand, type PhoneStand } from "../support/phone-harness-helpers.js";

/** The set-up's fixture app (scripts/build-phone-fixture.sh). */
const FIXTURE = fileURLToPath(new URL("../../dist/phone-fixture/agentrun-fixture.apk", import.meta.url));

let stand: PhoneStand;
beforeAll(async () => void (stand = await phoneStand()));
afterAll(async () => stand?.close());

async function noPhoneLeft() {
  // Released by the run; the service ends a session asynchronously.
  for (const end = Date.now() + 3000; stand.fake.running().length > 0 && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
  expect(stand.fake.running()).toEqual([]);
}

describe("the Settings cases", () => {
  it("fail touch.tap in words when the row's page does not come, and leave no phone", async () => {
    stand.fake.faults = { deadTaps: true };
    const report = await runConformance(stand.provider(), { image: "android", only: ["touch.tap", "touch.swipe"] });
    const byId = Object.fromEntries(report.results.map((r) => [r.id, r]));
    expect(byId["touch.swipe"]).toMatchObject({ status: "pass" });
    expect(byId["touch.tap"]).toMatchObject({ status: "fail" });
    expect(byId["touch.tap"]!.reason).toMatch(
      /a tap at \[306,240\] on the row "Network & internet" \(bounds \{"x":96,"y":180,"width":420,"height":120\}\) did not open its page: the screen is 540x960 px \(360x640 dp\), "com.android.settings" is in front, the title does not show outside the list, and the next row "Connected devices" is still shown/,
    );
    await noPhoneLeft();
  });
});

describe("apps.install-launch", () => {
  const installing = () => stand.provider({ installFrom: dirname(FIXTURE) });

  it("passes with the fixture app, and fails in words when the app logs no tap", async () => {
    stand.fake.faults = {};
    const passed = await runConformance(installing(), { image: "android", only: ["apps.install-launch"], fixture: FIXTURE });
    expect(passed.results.find((r) => r.id === "apps.install-launch")).toMatchObject({ status: "pass" });
    stand.fake.faults = { mutedFixture: true };
    const failed = await runConformance(installing(), { image: "android", only: ["apps.install-launch"], fixture: FIXTURE });
    expect(failed.results.find((r) => r.id === "apps.install-launch")?.reason).toMatch(
      /a tap at \[270,240\] on the fixture's button was logged as \[\], not a touch down and up there/,
    );
    stand.fake.faults = {};
    // Without installFrom the group is not declared, so the case skips.
    const undeclared = await runConformance(stand.provider(), { image: "android", only: ["apps.install-launch"], fixture: FIXTURE });
    expect(undeclared.results.find((r) => r.id === "apps.install-launch")).toMatchObject({ status: "skip" });
    await noPhoneLeft();
  });

  it("installs only an APK inside installFrom, answers the package it added, and keeps the phone's refusal", async () => {
    const folder = mkdtempSync(join(tmpdir(), "phone-apks-"));
    const provider = stand.provider({ installFrom: folder });
    expect(provider.capabilities().groups).toContain("apps.install");
    const made = await provider.create(PHONE_SPEC);
    if (!made.ok) throw new Error(made.error.message);
    const connection = await provider.connect(made.value);
    if (!connection.ok) throw new Error(connection.error.message);
    const { client } = connection.value;
    try {
      expect((await client.call("hello", {})).groups).toContain("apps.install");
      copyFileSync(FIXTURE, join(folder, "fixture.apk"));
      writeFileSync(join(folder, "broken.apk"), "not a zip");
      expect(await client.call("apps.install", { path: join(folder, "fixture.apk") })).toEqual({ id: "ai.agentrun.fixture" });
      expect((await client.call("apps.list", {})).apps).toContainEqual({ id: "ai.agentrun.fixture" });
      // A second install replaces the app: no package is added.
      expect(await client.call("apps.install", { path: join(folder, "fixture.apk") })).toEqual({ id: null });
      await expect(client.call("apps.install", { path: FIXTURE })).rejects.toMatchObject({
        kind: "invalid",
        message: expect.stringMatching(/is not an APK in the folder this provider installs from \(installFrom\)/),
      });
      await expect(client.call("apps.install", { path: join(folder, "..", "x.apk") })).rejects.toMatchObject({ kind: "invalid" });
      await expect(client.call("apps.install", { path: join(folder, "broken.apk") })).rejects.toMatchObject({
        kind: "invalid",
        message: expect.stringMatching(/the phone did not install .*broken\.apk": Failure \[INSTALL_PARSE_FAILED_NOT_APK/),
      });
    } finally {
      await connection.value.close();
      await provider.release(made.value, "delete");
      rmSync(folder, { recursive: true, force: true });
    }
    await noPhoneLeft();
  });
});
