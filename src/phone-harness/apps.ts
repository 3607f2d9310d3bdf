// The phone's apps through adb: the packages (pm list packages) and the one in front (dumpsys
// activity activities), a launch of the app's launcher activity that clears its task (so the app
// named is in front, not what its task last held), a force-stop, and uiautomator's dump as the
// protocol's ui tree.
import { realpath } from "node:fs/promises";
import { sep } from "node:path";
import { CallError } from "../daemon/client.js";
import { type Group, MAX_UI_NODES, type UiNode } from "../daemon/protocol.js";
import { AdbError } from "./adb.js";
import { PHONE_GROUPS } from "./input.js";
import type { PhoneLink } from "./link.js";

/** A phone's groups: apps.install only when the provider has a folder to install from. */
export function phoneGroups(installs: boolean): Group[] {
  return [...PHONE_GROUPS, ...(installs ? (["apps.install"] as const) : [])];
}

/** A package name: dot-separated Java identifiers; nothing else reaches the phone's shell. */
const PACKAGE = /^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/;

function packageOf(id: string, method: string): string {
  if (!PACKAGE.test(id))
    throw new CallError("invalid", `${JSON.stringify(id.slice(0, 80))} is not an Android package name (such as com.android.settings)`, method);
  return id;
}

export async function listApps(link: PhoneLink, signal?: AbortSignal) {
  const packages = await link.shell("pm list packages", signal);
  const apps = [...packages.matchAll(/^package:(\S+)$/gm)].map((m) => ({ id: m[1]! }));
  return { apps, foreground: await foreground(link, signal) };
}

/** The package of the resumed activity, as dumpsys names it (topResumedActivity, ResumedActivity or mResumedActivity). */
export async function foreground(link: PhoneLink, signal?: AbortSignal): Promise<string | null> {
  const dump = await link.shell("dumpsys activity activities", signal);
  return /(?:topResumedActivity=|ResumedActivity: )ActivityRecord\{\S+ u\d+ ([\w.]+)\//.exec(dump)?.[1] ?? null;
}

export async function launchApp(link: PhoneLink, id: string, signal?: AbortSignal): Promise<Record<string, never>> {
  const pkg = packageOf(id, "apps.launch");
  const resolved = await link.shell(`cmd package resolve-activity --brief ${pkg}`, signal);
  const activity = resolved.trim().split("\n").at(-1)?.trim() ?? "";
  if (!activity.startsWith(`${pkg}/`)) throw new CallError("not_found", `the phone has no launcher activity for ${pkg}`, "apps.launch");
  const started = await link.shell(`am start -W --activity-clear-task -n ${activity}`, signal);
  if (!/^Status: ok$/m.test(started) || /^Error/m.test(started)) {
    throw new CallError(
      "invalid",
      `the phone did not start ${pkg}: ${
        started
          .trim()
          .split("\n")
          .filter((l) => l.startsWith("Error"))
          .join(" ") || "am start gave no status ok"
      }`,
      "apps.launch",
    );
  }
  return {};
}

/**
 * apps.install of an APK in the installFrom folder on this host (the phone harness takes no
 * files: adb streams it), canonical so no link leads out of the folder; the id is the package
 * the install added (null when it replaced one already there).
 */
export async function installApp(link: PhoneLink, from: string, path: string, signal?: AbortSignal): Promise<{ id: string | null }> {
  const [apk, root] = await Promise.all([realpath(path).catch(() => undefined), realpath(from).catch(() => from)]);
  if (!apk || !apk.startsWith(root + sep) || !apk.endsWith(".apk"))
    throw new CallError(
      "invalid",
      `${JSON.stringify(path.slice(0, 200))} is not an APK in the folder this provider installs from (installFrom)`,
      "apps.install",
    );
  const before = new Set((await listApps(link, signal)).apps.map((a) => a.id));
  const said = await link.install(apk, signal).catch((error: unknown) => {
    if (error instanceof AdbError && error.kind !== "aborted" && /Failure \[/.test(error.message))
      throw new CallError("invalid", `the phone did not install ${JSON.stringify(path)}: ${/Failure \[.*\]/.exec(error.message)![0]}`, "apps.install");
    throw error;
  });
  if (!/^Success$/m.test(said))
    throw new CallError("invalid", `the phone did not install ${JSON.stringify(path)}: adb said ${JSON.stringify(said.trim().slice(0, 200))}`, "apps.install");
  const added = (await listApps(link, signal)).apps.map((a) => a.id).filter((id) => !before.has(id));
  return { id: added.length === 1 ? added[0]! : null };
}

export async function terminateApp(link: PhoneLink, id: string, signal?: AbortSignal): Promise<Record<string, never>> {
  await link.shell(`am force-stop ${packageOf(id, "apps.terminate")}`, signal);
  return {};
}

const ATTRS = /([\w-]+)="([^"]*)"/g;
const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&#10;/g, "\n")
    .replace(/&amp;/g, "&");

/** uiautomator's dump as the protocol's tree: a node per element, at most MAX_UI_NODES. */
export async function uiTree(link: PhoneLink, signal?: AbortSignal) {
  const dump = await link.shell("uiautomator dump /dev/tty", signal);
  const start = dump.indexOf("<?xml");
  if (start < 0) throw new CallError("protocol", `uiautomator gave no hierarchy: ${dump.trim().split("\n")[0] ?? ""}`, "apps.ui_tree");
  return parseUiXml(dump.slice(start));
}

export function parseUiXml(xml: string): { root: UiNode; nodes: number; truncated: boolean } {
  const root: UiNode = { role: "hierarchy", bounds: { x: 0, y: 0, width: 0, height: 0 }, enabled: true, children: [] };
  const stack: UiNode[] = [root];
  let nodes = 1;
  let truncated = false;
  for (const tag of xml.matchAll(/<(\/?)node\b([^>]*?)(\/?)>/g)) {
    if (tag[1]) {
      if (stack.length > 1) stack.pop();
      continue;
    }
    if (nodes >= MAX_UI_NODES) {
      truncated = true;
      if (!tag[3]) stack.push({ ...root, children: [] }); // kept off the tree, so its close tag pops it
      continue;
    }
    const node = nodeOf(Object.fromEntries([...tag[2]!.matchAll(ATTRS)].map((m) => [m[1]!, unescape(m[2]!)])));
    nodes++;
    stack.at(-1)!.children.push(node);
    if (!tag[3]) stack.push(node);
  }
  const top = root.children[0];
  if (top) root.bounds = top.bounds;
  return { root, nodes, truncated };
}

function nodeOf(a: Record<string, string>): UiNode {
  const [l, t, r, b] = (/\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]/.exec(a.bounds ?? "") ?? []).slice(1).map(Number);
  return {
    role: a.class || "node",
    id: a["resource-id"] || null,
    text: a.text || null,
    label: a["content-desc"] || null,
    bounds: { x: l ?? 0, y: t ?? 0, width: Math.max(0, (r ?? 0) - (l ?? 0)), height: Math.max(0, (b ?? 0) - (t ?? 0)) },
    enabled: a.enabled !== "false",
    focused: a.focused === "true",
    selected: a.selected === "true",
    checked: a.checked === "true",
    scrollable: a.scrollable === "true",
    children: [],
  };
}
