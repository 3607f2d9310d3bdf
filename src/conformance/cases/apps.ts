// apps.install-launch: the fixture app on a phone, installed with apps.install, listed, in front
// when launched (its button shown, and a tap on it logged as a touch down and up at its point)
// and not once terminated. The app's log is read from the view it shows it in (apps.ui_tree):
// a phone-harness phone has no files to read it from.
import type { UiNode } from "../../daemon/protocol.js";
import { call, check, shown, until } from "../assert.js";
import { conformanceCase, type CaseContext } from "../case.js";
import { FIXTURE_APP, FIXTURE_BUTTON, FIXTURE_LOG_VIEW, type FixtureEvent, noFixture, onTheDisplay } from "../fixture.js";
import { actOk } from "./actions.js";
import { flat, foreground, tree } from "./settings.js";

const SETTLE_MS = 5_000;

async function nodes(t: CaseContext): Promise<UiNode[]> {
  return flat((await tree(t)).root);
}

/** The fixture app's log as its view shows it, from after its ready line. */
function events(all: UiNode[]): FixtureEvent[] {
  const lines = (all.find((n) => n.id === FIXTURE_LOG_VIEW)?.text ?? "").split("\n").filter(Boolean);
  return lines.map((line) => JSON.parse(line) as FixtureEvent).filter((e) => e.event !== "ready");
}

/** A tap on the fixture's button, found by its id and text, logged as finger 0 down and up at the tap's point. */
async function tapLogged(t: CaseContext): Promise<void> {
  const shownNow = await until(
    () => nodes(t),
    (all) => all.some((n) => n.id === FIXTURE_BUTTON.id),
    SETTLE_MS,
    t.signal,
  );
  const button = shownNow.find((n) => n.id === FIXTURE_BUTTON.id && n.text === FIXTURE_BUTTON.text);
  check(button, `the fixture app shows no button ${FIXTURE_BUTTON.id} that reads ${shown(FIXTURE_BUTTON.text)}`);
  const b = button.bounds;
  const point: [number, number] = [Math.round(b.x + b.width / 2), Math.round(b.y + b.height / 2)];
  await actOk(t, [{ type: "tap", point }]);
  const touches = (all: UiNode[]) => events(all).filter((e) => e.event === "touch");
  const seen = touches(
    await until(
      () => nodes(t),
      (all) => touches(all).length >= 2,
      SETTLE_MS,
      t.signal,
    ),
  );
  const at = (phase: string) =>
    seen.some((e) => e.event === "touch" && e.phase === phase && e.finger === 0 && e.point[0] === point[0] && e.point[1] === point[1]);
  check(at("down") && at("up"), `a tap at ${shown(point)} on the fixture's button was logged as ${shown(seen)}, not a touch down and up there`);
}

export const appsCases = [
  conformanceCase("apps.install-launch", "core", { groups: ["apps", "apps.install"] }, async (t) => {
    const fixture = t.fixture;
    if (!fixture) return noFixture();
    return onTheDisplay(t, async () => {
      const installed = await call("apps.install", t.client.call("apps.install", { path: fixture }, { signal: t.signal }));
      check(installed.id == null || installed.id === FIXTURE_APP, `apps.install of the fixture says it installed ${shown(installed.id)}, not ${FIXTURE_APP}`);
      const listed = await call("apps.list", t.client.call("apps.list", {}, { signal: t.signal }));
      check(
        listed.apps.some((a) => a.id === FIXTURE_APP),
        `apps.list does not list ${FIXTURE_APP} once installed: ${shown(listed.apps.map((a) => a.id))}`,
      );
      await call("apps.launch", t.client.call("apps.launch", { id: FIXTURE_APP }, { signal: t.signal }));
      try {
        const front = await until(
          () => foreground(t),
          (f) => f === FIXTURE_APP,
          SETTLE_MS,
          t.signal,
        );
        check(front === FIXTURE_APP, `${FIXTURE_APP} is not in front once launched (${shown(front)} is)`);
        if (t.hello.groups.includes("apps.ui_tree") && t.hello.groups.includes("input.touch")) await tapLogged(t);
      } finally {
        await call("apps.terminate", t.client.call("apps.terminate", { id: FIXTURE_APP }, { signal: t.signal }));
      }
      const after = await until(
        () => foreground(t),
        (f) => f !== FIXTURE_APP,
        SETTLE_MS,
        t.signal,
      );
      check(after !== FIXTURE_APP, `${FIXTURE_APP} is still in front once terminated`);
    });
  }),
];
