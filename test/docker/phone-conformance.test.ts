// The Settings cases against the phone harness's fake: a tap whose page never comes fails
// touch.tap in the words the spec asks (the screen in px and dp, what is in front, the tap point
// and the row's bounds, where the title shows, whether the next row is still shown).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "../../src/conformance/runner.js";
import { phoneStand, type PhoneStand } from "../support/phone-harness-helpers.js";

let stand: PhoneStand;
beforeAll(async () => void (stand = await phoneStand()));
afterAll(async () => stand?.close());

describe("the Settings cases", () => {
  it("fail touch.tap in words when the row's page does not come, and leave no phone", async () => {
    stand.fake.faults.deadTaps = true;
    const report = await runConformance(stand.provider(), { image: "android", only: ["touch.tap", "touch.swipe"] });
    const byId = Object.fromEntries(report.results.map((r) => [r.id, r]));
    expect(byId["touch.swipe"]).toMatchObject({ status: "pass" });
    expect(byId["touch.tap"]).toMatchObject({ status: "fail" });
    expect(byId["touch.tap"]!.reason).toMatch(
      /a tap at \[306,240\] on the row "Network & internet" \(bounds \{"x":96,"y":180,"width":420,"height":120\}\) did not open its page: the screen is 540x960 px \(360x640 dp\), "com.android.settings" is in front, the title does not show outside the list, and the next row "Connected devices" is still shown/,
    );
    // Released by the run; the service ends a session asynchronously.
    for (const end = Date.now() + 3000; stand.fake.running().length > 0 && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
    expect(stand.fake.running()).toEqual([]);
  });
});
