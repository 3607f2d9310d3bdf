// The simulated phone's shell: one command line in, its output out, in Android's words and
// formats (screencap's raw header, uiautomator's XML, am start -W's lines, dumpsys's records).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodePng } from "../../../src/phone-harness/png.js";
import { DENSITY, HEIGHT, type InstalledApp, PhoneModel, WIDTH } from "./model.js";
import { render } from "./render.js";
import { uiXml } from "./ui-xml.js";
import { viewTree } from "./view.js";

const KEYCODES: Record<string, number> = {
  HOME: 3,
  BACK: 4,
  DPAD_UP: 19,
  DPAD_DOWN: 20,
  DPAD_LEFT: 21,
  DPAD_RIGHT: 22,
  SPACE: 62,
  TAB: 61,
  ENTER: 66,
  DEL: 67,
  ESCAPE: 111,
  FORWARD_DEL: 112,
  APP_SWITCH: 187,
};
const SLOP = 16;

/** Splits a command line into words as sh does for quotes and backslashes. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? "") + line.slice(i + 1, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
    } else if (c === '"') {
      let j = i + 1;
      word ??= "";
      for (; j < line.length && line[j] !== '"'; j++) word += line[j] === "\\" && /["\\$`]/.test(line[j + 1] ?? "") ? line[++j] : line[j];
      i = j;
    } else if (c === "\\") word = (word ?? "") + (line[++i] ?? "");
    else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? "") + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

export interface ShellAnswer {
  out: Buffer | string;
  /** How long the command takes on the phone before it answers (input swipe's duration). */
  ms?: number;
  /** A command that reads its stdin first (a streamed install's APK): that many bytes, then its answer. */
  takes?: { bytes: number; then(input: Buffer): ShellAnswer };
}

export class PhoneShell {
  private down?: { from: [number, number]; at: [number, number] };
  private files = new Map<string, string>();
  constructor(readonly model: PhoneModel) {}

  run(line: string): ShellAnswer {
    const [cmd, ...args] = shellWords(line);
    switch (cmd) {
      case "screencap":
        return { out: this.screencap(args.includes("-p")) };
      case "input":
        return this.input(args);
      case "uiautomator":
        return { out: this.uiautomator(args) };
      case "cat":
        return { out: this.files.get(args[0] ?? "") ?? `cat: ${args[0]}: No such file or directory\n` };
      case "pm":
        return {
          out:
            args[0] === "list" && args[1] === "packages"
              ? this.model
                  .packages()
                  .filter((p) => p.includes(args[2] ?? ""))
                  .map((p) => `package:${p}\n`)
                  .join("")
              : "Unknown command\n",
        };
      case "cmd":
        return this.cmd(args);
      case "dumpsys":
        return { out: args.join(" ") === "activity activities" ? this.activities() : "" };
      case "am":
        return { out: this.am(args) };
      case "wm":
        return {
          out: args[0] === "size" ? `Physical size: ${WIDTH}x${HEIGHT}\n` : args[0] === "density" ? `Physical density: ${DENSITY}\n` : "Unknown command\n",
        };
      case "echo":
        return { out: `${args.join(" ")}\n` };
      case undefined:
        return { out: "" };
      default:
        return { out: `/system/bin/sh: ${cmd}: inaccessible or not found\n` };
    }
  }

  /** Android's raw screencap: width, height, format (1, RGBA_8888) and dataspace, then the pixels; -p a PNG. */
  private screencap(png: boolean): Buffer {
    const px = render(viewTree(this.model));
    if (png) return encodePng(WIDTH, HEIGHT, px);
    const head = Buffer.alloc(16);
    head.writeUInt32LE(WIDTH, 0);
    head.writeUInt32LE(HEIGHT, 4);
    head.writeUInt32LE(1, 8);
    return Buffer.concat([head, px]);
  }

  private input(args: string[]): ShellAnswer {
    const words = ["touchscreen", "touchpad", "keyboard"].includes(args[0] ?? "") ? args.slice(1) : args;
    const [what, ...rest] = words;
    const n = rest.map(Number);
    if (what === "tap" && n.length === 2) this.model.touch({ kind: "tap", x: n[0]!, y: n[1]! });
    else if (what === "swipe" && n.length >= 4) {
      const ms = n[4] ?? 300;
      const still = Math.hypot(n[2]! - n[0]!, n[3]! - n[1]!) < SLOP;
      this.model.touch(still ? { kind: ms >= 500 ? "long_press" : "tap", x: n[0]!, y: n[1]! } : { kind: "swipe", from: [n[0]!, n[1]!], to: [n[2]!, n[3]!] });
      return { out: "", ms };
    } else if (what === "motionevent" && rest.length === 3) this.motion(rest[0]!, [n[1]!, n[2]!]);
    else if (what === "keyevent") {
      for (const k of rest.filter((r) => !r.startsWith("--"))) {
        const code = /^\d+$/.test(k) ? Number(k) : KEYCODES[k.replace(/^KEYCODE_/, "")];
        if (code === undefined) return { out: `Error: Unknown keycode ${k}\n` };
        this.model.key(code);
      }
    } else if (what === "text" && rest.length === 1) this.model.text(rest[0]!.replace(/%s/g, " "));
    else return { out: `Error: Unknown command: ${what ?? ""}\n` };
    return { out: "" };
  }

  private motion(action: string, at: [number, number]): void {
    if (action === "DOWN") this.down = { from: at, at };
    else if (this.down && action === "MOVE") this.down.at = at;
    else if (this.down && action === "UP") {
      const { from } = this.down;
      this.down = undefined;
      this.model.touch(Math.hypot(at[0] - from[0], at[1] - from[1]) < SLOP ? { kind: "tap", x: from[0], y: from[1] } : { kind: "swipe", from, to: at });
    }
  }

  private uiautomator(args: string[]): string {
    if (args[0] !== "dump") return "Usage: uiautomator <subcommand> [options]\n";
    const path = args.find((a, i) => i > 0 && !a.startsWith("--")) ?? "/sdcard/window_dump.xml";
    const xml = uiXml(viewTree(this.model));
    if (path === "/dev/tty") return `${xml}UI hierchary dumped to: /dev/tty\n`;
    this.files.set(path, xml);
    return `UI hierchary dumped to: ${path}\n`;
  }

  private cmd(args: string[]): ShellAnswer {
    if (args[0] === "package" && args[1] === "install") return this.install(args.slice(2));
    return { out: this.resolve(args) };
  }

  /** `cmd package install -S <size>` (adb install's streamed install): the APK on stdin, read by its manifest. */
  private install(args: string[]): ShellAnswer {
    const size = Number(args[args.indexOf("-S") + 1]);
    if (args.indexOf("-S") < 0 || !Number.isInteger(size) || size <= 0) return { out: "Error: APK content must be streamed with -S <size>\n" };
    return {
      out: "",
      takes: {
        bytes: size,
        then: (apk) => {
          const app = readApk(apk);
          if (typeof app === "string") return { out: `Failure [INSTALL_PARSE_FAILED_NOT_APK: ${app}]\n` };
          this.model.install(app);
          return { out: "Success\n" };
        },
      },
    };
  }

  private resolve(args: string[]): string {
    const pkg = args.at(-1) ?? "";
    if (args[0] !== "package" || args[1] !== "resolve-activity") return "Unknown command\n";
    const activity = this.model.activityOf(pkg);
    if (!activity) return "No activity found\n";
    return args.includes("--brief") ? `priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n${activity}\n` : `${activity}\n`;
  }

  private activities(): string {
    const [pkg, cls] = this.model.frontActivity.split("/");
    const record = `ActivityRecord{7e1c2a u0 ${pkg}/${cls} t${pkg!.length}}`;
    return [
      "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
      "Display #0 (activities from top to bottom):",
      `  * Task{4f2a #${pkg!.length} type=standard A=10099:${pkg} U=0 visible=true mode=fullscreen}`,
      `    topResumedActivity=${record}`,
      `  ResumedActivity: ${record}`,
      "",
    ].join("\n");
  }

  /** am start [-W] [--activity-clear-task] -n <component>, and am force-stop <package>. */
  private am(args: string[]): string {
    if (args[0] === "force-stop") {
      this.model.forceStop(args[1] ?? "");
      return "";
    }
    if (args[0] !== "start") return "Unknown command\n";
    const component = args[args.indexOf("-n") + 1] ?? "";
    const pkg = component.split("/")[0]!;
    const starting = `Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] cmp=${component} }\n`;
    if (args.indexOf("-n") < 0 || this.model.activityOf(pkg) !== component)
      return `${starting}Error type 3\nError: Activity class {${component}} does not exist.\n`;
    const cold = this.model.front !== pkg;
    this.model.launch(pkg, args.includes("--activity-clear-task"));
    if (!args.includes("-W")) return starting;
    return `${starting}Status: ok\nLaunchState: ${cold ? "COLD" : "HOT"}\nActivity: ${component}\nTotalTime: 212\nWaitTime: 215\nComplete\n`;
  }
}

/** What the phone's package manager reads of an APK (its package, launcher activity and label), by Debian's aapt; else why it is not one. */
function readApk(apk: Buffer): InstalledApp | string {
  const dir = mkdtempSync(join(tmpdir(), "phone-sim-apk-"));
  try {
    writeFileSync(join(dir, "base.apk"), apk);
    const badging = execFileSync("aapt", ["dump", "badging", join(dir, "base.apk")], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 10_000 });
    const pkg = /^package: name='([^']+)'/m.exec(badging)?.[1];
    const activity = /^launchable-activity: name='([^']+)'/m.exec(badging)?.[1];
    if (!pkg || !activity) return "the APK has no package or no launcher activity";
    const label = /^application-label:'([^']*)'/m.exec(badging)?.[1] ?? pkg;
    return { pkg, activity: activity.startsWith(`${pkg}.`) ? activity.slice(pkg.length) : activity, label };
  } catch (error) {
    return `Failed to parse the APK: ${(error as { stderr?: string }).stderr?.trim().split("\n")[0] ?? (error as Error).message}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
