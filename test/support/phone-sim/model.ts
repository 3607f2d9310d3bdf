// The simulated phone's model: a launcher, the Settings app (a scrolling list of rows that open
// pages, a search field that opens Settings' search) and a clock app, with back, home and the
// app switcher. Everything a screenshot or a ui tree shows is computed from this state.
export const WIDTH = 540;
export const HEIGHT = 960;
export const DENSITY = 240;

export const LAUNCHER = "com.android.launcher3";
export const SETTINGS = "com.android.settings";
export const SEARCH = "com.android.settings.intelligence";
export const CLOCK = "com.google.android.deskclock";
export const PACKAGES = [LAUNCHER, SETTINGS, SEARCH, CLOCK, "com.android.systemui", "android"];
/** The fixture app's package: the one installed app whose code the phone stands in for (it runs no dex). */
export const FIXTURE_APP = "ai.agentrun.fixture";
/** Each app's launcher activity, as `cmd package resolve-activity` names it. */
export const ACTIVITIES: Record<string, string> = {
  [LAUNCHER]: `${LAUNCHER}/.uioverride.QuickstepLauncher`,
  [SETTINGS]: `${SETTINGS}/.Settings`,
  [CLOCK]: `${CLOCK}/com.android.deskclock.DeskClock`,
};
const SEARCH_ACTIVITY = `${SEARCH}/.search.SearchActivity`;

export const ROWS = [
  "Network & internet",
  "Connected devices",
  "Apps",
  "Notifications",
  "Battery",
  "Storage",
  "Sound & vibration",
  "Display",
  "Wallpaper & style",
  "Accessibility",
  "Security & privacy",
  "Location",
  "Safety & emergency",
  "Passwords & accounts",
  "Digital Wellbeing",
  "Google",
  "System",
  "About emulated device",
];
export const STATUS_BAR = 36;
export const SEARCH_FIELD = { left: 24, top: 60, right: 516, bottom: 150 };
export const LIST_TOP = 180;
export const ROW_HEIGHT = 120;
export const MAX_SCROLL = ROWS.length * ROW_HEIGHT - (HEIGHT - LIST_TOP);
export const ICONS = [
  { pkg: SETTINGS, text: "Settings", left: 60, top: 600, right: 180, bottom: 720 },
  { pkg: CLOCK, text: "Clock", left: 210, top: 600, right: 330, bottom: 720 },
];

/** A screen of Settings' task: its list, a row's page, or its search (another package's activity on the task's top). */
export type SettingsScreen = { page: "list" } | { page: "row"; row: number } | { page: "search" };
export type Touch = { kind: "tap" | "long_press"; x: number; y: number } | { kind: "swipe"; from: [number, number]; to: [number, number] };

/** An app installed from an APK: its package and launcher activity, as its manifest names them. */
export interface InstalledApp {
  pkg: string;
  activity: string;
  label: string;
}

export class PhoneModel {
  front: string = LAUNCHER;
  readonly installed = new Map<string, InstalledApp>();
  /** The fixture app's log of its run in front (one JSON line an event, ready first), as it writes it to its files directory. */
  fixtureLog: string[] = [];
  recents = false;
  settings: SettingsScreen[] = [];
  scroll = 0;
  query = "";
  /** A fault: taps reach the phone and change nothing (a test of the words a missed tap gets). */
  deadTaps = false;
  /** A fault: the fixture app logs no touch. */
  mutedFixture = false;
  /** Every touch, key and text the phone took, in order: what a test reads back. */
  readonly log: string[] = [];

  get screen(): SettingsScreen | undefined {
    return this.front === SETTINGS ? this.settings.at(-1) : undefined;
  }

  /** The package in front: Settings' search is its own package. */
  get frontPackage(): string {
    return this.screen?.page === "search" ? SEARCH : this.front;
  }

  get frontActivity(): string {
    return this.frontPackage === SEARCH ? SEARCH_ACTIVITY : this.activityOf(this.front)!;
  }

  /** Every package on the phone: the system's, then those installed. */
  packages(): string[] {
    return [...PACKAGES, ...this.installed.keys()];
  }

  /** A package's launcher activity (package/class), if it has one. */
  activityOf(pkg: string): string | undefined {
    const app = this.installed.get(pkg);
    return app ? `${pkg}/${app.activity}` : ACTIVITIES[pkg];
  }

  install(app: InstalledApp): void {
    this.forceStop(app.pkg);
    this.installed.set(app.pkg, app);
  }

  /** `am start`: the app in front; a cleared task starts at its first screen, else it keeps what it held. */
  launch(pkg: string, clearTask: boolean): void {
    this.recents = false;
    if (pkg === FIXTURE_APP && (clearTask || this.front !== pkg)) this.fixtureLog = [JSON.stringify({ event: "ready", width: WIDTH, height: HEIGHT })];
    this.front = pkg;
    if (pkg === SETTINGS && (clearTask || this.settings.length === 0)) {
      this.settings = [{ page: "list" }];
      this.scroll = 0;
      this.query = "";
    }
  }

  forceStop(pkg: string): void {
    if (pkg === SETTINGS || pkg === SEARCH) this.settings = [];
    if (this.front === pkg || (pkg === SEARCH && this.frontPackage === SEARCH)) this.front = LAUNCHER;
  }

  key(code: number): void {
    this.log.push(`key ${code}`);
    if (code === 3) this.home();
    else if (code === 4) this.back();
    else if (code === 187) this.recents = !this.recents;
    else if (code === 67 && this.screen?.page === "search") this.query = this.query.slice(0, -1);
  }

  text(text: string): void {
    this.log.push(`text ${text}`);
    if (this.screen?.page === "search") this.query += text;
  }

  home(): void {
    this.recents = false;
    this.front = LAUNCHER;
  }

  back(): void {
    if (this.recents) this.recents = false;
    else if (this.front === SETTINGS && this.settings.length > 1) this.settings.pop();
    else if (this.front !== LAUNCHER) this.home();
  }

  touch(t: Touch): void {
    if (this.front === FIXTURE_APP && !this.recents && !this.mutedFixture) this.fixtureTouch(t);
    if (t.kind === "swipe") {
      this.log.push(`swipe ${t.from.join(",")} ${t.to.join(",")}`);
      if (this.screen?.page === "list") this.scroll = Math.max(0, Math.min(MAX_SCROLL, this.scroll + (t.from[1] - t.to[1])));
      return;
    }
    this.log.push(`${t.kind} ${t.x},${t.y}`);
    if (t.kind === "tap" && !this.deadTaps) this.tap(t.x, t.y);
  }

  /** The fixture app logs each finger's down, moves and up with its point (adb's input has one finger, 0). */
  private fixtureTouch(t: Touch): void {
    const at = (phase: string, point: [number, number]) => this.fixtureLog.push(JSON.stringify({ event: "touch", finger: 0, phase, point }));
    const [from, to]: [[number, number], [number, number]] =
      t.kind === "swipe"
        ? [t.from, t.to]
        : [
            [t.x, t.y],
            [t.x, t.y],
          ];
    at("down", from);
    if (t.kind === "swipe") at("move", to);
    at("up", to);
  }

  private tap(x: number, y: number): void {
    if (this.recents) return void (this.recents = false);
    if (this.front === LAUNCHER) {
      const icon = ICONS.find((i) => x >= i.left && x < i.right && y >= i.top && y < i.bottom);
      if (icon) this.launch(icon.pkg, false);
      return;
    }
    if (this.screen?.page !== "list") return;
    const f = SEARCH_FIELD;
    if (x >= f.left && x < f.right && y >= f.top && y < f.bottom) {
      this.query = "";
      this.settings.push({ page: "search" });
      return;
    }
    if (y < LIST_TOP) return;
    const row = Math.floor((y - LIST_TOP + this.scroll) / ROW_HEIGHT);
    if (row < ROWS.length) this.settings.push({ page: "row", row });
  }

  /** The rows Settings' list shows now, with their bounds on the screen (clipped to the list). */
  visibleRows(): { row: number; top: number; bottom: number }[] {
    return ROWS.flatMap((_, row) => {
      const top = LIST_TOP + row * ROW_HEIGHT - this.scroll;
      const bottom = top + ROW_HEIGHT;
      return bottom <= LIST_TOP || top >= HEIGHT ? [] : [{ row, top: Math.max(top, LIST_TOP), bottom: Math.min(bottom, HEIGHT) }];
    });
  }

  /** What the search page lists for the query. */
  results(): string[] {
    const q = this.query.toLowerCase();
    return q ? ROWS.filter((r) => r.toLowerCase().includes(q)) : [];
  }
}
