// input.actions: the batch rules (checkActions, the check computerd runs first), the key table,
// and the viewer's events mapped to actions (toAction, createActionMapper). Pure; never throws.
import { Action, type ActionType, type InputActionsResult, MAX_TYPE_CHARS, type MachineKind, type Point } from "./protocol.js";
import type { Refusal } from "./result.js";

/** At most 100 actions a batch. */
export const MAX_ACTIONS = 100;
/** A batch's waits and holds together last at most 300 s. */
export const MAX_BATCH_WAIT_MS = 300_000;
/** A key action repeats at most 100 times. */
export const MAX_KEY_REPEAT = 100;

const F_KEYS = Array.from({ length: 12 }, (_, i) => `f${i + 1}`);
/** The named keys; any other key is one printable ASCII character (0x21-0x7e). daemon/internal/keys mirrors it (test/vectors/keys.json). */
export const KEYS = [
  "enter",
  "tab",
  "space",
  "backspace",
  "delete",
  "escape",
  "insert",
  "up",
  "down",
  "left",
  "right",
  "home",
  "end",
  "pageup",
  "pagedown",
  ...F_KEYS,
  "shift",
  "ctrl",
  "alt",
  "super",
  "capslock",
] as const;
export type KeyName = (typeof KEYS)[number];

const KEY_SET: ReadonlySet<string> = new Set(KEYS);

/** A name in KEYS, or one printable ASCII character. */
export function isKey(key: string): boolean {
  if (KEY_SET.has(key)) return true;
  if (key.length !== 1) return false;
  const code = key.charCodeAt(0);
  return code >= 0x21 && code <= 0x7e;
}

/** The group each action needs; wait needs none. */
export const ACTION_GROUP: Record<ActionType, string | null> = {
  move: "input.pointer",
  down: "input.pointer",
  up: "input.pointer",
  click: "input.pointer",
  drag: "input.pointer",
  scroll: "input.pointer",
  key: "input.keys",
  hold: "input.keys",
  type: "input.keys",
  wait: null,
  tap: "input.touch",
  long_press: "input.touch",
  swipe: "input.touch",
  pinch: "input.touch",
  button: "input.touch",
};

export interface CheckActionsOptions {
  /** The computer scrolls by pixels too (a phone), not only by wheel clicks. */
  pixelScroll?: boolean;
}

const failed = (index: number, kind: "invalid" | "limit" | "unsupported", message: string): InputActionsResult => ({
  done: 0,
  failed: { index, kind, message },
});

/**
 * The whole batch checked before anything runs: its shape, at most MAX_ACTIONS, every key against
 * KEYS, each action's group against what is declared, a px scroll where only clicks exist, a
 * repeat, a text's length, and waits plus holds at most MAX_BATCH_WAIT_MS. A failure is the
 * reply the batch would get ({ done: 0, failed }); undefined when the batch may run.
 */
export function checkActions(actions: unknown, groups: readonly string[], options: CheckActionsOptions = {}): InputActionsResult | undefined {
  if (!Array.isArray(actions)) return failed(0, "invalid", "actions is a list of actions");
  if (actions.length > MAX_ACTIONS) {
    return failed(MAX_ACTIONS, "limit", `a batch holds at most ${MAX_ACTIONS} actions; this one has ${actions.length}: send the rest in another batch`);
  }
  let waited = 0;
  for (const [index, raw] of actions.entries()) {
    const parsed = Action.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
      return failed(index, "invalid", `action ${index}: ${where}${issue?.message ?? "not an action"}`);
    }
    const action = parsed.data;
    const group = ACTION_GROUP[action.type];
    if (group && !groups.includes(group)) {
      return failed(index, "unsupported", `action ${index} (${action.type}) needs the group ${group}, which this computer does not declare`);
    }
    const keys = "keys" in action ? (action.keys ?? []) : [];
    const unknown = keys.find((key) => !isKey(key));
    if (unknown !== undefined) {
      return failed(
        index,
        "invalid",
        `action ${index} (${action.type}): ${JSON.stringify(unknown.slice(0, 32))} is not a key: a key is a name in the key table (enter, tab, space, ctrl, f1-f12, ...) or one printable ASCII character`,
      );
    }
    if (action.type === "key" && (action.repeat ?? 1) > MAX_KEY_REPEAT) {
      return failed(index, "limit", `action ${index} (key): repeat is at most ${MAX_KEY_REPEAT}`);
    }
    if (action.type === "type" && [...action.text].length > MAX_TYPE_CHARS) {
      return failed(index, "limit", `action ${index} (type): a text holds at most ${MAX_TYPE_CHARS} characters; type it in parts`);
    }
    if (action.type === "scroll" && action.unit === "px" && !options.pixelScroll) {
      return failed(index, "unsupported", `action ${index} (scroll): this computer scrolls in wheel clicks, not pixels`);
    }
    if (action.type === "wait" || action.type === "hold") waited += action.ms;
    if (waited > MAX_BATCH_WAIT_MS) {
      return failed(index, "limit", `action ${index} (${action.type}): a batch's waits and holds last at most ${MAX_BATCH_WAIT_MS / 1000} s together`);
    }
  }
  return undefined;
}

// --- The viewer's events ---

export type Modifier = "ctrl" | "shift" | "alt" | "super";
export type MouseButton = "left" | "middle" | "right";

/** What the live view's viewer sends, in the screen's upright pixels. */
export type ViewerEvent =
  | { type: "mouse"; action: "move" | "down" | "up"; x: number; y: number; button?: MouseButton; modifiers?: Modifier[] }
  | { type: "wheel"; x: number; y: number; deltaX?: number; deltaY?: number }
  | { type: "key"; key: string; modifiers?: Modifier[] }
  | { type: "text"; text: string }
  | { type: "tap"; x: number; y: number }
  | { type: "swipe"; from: Point; to: Point; ms?: number }
  | { type: "button"; button: "back" | "home" | "recents" };

/** About 120 px of wheel delta a notch. */
const WHEEL_PX_PER_CLICK = 120;
const MAX_WHEEL_CLICKS = 20;
const MAX_SWIPE_MS = 1000;
const MODIFIERS: readonly string[] = ["ctrl", "shift", "alt", "super"];
const BUTTON_NAMES: readonly string[] = ["left", "middle", "right"];

const refusal = (field: string, message: string): Refusal => ({ field, message });

function pointOf(x: unknown, y: unknown): Point | Refusal {
  if (typeof x !== "number" || typeof y !== "number" || !Number.isFinite(x) || !Number.isFinite(y) || x < 0 || y < 0) {
    return refusal("point", "a point is x and y, numbers of pixels from the top left, 0 or more");
  }
  return [Math.round(x), Math.round(y)];
}

function modifiersOf(value: unknown): Modifier[] | Refusal {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((m) => typeof m === "string" && MODIFIERS.includes(m))) {
    return refusal("modifiers", "modifiers are among ctrl, shift, alt and super");
  }
  return [...new Set(value as Modifier[])];
}

function buttonOf(value: unknown): MouseButton | Refusal {
  if (value === undefined) return "left";
  if (typeof value !== "string" || !BUTTON_NAMES.includes(value)) return refusal("button", "a mouse button is left, middle or right");
  return value as MouseButton;
}

const isRefusal = (value: unknown): value is Refusal =>
  typeof value === "object" && value !== null && !Array.isArray(value) && "field" in value && "message" in value;

function keyAction(event: { key?: unknown; modifiers?: unknown }): Action[] | Refusal {
  if (typeof event.key !== "string") return refusal("key", "a key event names its key");
  const lower = event.key.toLowerCase();
  const key = KEY_SET.has(lower) ? lower : event.key;
  if (!isKey(key)) return refusal("key", "the key is not in the key table (a name such as enter or f5, or one printable ASCII character)");
  const modifiers = modifiersOf(event.modifiers);
  if (isRefusal(modifiers)) return modifiers;
  // These end or switch the X display, so a viewer never sends them.
  if (modifiers.includes("ctrl") && modifiers.includes("alt") && (key === "backspace" || F_KEYS.includes(key))) {
    return refusal("key", `ctrl+alt+${key} would end or switch the display, and is never sent`);
  }
  const keys = modifiers.includes(key as Modifier) ? modifiers : [...modifiers, key];
  return [{ type: "key", keys }];
}

function textAction(event: { text?: unknown }): Action[] | Refusal {
  if (typeof event.text !== "string" || event.text.length === 0) return refusal("text", "a text event carries its text");
  if ([...event.text].length > MAX_TYPE_CHARS) return refusal("text", `a typed text holds at most ${MAX_TYPE_CHARS} characters`);
  return [{ type: "type", text: event.text }];
}

function wheelAction(event: { x?: unknown; y?: unknown; deltaX?: unknown; deltaY?: unknown }): Action[] | Refusal {
  const point = pointOf(event.x, event.y);
  if (isRefusal(point)) return point;
  const clicks = (delta: unknown): number | Refusal => {
    if (delta === undefined) return 0;
    if (typeof delta !== "number" || !Number.isFinite(delta)) return refusal("delta", "a wheel delta is a number of pixels");
    if (delta === 0) return 0;
    const n = Math.max(1, Math.min(MAX_WHEEL_CLICKS, Math.round(Math.abs(delta) / WHEEL_PX_PER_CLICK)));
    return Math.sign(delta) * n;
  };
  const dx = clicks(event.deltaX);
  const dy = clicks(event.deltaY);
  if (isRefusal(dx)) return dx;
  if (isRefusal(dy)) return dy;
  if (dx === 0 && dy === 0) return [];
  return [{ type: "scroll", point, ...(dx !== 0 ? { dx } : {}), ...(dy !== 0 ? { dy } : {}) }];
}

function phoneAction(event: ViewerEvent): Action[] | Refusal {
  switch (event.type) {
    case "tap": {
      const point = pointOf(event.x, event.y);
      return isRefusal(point) ? point : [{ type: "tap", point }];
    }
    case "swipe": {
      const from = Array.isArray(event.from) ? pointOf(event.from[0], event.from[1]) : refusal("from", "a swipe has from and to points");
      const to = Array.isArray(event.to) ? pointOf(event.to[0], event.to[1]) : refusal("to", "a swipe has from and to points");
      if (isRefusal(from)) return from;
      if (isRefusal(to)) return to;
      const rawMs = event.ms ?? 300;
      if (typeof rawMs !== "number" || !Number.isFinite(rawMs)) return refusal("ms", "a swipe's ms is a number");
      const ms = Math.round(Math.min(MAX_SWIPE_MS, Math.max(0, rawMs)));
      return [{ type: "swipe", from, to, ms }];
    }
    case "button": {
      const map = { back: "back", home: "home", recents: "app_switch" } as const;
      const button = map[event.button as keyof typeof map];
      return button ? [{ type: "button", button }] : refusal("button", "a phone's button is back, home or recents");
    }
    case "key":
      return keyAction(event);
    case "text":
      return textAction(event);
    default:
      return refusal("type", `a phone takes taps, swipes, its buttons, keys and text, not ${describeType(event)}`);
  }
}

function describeType(event: unknown): string {
  const type = typeof event === "object" && event !== null ? (event as { type?: unknown }).type : undefined;
  return typeof type === "string" && /^[a-z_]{1,20}$/.test(type) ? `a ${type} event` : "this event";
}

/** Desktop mouse events, with the strategy for a press decided by the caller (the mapper keeps it). */
function desktopMouse(
  event: Extract<ViewerEvent, { type: "mouse" }>,
  pressStrategy: (button: MouseButton, modifiers: Modifier[]) => { click: Modifier[] | undefined },
): Action[] | Refusal {
  const point = pointOf(event.x, event.y);
  if (isRefusal(point)) return point;
  const modifiers = modifiersOf(event.modifiers);
  if (isRefusal(modifiers)) return modifiers;
  switch (event.action) {
    case "move":
      return [{ type: "move", point }];
    case "down": {
      const button = buttonOf(event.button);
      if (isRefusal(button)) return button;
      // With a modifier held, the press becomes one click at the up: the down only moves.
      return modifiers.length > 0 ? [{ type: "move", point }] : [{ type: "down", point, button }];
    }
    case "up": {
      const button = buttonOf(event.button);
      if (isRefusal(button)) return button;
      const { click } = pressStrategy(button, modifiers);
      return click !== undefined ? [{ type: "click", point, button, count: 1, ...(click.length > 0 ? { keys: click } : {}) }] : [{ type: "up", point, button }];
    }
    default:
      return refusal("action", "a mouse event's action is move, down or up");
  }
}

function desktopAction(
  event: ViewerEvent,
  pressStrategy: (button: MouseButton, modifiers: Modifier[]) => { click: Modifier[] | undefined },
): Action[] | Refusal {
  switch (event.type) {
    case "mouse":
      return desktopMouse(event, pressStrategy);
    case "wheel":
      return wheelAction(event);
    case "key":
      return keyAction(event);
    case "text":
      return textAction(event);
    default:
      return refusal("type", `a desktop takes the mouse, the wheel, keys and text, not ${describeType(event)}`);
  }
}

/** Stateless: an up with a modifier held is one click with its keys; without, a plain up. */
const statelessStrategy = (_button: MouseButton, modifiers: Modifier[]) => ({ click: modifiers.length > 0 ? modifiers : undefined });

/** A viewer's event as input actions, or a Refusal in words for what this kind cannot take. Never throws. */
export function toAction(event: ViewerEvent, kind: MachineKind): Action[] | Refusal {
  if (typeof event !== "object" || event === null) return refusal("event", "an event is an object with a type");
  if (kind === "desktop") return desktopAction(event, statelessStrategy);
  if (kind === "android" || kind === "ios") return phoneAction(event);
  return refusal("kind", `a ${String(kind)} computer takes no input from the viewer`);
}

export interface ActionMapper {
  map(event: ViewerEvent): Action[] | Refusal;
  /** The ups for every button pressed and not released, then forgotten (on blur, or at the take-over's end). */
  release(): Action[];
}

/**
 * One mapper per take-over. A desktop's press decides the strategy for the press and its release
 * together: a press with a modifier is one click at the up, with the keys held at the down, even
 * if the modifier was let go; a plain press stays plain.
 */
export function createActionMapper(kind: MachineKind): ActionMapper {
  const pressed = new Map<MouseButton, { click: Modifier[] | undefined }>();
  const strategy = (button: MouseButton, modifiers: Modifier[]) => {
    const press = pressed.get(button);
    pressed.delete(button);
    return press ?? statelessStrategy(button, modifiers);
  };
  return {
    map(event) {
      if (kind !== "desktop" || typeof event !== "object" || event === null) return toAction(event, kind);
      const actions = desktopAction(event, strategy);
      if (!isRefusal(actions) && event.type === "mouse" && event.action === "down") {
        const modifiers = modifiersOf(event.modifiers) as Modifier[];
        pressed.set(buttonOf(event.button) as MouseButton, { click: modifiers.length > 0 ? modifiers : undefined });
      }
      return actions;
    },
    release() {
      const ups: Action[] = [...pressed.entries()].filter(([, press]) => press.click === undefined).map(([button]) => ({ type: "up", button }));
      pressed.clear();
      return ups;
    },
  };
}
