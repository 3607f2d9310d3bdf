// input: input.actions read back through the desktop fixture's own log: clicks land at their
// point with their count, typed text arrives exactly, an unknown key refuses the whole batch,
// and a batch stops at its first failure with what it held released.
import { call, check, shown } from "../assert.js";
import { conformanceCase, type CaseContext } from "../case.js";
import { type FixtureEvent, noFixture, onTheDisplay, type RunningFixture, startFixture } from "../fixture.js";
import { act, actOk, sendUnknownKey } from "./actions.js";
import { isPhone, refusedKeyTypesNothing, typeIntoSearch } from "./settings.js";

const typed = (events: FixtureEvent[]) => events.map((e) => (e.event === "text" ? e.text : "")).join("");
const downs = (events: FixtureEvent[]) => events.filter((e): e is Extract<FixtureEvent, { event: "down" }> => e.event === "down");

/** The case's fixture, or the skip that says none was given. */
async function withFixture(t: CaseContext, run: (fixture: RunningFixture) => Promise<void>) {
  const fixture = t.fixture;
  if (!fixture) return noFixture();
  await onTheDisplay(t, async () => run(await startFixture(t, fixture)));
}

export const inputCases = [
  conformanceCase("input.click-lands", "core", { groups: ["input.pointer"] }, (t) =>
    withFixture(t, async (fixture) => {
      await actOk(t, [{ type: "click", point: [30, 40] }]);
      const single = downs(await fixture.until((e) => downs(e).length >= 1, "the single click's press"));
      check(shown(single[0]!.point) === "[30,40]" && single[0]!.count === 1 && single[0]!.button === "left", `a click at [30,40] logged ${shown(single[0])}`);
      await actOk(t, [{ type: "click", point: [120, 60], count: 2 }]);
      const all = downs(await fixture.until((e) => downs(e).length >= 3, "the double click's two presses"));
      check(
        shown(all[2]!.point) === "[120,60]" && all[2]!.count === 2,
        `a double click at [120,60] logged its second press as ${shown(all[2])}, not count 2 there`,
      );
    }),
  ),

  conformanceCase("input.type-text", "core", { groups: ["input.keys"] }, (t) =>
    // A phone reads the text back from Settings' search field: its fixture app logs touch alone.
    isPhone(t)
      ? typeIntoSearch(t)
      : withFixture(t, async (fixture) => {
          const text = "Hello, agentrun! 123";
          await actOk(t, [{ type: "type", text }]);
          const seen = await fixture.until((e) => typed(e).length >= text.length, `${text.length} typed characters`);
          check(typed(seen) === text, `the fixture received ${shown(typed(seen))}, not ${shown(text)}`);
        }),
  ),

  conformanceCase("input.key-table-refuses-unknown", "core", { groups: ["input.keys"] }, (t) =>
    isPhone(t)
      ? refusedKeyTypesNothing(t)
      : onTheDisplay(t, async () => {
          const fixture = t.fixture ? await startFixture(t, t.fixture) : undefined;
          await sendUnknownKey(t);
          if (!fixture) return noFixture();
          await t.sleep(500);
          const seen = await fixture.events();
          check(seen.length === 0, `the refused batch still ran: the fixture logged ${shown(seen)}`);
        }),
  ),

  conformanceCase("input.actions-stops-at-first-failure", "core", { groups: ["input.pointer"] }, (t) =>
    withFixture(t, async (fixture) => {
      const full = await call("screen.shot", t.client.call("screen.shot", {}, { signal: t.signal }));
      const done = await act(t, [
        { type: "move", point: [60, 60] },
        { type: "down", button: "left" },
        { type: "move", point: [full.width + 10, 60] },
        { type: "click", point: [100, 100] },
      ]);
      check(
        done.done === 2 && done.failed?.index === 2,
        `move, down, a move off the screen and a click answered ${shown(done)}, not done 2 with failed.index 2`,
      );
      const seen = await fixture.until((e) => e.some((x) => x.event === "up"), "the press released");
      const presses = seen.filter((e) => e.event === "down" || e.event === "up");
      check(
        presses.length === 2 && presses[0]!.event === "down" && presses[1]!.event === "up" && shown(presses[1]!.point) === "[60,60]",
        `the fixture logged ${shown(presses)}: not one press at [60,60] released where it was, with no click`,
      );
      await actOk(t, [{ type: "click", point: [140, 140] }]);
      const later = downs(await fixture.until((e) => downs(e).length >= 2, "a later click"));
      check(shown(later[1]!.point) === "[140,140]" && later[1]!.count === 1, `a later click at [140,140] logged ${shown(later[1])}: something was left held`);
    }),
  ),
];
