// input.actions on a phone, through adb's input command: the batch checked whole first (the
// shared rules, then what adb's input cannot do, refused in words), then each action in turn. A
// cancel stops at the action it is on, a wait included, and answers aborted there.
import { checkActions } from "../daemon/actions.js";
import type { Action, InputActionsResult } from "../daemon/protocol.js";
import type { PhoneLink } from "./link.js";
import { sleep } from "./screen.js";

export const PHONE_GROUPS = ["screen", "input.touch", "input.keys", "apps", "apps.ui_tree"] as const;
const LONG_PRESS_MS = 600;
const SWIPE_MS = 300;
const BUTTON_CODES = { back: 4, home: 3, app_switch: 187 } as const;
const F_CODES = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i + 1}`, 131 + i]));
/** Android's key codes for the key table's names. */
const KEY_CODES: Record<string, number> = {
  enter: 66,
  tab: 61,
  space: 62,
  backspace: 67,
  delete: 112,
  escape: 111,
  insert: 124,
  up: 19,
  down: 20,
  left: 21,
  right: 22,
  home: 122,
  end: 123,
  pageup: 92,
  pagedown: 93,
  shift: 59,
  ctrl: 113,
  alt: 57,
  super: 117,
  capslock: 115,
  ...F_CODES,
};

const quoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** What adb's input cannot do, refused before anything runs: pinch (one finger), hold, a combo, a text past ASCII. */
function refusal(action: Action, index: number): InputActionsResult | undefined {
  const no = (message: string, kind: "unsupported" | "invalid" = "unsupported") => ({
    done: 0,
    failed: { index, kind, message: `action ${index} (${action.type}): ${message}` },
  });
  if (action.type === "pinch") return no("a phone-harness phone takes one finger through adb's input, so it cannot pinch");
  if (action.type === "hold") return no("a phone-harness phone presses one key at a time through adb's input, so it cannot hold keys");
  if (action.type === "key" && action.keys.length > 1)
    return no("a phone-harness phone presses one key at a time through adb's input, so it cannot press a combination");
  if (action.type === "type" && !/^[\x20-\x7e\n]*$/.test(action.text)) return no("adb's input text types printable ASCII and line breaks only", "invalid");
  return undefined;
}

/** The shell commands of one action (a wait has none). */
export function commandsOf(action: Action): string[] {
  switch (action.type) {
    case "tap":
      return [`input tap ${action.point[0]} ${action.point[1]}`];
    case "long_press": {
      const [x, y] = action.point;
      return [`input swipe ${x} ${y} ${x} ${y} ${action.ms ?? LONG_PRESS_MS}`];
    }
    case "swipe":
      return [`input swipe ${action.from[0]} ${action.from[1]} ${action.to[0]} ${action.to[1]} ${action.ms ?? SWIPE_MS}`];
    case "button":
      return [`input keyevent ${BUTTON_CODES[action.button]}`];
    case "key":
      return [keyCommand(action.keys[0]!, action.repeat ?? 1)];
    case "type":
      return typeCommands(action.text);
    default:
      return [];
  }
}

function keyCommand(key: string, repeat: number): string {
  const code = KEY_CODES[key] ?? letterCode(key);
  if (code === undefined) return `input text ${quoted(key.repeat(repeat))}`;
  return `input keyevent ${Array(repeat).fill(code).join(" ")}`;
}

function letterCode(key: string): number | undefined {
  if (/^[a-z]$/.test(key)) return 29 + key.charCodeAt(0) - 97;
  if (/^[0-9]$/.test(key)) return 7 + Number(key);
  return undefined;
}

/** input text reads %s as a space: spaces become %s, a literal %s is split across two calls, a line break is the enter key. */
export function typeCommands(text: string): string[] {
  return text.split("\n").flatMap((line, i) => {
    const pieces = line.split("%s");
    const calls = pieces.map((piece, j) => `${j > 0 ? "s" : ""}${piece}${j < pieces.length - 1 ? "%" : ""}`).filter((call) => call.length > 0);
    return [...(i > 0 ? ["input keyevent 66"] : []), ...calls.map((call) => `input text ${quoted(call.replace(/ /g, "%s"))}`)];
  });
}

/** Runs a checked batch on the phone; the first failure or the cancel ends it there. */
export async function runActions(link: PhoneLink, actions: unknown, signal?: AbortSignal): Promise<InputActionsResult> {
  const checked = checkActions(actions, PHONE_GROUPS, { pixelScroll: true });
  if (checked) return checked;
  const batch = actions as Action[];
  for (const [index, action] of batch.entries()) {
    const refused = refusal(action, index);
    if (refused) return refused;
  }
  for (const [index, action] of batch.entries()) {
    if (signal?.aborted) return aborted(index);
    try {
      if (action.type === "wait") await sleep(action.ms, signal, "input.actions");
      for (const command of commandsOf(action)) {
        const out = await link.shell(command, signal);
        if (/^Error|Exception/m.test(out))
          return {
            done: index,
            failed: { index, kind: "invalid", message: `action ${index} (${action.type}): the phone's input refused it: ${out.trim().split("\n")[0]}` },
          };
      }
    } catch (error) {
      if (signal?.aborted) return aborted(index);
      return {
        done: index,
        failed: { index, kind: "not_found", message: `action ${index} (${action.type}): the phone's adb link failed: ${(error as Error).message}` },
      };
    }
  }
  return { done: batch.length, failed: null };
}

const aborted = (index: number): InputActionsResult => ({
  done: index,
  failed: { index, kind: "aborted", message: `input.actions was cancelled at action ${index}` },
});
