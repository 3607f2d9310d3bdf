// What the simulated phone shows: one tree of views computed from the model, which both the
// screencap (pixels) and uiautomator (XML) read, so a screenshot and a ui tree always agree.
import {
  CLOCK,
  FIXTURE_APP,
  HEIGHT,
  ICONS,
  LAUNCHER,
  LIST_TOP,
  PhoneModel,
  ROW_HEIGHT,
  ROWS,
  SEARCH,
  SEARCH_FIELD,
  SETTINGS,
  STATUS_BAR,
  WIDTH,
} from "./model.js";

export interface View {
  cls: string;
  pkg: string;
  bounds: [number, number, number, number];
  color: number;
  text?: string;
  desc?: string;
  id?: string;
  clickable?: boolean;
  scrollable?: boolean;
  focused?: boolean;
  children: View[];
}

const view = (cls: string, pkg: string, bounds: View["bounds"], color: number, more: Partial<View> = {}): View => ({
  cls,
  pkg,
  bounds,
  color,
  children: [],
  ...more,
});

export function viewTree(m: PhoneModel): View {
  const pkg = m.recents ? LAUNCHER : m.frontPackage;
  const root = view("android.widget.FrameLayout", pkg, [0, 0, WIDTH, HEIGHT], 0xf5f5f5ff);
  root.children.push(view("android.view.View", "com.android.systemui", [0, 0, WIDTH, STATUS_BAR], 0x202124ff, { id: "com.android.systemui:id/status_bar" }));
  root.children.push(...(m.recents ? recents() : screenViews(m)));
  return root;
}

function screenViews(m: PhoneModel): View[] {
  const s = m.screen;
  if (m.front === LAUNCHER) return launcher();
  if (m.front === FIXTURE_APP) return fixture(m);
  const app = m.installed.get(m.front);
  if (app) return [view("android.widget.TextView", app.pkg, [24, LIST_TOP, WIDTH - 24, LIST_TOP + ROW_HEIGHT], 0x3c4043ff, { text: app.label })];
  if (m.front === CLOCK) return [view("android.widget.TextView", CLOCK, [120, 300, 420, 420], 0x3c4043ff, { text: "12:00", id: `${CLOCK}:id/digital_clock` })];
  if (s?.page === "search") return search(m);
  if (s?.page === "row") return page(s.row);
  return list(m);
}

/** The fixture app's one screen: its button, and its log's lines in a text view below it. */
function fixture(m: PhoneModel): View[] {
  const button = view("android.widget.Button", FIXTURE_APP, [24, LIST_TOP, WIDTH - 24, LIST_TOP + ROW_HEIGHT], 0x1a73e8ff, {
    text: "agentrun fixture",
    id: `${FIXTURE_APP}:id/button`,
    clickable: true,
  });
  const log = view("android.widget.TextView", FIXTURE_APP, [24, LIST_TOP + ROW_HEIGHT, WIDTH - 24, HEIGHT], 0xffffffff, {
    text: m.fixtureLog.join("\n"),
    id: `${FIXTURE_APP}:id/log`,
  });
  return [button, log];
}

function launcher(): View[] {
  return ICONS.map((i) =>
    view("android.widget.TextView", LAUNCHER, [i.left, i.top, i.right, i.bottom], i.pkg === SETTINGS ? 0x1a73e8ff : 0x34a853ff, {
      text: i.text,
      desc: i.text,
      clickable: true,
    }),
  );
}

function recents(): View[] {
  return [view("android.widget.FrameLayout", LAUNCHER, [60, 120, 480, 840], 0x5f6368ff, { id: `${LAUNCHER}:id/overview_panel`, desc: "Recent apps" })];
}

function list(m: PhoneModel): View[] {
  const f = SEARCH_FIELD;
  const field = view("android.widget.TextView", SETTINGS, [f.left, f.top, f.right, f.bottom], 0xe8eaedff, {
    text: "Search Settings",
    id: `${SETTINGS}:id/search_action_bar_title`,
    clickable: true,
  });
  const rows = m.visibleRows().map(({ row, top, bottom }) =>
    view("android.widget.LinearLayout", SETTINGS, [0, top, WIDTH, bottom], row % 2 ? 0xffffffff : 0xfafafaff, {
      clickable: true,
      children: [view("android.widget.TextView", SETTINGS, [96, top, WIDTH - 24, bottom], rowColor(row), { text: ROWS[row], id: "android:id/title" })],
    }),
  );
  const recycler = view("androidx.recyclerview.widget.RecyclerView", SETTINGS, [0, LIST_TOP, WIDTH, HEIGHT], 0xffffffff, {
    id: `${SETTINGS}:id/recycler_view`,
    scrollable: true,
    children: rows,
  });
  return [field, recycler];
}

/** A row's page: its title only as the toolbar's content-desc (as Android 15 has it), and its own entries. */
function page(row: number): View[] {
  const title = ROWS[row]!;
  const toolbar = view("android.view.ViewGroup", SETTINGS, [0, STATUS_BAR, WIDTH, LIST_TOP], rowColor(row), { id: `${SETTINGS}:id/action_bar`, desc: title });
  const entries = [0, 1, 2].map((n) => {
    const top = LIST_TOP + n * ROW_HEIGHT;
    return view("android.widget.TextView", SETTINGS, [24, top, WIDTH - 24, top + ROW_HEIGHT], (rowColor(row) + n * 0x101000) | 0xff, {
      text: `${title} option ${n + 1}`,
      id: "android:id/title",
      clickable: true,
    });
  });
  return [toolbar, ...entries];
}

function search(m: PhoneModel): View[] {
  const f = SEARCH_FIELD;
  const field = view("android.widget.EditText", SEARCH, [f.left, f.top, f.right, f.bottom], 0xffffffff, {
    text: m.query,
    id: `${SEARCH}:id/search_src_text`,
    focused: true,
    clickable: true,
  });
  const results = m.results().map((text, n) => {
    const top = LIST_TOP + n * ROW_HEIGHT;
    return view("android.widget.TextView", SEARCH, [24, top, WIDTH - 24, top + ROW_HEIGHT], rowColor(ROWS.indexOf(text)), {
      text,
      id: "android:id/title",
      clickable: true,
    });
  });
  return [field, ...results];
}

function rowColor(row: number): number {
  return (((row * 0x9e3779b1) >>> 8) << 8) | 0xff;
}
