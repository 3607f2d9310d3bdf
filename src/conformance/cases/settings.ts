// touch, keys and apps on a phone with no fixture app: the stock Settings app, read back through
// apps.ui_tree. A tap on a row opens its page and back comes back; a swipe up moves the list up;
// text typed into Settings' search field reads back exactly; a refused key batch types nothing;
// Settings launches to the front and terminates out of it; the tree is the protocol's shape.
// Each case has the screen to itself (onTheDisplay): two cases driving one Settings would read
// each other's taps.
import type { UiNode } from "../../daemon/protocol.js";
import { call, check, shown, until } from "../assert.js";
import { conformanceCase, Skip, type CaseContext } from "../case.js";
import { onTheDisplay } from "../fixture.js";
import { act, actOk, sendUnknownKey } from "./actions.js";
import { shot } from "./screen.js";

export const SETTINGS_APP = "com.android.settings";
const SETTLE_MS = 5_000;

export const isPhone = (t: CaseContext) => t.hello.kind === "android" || t.hello.kind === "ios";

type Box = UiNode["bounds"];
export const flat = (node: UiNode): UiNode[] => [node, ...node.children.flatMap(flat)];
const centre = (b: Box): [number, number] => [Math.round(b.x + b.width / 2), Math.round(b.y + b.height / 2)];
const inside = (a: Box, b: Box) => a.x >= b.x && a.y >= b.y && a.x + a.width <= b.x + b.width && a.y + a.height <= b.y + b.height;
const says = (n: UiNode, words: string) => n.text === words || n.label === words;

export async function tree(t: CaseContext) {
  return call("apps.ui_tree", t.client.call("apps.ui_tree", {}, { signal: t.signal }));
}

export async function foreground(t: CaseContext): Promise<string | null | undefined> {
  return (await call("apps.list", t.client.call("apps.list", {}, { signal: t.signal }))).foreground;
}

/** Settings launched to its first screen, and its list's rows (titled nodes inside the scrollable list, top to bottom, wholly shown). */
async function settingsList(t: CaseContext) {
  await call("apps.launch", t.client.call("apps.launch", { id: SETTINGS_APP }, { signal: t.signal }));
  const read = async () => {
    const nodes = flat((await tree(t)).root);
    const list = nodes.find((n) => n.scrollable);
    const rows = list ? flat(list).filter((n) => n !== list && n.text && /:id\/title$/.test(n.id ?? "") && inside(n.bounds, list.bounds)) : [];
    return { nodes, list, rows: rows.sort((a, b) => a.bounds.y - b.bounds.y) };
  };
  const got = await until(read, (r) => r.rows.length >= 2, SETTLE_MS, t.signal);
  check(got.list && got.rows.length >= 2, `Settings shows no scrollable list of two titled rows or more (in front: ${shown(await foreground(t))})`);
  return { ...got, list: got.list! };
}

/** Settings' search field opened and focused: the focused editable node. */
async function searchField(t: CaseContext): Promise<UiNode> {
  const { nodes } = await settingsList(t);
  const field = nodes.find((n) => /search/i.test(`${n.text ?? ""} ${n.label ?? ""} ${n.id ?? ""}`));
  check(field, "Settings shows no search field (a node whose text, label or id says search)");
  await actOk(t, [{ type: "tap", point: centre(field.bounds) }]);
  const focused = async () => flat((await tree(t)).root).find((n) => n.focused && /EditText/.test(n.role));
  const open = await until(focused, (n) => n !== undefined, SETTLE_MS, t.signal);
  check(open, `a tap on Settings' search field at ${shown(centre(field.bounds))} focused no text field`);
  return open;
}

async function fieldText(t: CaseContext): Promise<string> {
  return flat((await tree(t)).root).find((n) => n.focused && /EditText/.test(n.role))?.text ?? "";
}

async function leave(t: CaseContext) {
  await call("apps.terminate", t.client.call("apps.terminate", { id: SETTINGS_APP }, { signal: t.signal }));
}

/** The screen to this case alone, and Settings terminated when it ends. */
function onSettings<T>(t: CaseContext, run: () => Promise<T>): Promise<T> {
  return onTheDisplay(t, async () => {
    try {
      return await run();
    } finally {
      await leave(t);
    }
  });
}

/** input.type-text on a phone: the text read back from Settings' search field. */
export function typeIntoSearch(t: CaseContext): Promise<void> {
  return onSettings(t, async () => {
    await searchField(t);
    const text = "Hello, agentrun! 123";
    await actOk(t, [{ type: "type", text }]);
    const seen = await until(
      () => fieldText(t),
      (s) => s === text,
      SETTLE_MS,
      t.signal,
    );
    check(seen === text, `Settings' search field reads ${shown(seen)}, not ${shown(text)}`);
  });
}

/** input.key-table-refuses-unknown on a phone: the refused batch typed nothing into Settings' search field. */
export function refusedKeyTypesNothing(t: CaseContext): Promise<void> {
  return onSettings(t, async () => {
    await searchField(t);
    await sendUnknownKey(t);
    await t.sleep(500);
    const seen = await fieldText(t);
    check(seen === "", `the refused batch still ran: Settings' search field reads ${shown(seen)}`);
  });
}

/** The words of a tap whose page did not come: the screen in px and dp, what is in front, the point, the row, where the title shows, the next row. */
async function missedTap(t: CaseContext, point: [number, number], row: UiNode, next: UiNode, list: Box): Promise<string> {
  const screen = await shot(t.client, t.signal);
  const nodes = flat((await tree(t)).root);
  const title = row.text!;
  const outside = nodes.some((n) => says(n, title) && !inside(n.bounds, list));
  const nextShown = nodes.some((n) => says(n, next.text!));
  const dp = (px: number) => Math.round(px / screen.scale);
  return (
    `a tap at ${shown(point)} on the row ${shown(title)} (bounds ${shown(row.bounds)}) did not open its page: the screen is ${screen.width}x${screen.height} px ` +
    `(${dp(screen.width)}x${dp(screen.height)} dp), ${shown(await foreground(t))} is in front, the title ${outside ? "shows" : "does not show"} outside the list, ` +
    `and the next row ${shown(next.text)} is ${nextShown ? "still" : "no longer"} shown`
  );
}

const observable = { groups: ["input.touch", "apps", "apps.ui_tree"] } as const;

export const settingsCases = [
  conformanceCase("touch.tap", "core", { groups: [...observable.groups] }, (t) =>
    onSettings(t, async () => {
      const { rows, list } = await settingsList(t);
      const [row, next] = [rows[0]!, rows[1]!];
      const point = centre(row.bounds);
      await actOk(t, [{ type: "tap", point }]);
      const opened = (nodes: UiNode[]) => nodes.some((n) => says(n, row.text!)) && !nodes.some((n) => says(n, next.text!));
      const page = await until(async () => flat((await tree(t)).root), opened, SETTLE_MS, t.signal);
      if (!opened(page)) check(false, await missedTap(t, point, row, next, list.bounds));
      await actOk(t, [{ type: "button", button: "back" }]);
      const back = await until(
        async () => flat((await tree(t)).root),
        (nodes) => nodes.some((n) => says(n, next.text!)),
        SETTLE_MS,
        t.signal,
      );
      check(
        back.some((n) => says(n, next.text!)),
        `back from ${shown(row.text)}'s page did not come back to Settings' list (${shown(next.text)} is not shown)`,
      );
    }),
  ),

  conformanceCase("touch.swipe", "core", { groups: [...observable.groups] }, (t) =>
    onSettings(t, async () => {
      const { rows, list } = await settingsList(t);
      const first = rows[0]!;
      const b = list.bounds;
      const x = Math.round(b.x + b.width / 2);
      await actOk(t, [{ type: "swipe", from: [x, Math.round(b.y + b.height * 0.8)], to: [x, Math.round(b.y + b.height * 0.3)], ms: 400 }]);
      const where = async () => flat((await tree(t)).root).find((n) => n.text === first.text)?.bounds.y;
      const moved = await until(where, (y) => y === undefined || y < first.bounds.y, SETTLE_MS, t.signal);
      check(moved === undefined || moved < first.bounds.y, `a swipe up left the row ${shown(first.text)} at y ${first.bounds.y}: the list did not move up`);
    }),
  ),

  conformanceCase("touch.pinch", "full", { groups: ["input.touch"] }, (t) =>
    onTheDisplay(t, async () => {
      const done = await act(t, [{ type: "pinch", point: [100, 100], scale: 2 }]);
      if (done.failed?.kind === "unsupported") return new Skip(`the provider refuses a pinch: ${done.failed.message}`);
      check(!done.failed, `a pinch answered ${shown(done)}`);
      return new Skip("the pinch ran, and Settings shows nothing that a pinch changes: its two fingers are not observed");
    }),
  ),

  conformanceCase("apps.launch-terminate", "core", { groups: ["apps"] }, (t) =>
    onTheDisplay(t, async () => {
      const listed = await call("apps.list", t.client.call("apps.list", {}, { signal: t.signal }));
      check(
        listed.apps.some((a) => a.id === SETTINGS_APP),
        `apps.list does not list ${SETTINGS_APP}: ${shown(listed.apps.map((a) => a.id))}`,
      );
      const before = t.hello.groups.includes("screen") ? (await shot(t.client, t.signal)).data : undefined;
      await call("apps.launch", t.client.call("apps.launch", { id: SETTINGS_APP }, { signal: t.signal }));
      try {
        check((await foreground(t)) === SETTINGS_APP, `${SETTINGS_APP} is not in front once launched (${shown(await foreground(t))} is)`);
        if (t.hello.groups.includes("apps.ui_tree")) {
          const nodes = await until(
            async () => flat((await tree(t)).root),
            (n) => n.some((x) => x.scrollable),
            SETTLE_MS,
            t.signal,
          );
          check(
            nodes.some((n) => n.scrollable),
            "Settings is in front but apps.ui_tree shows no list of it",
          );
        } else if (before !== undefined) {
          check((await shot(t.client, t.signal)).data !== before, "Settings is in front but the screenshot is the one from before its launch");
        }
      } finally {
        await leave(t);
      }
      const after = await until(
        () => foreground(t),
        (f) => f !== SETTINGS_APP,
        SETTLE_MS,
        t.signal,
      );
      check(after !== SETTINGS_APP, `${SETTINGS_APP} is still in front once terminated`);
    }),
  ),

  conformanceCase("apps.ui-tree-shape", "core", { groups: ["apps", "apps.ui_tree"] }, (t) =>
    onSettings(t, async () => {
      await settingsList(t);
      const got = await tree(t);
      const screen = await shot(t.client, t.signal);
      const all = flat(got.root);
      check(got.nodes === all.length, `apps.ui_tree says ${got.nodes} nodes and holds ${all.length}`);
      check(!got.truncated, "Settings' tree came truncated");
      const whole = { x: 0, y: 0, width: screen.width, height: screen.height };
      const out = all.filter((n) => !inside(n.bounds, whole));
      check(
        out.length === 0,
        `${out.length} nodes lie outside the ${screen.width}x${screen.height} screenshot: ${shown(out.slice(0, 3).map((n) => [n.role, n.bounds]))}`,
      );
      check(
        all.some((n) => n.text && n.enabled),
        "Settings' tree has no enabled node with a text",
      );
    }),
  ),
];
