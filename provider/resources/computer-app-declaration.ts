// What a ComputerApp declares, checked: its services and ready check, and as the seed gives an
// app, supports (the platforms it runs on), permissions (stored and shown, not enforced), a skill
// (a file for the agent), installSteps (run once, in order), requirements and launch (its command
// and window). Every refusal in words; the values as the later steps take them.
import { APP_MARK, MAX_READY_SECONDS, SETTINGS_VAR } from "../../src/inside/app.js";
import { MAX_RUN_SECONDS } from "../../src/inside/run.js";
import { MAX_WINDOW_SECONDS } from "../../src/inside/window.js";
import { REQUIREMENT } from "../../src/inside/requirements.js";
import { isArchive, isAsset } from "./computer-files-assets.js";
import { ENV_NAME } from "./computer-step.js";
import { UNKNOWN, isObject } from "../secrets.js";
import { wholeIn } from "../inputs.js";

type Refuse = (property: string, reason: string) => void;
const isArgv = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === "string" || a === UNKNOWN);
const isWords = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every((a) => (typeof a === "string" && a.trim() !== "") || a === UNKNOWN);

/** The operating systems and architectures a daemon's hello names. */
export const KNOWN_OS = ["linux", "android"] as const;
export const KNOWN_ARCH = ["amd64", "arm64"] as const;
const DEFAULT_STEP_SECONDS = 300;
const DEFAULT_WINDOW_SECONDS = 30;
const STEP_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,62}$/;
const SERVICE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
const DEFAULT_READY_SECONDS = 60;

export function checkSupports(supports: unknown, refuse: Refuse): void {
  if (supports === undefined || supports === UNKNOWN) return;
  const words = `supports is {os, arch}: lists of the platforms the app runs on (os of ${KNOWN_OS.join(", ")}; arch of ${KNOWN_ARCH.join(", ")})`;
  if (!isObject(supports)) return refuse("supports", words);
  const unknown = Object.keys(supports).filter((k) => k !== "os" && k !== "arch");
  if (unknown.length) refuse("supports", `supports has no field ${unknown.join(", ")}; it takes os and arch`);
  for (const [field, known] of [
    ["os", KNOWN_OS],
    ["arch", KNOWN_ARCH],
  ] as const) {
    const list = supports[field];
    if (list === undefined || list === UNKNOWN) continue;
    if (!Array.isArray(list) || list.length === 0) refuse("supports", `supports.${field} is a non-empty list of ${known.join(", ")}`);
    else
      for (const v of list)
        if (v !== UNKNOWN && !known.some((k) => k === v))
          refuse("supports", `supports.${field} names ${JSON.stringify(v)}, which no computer's daemon says it is: give ${known.join(", ")}`);
  }
}

export function checkPermissions(permissions: unknown, refuse: Refuse): void {
  if (permissions === undefined || permissions === UNKNOWN) return;
  if (!isWords(permissions)) refuse("permissions", "permissions is a list of what the app asks for, in words (stored and shown, not enforced)");
}

export function checkSkill(skill: unknown, refuse: Refuse): void {
  if (skill === undefined || skill === UNKNOWN) return;
  if (!isAsset(skill)) refuse("skill", "skill is a file for the agent: an asset (fn::fileAsset of a local file, or fn::stringAsset), installed as SKILL.md");
}

/** The steps with their timeouts filled in, or undefined (refused into failures). */
export function checkInstallSteps(steps: unknown, refuse: Refuse): unknown {
  if (steps === undefined || steps === UNKNOWN) return steps;
  if (!Array.isArray(steps))
    return refuse(
      "installSteps",
      "installSteps is a list of {name, command, timeoutSeconds}, run once, in order, from the app's folder as the computer's user",
    );
  const names = new Set<unknown>();
  return steps.map((step, i) => {
    const at = `installSteps[${i}]`;
    if (!isObject(step)) return refuse("installSteps", `${at} is {name, command, timeoutSeconds}`);
    const unknown = Object.keys(step).filter((k) => !["name", "command", "timeoutSeconds"].includes(k));
    if (unknown.length) refuse("installSteps", `${at} has no field ${unknown.join(", ")}; it takes name, command and timeoutSeconds`);
    if (step.name !== UNKNOWN && (typeof step.name !== "string" || !STEP_NAME.test(step.name)))
      refuse("installSteps", `${at}.name is required: letters, digits, spaces, _, . and - (at most 63), naming the step in its result`);
    else if (names.has(step.name)) refuse("installSteps", `${at}.name ${JSON.stringify(step.name)} names another step too`);
    names.add(step.name);
    const c = step.command;
    if (c !== UNKNOWN && !(typeof c === "string" && c.trim() !== "") && !isArgv(c))
      refuse("installSteps", `${at}.command is required: a script (run by sh from the app's folder) or an argv, a list of strings`);
    const secs = step.timeoutSeconds ?? DEFAULT_STEP_SECONDS;
    if (secs !== UNKNOWN && !wholeIn(secs, 1, MAX_RUN_SECONDS)) refuse("installSteps", `${at}.timeoutSeconds is whole seconds from 1 to ${MAX_RUN_SECONDS}`);
    return { ...step, timeoutSeconds: secs };
  });
}

/** The launch with its window's timeout filled in, or undefined (refused into failures). */
export function checkLaunch(launch: unknown, secret: boolean, refuse: Refuse): unknown {
  if (launch === undefined || launch === UNKNOWN) return launch;
  if (!isObject(launch) || !isArgv(launch.argv))
    return refuse("launch", "launch is {argv, env, window}: the app's command, started as the computer's user from its folder");
  const unknown = Object.keys(launch).filter((k) => !["argv", "env", "window"].includes(k));
  if (unknown.length) refuse("launch", `launch has no field ${unknown.join(", ")}; it takes argv, env and window`);
  checkEnv(launch.env, "launch.env", "launch", secret, refuse);
  const window = launch.window;
  if (window === undefined || window === UNKNOWN) return launch;
  if (!isObject(window) || (window.title !== UNKNOWN && (typeof window.title !== "string" || window.title.trim() === "")))
    return refuse("launch", "launch.window is {title, timeoutSeconds}: a part of the title of the window the launch shows on a desktop, found and raised");
  const extra = Object.keys(window).filter((k) => k !== "title" && k !== "timeoutSeconds");
  if (extra.length) refuse("launch", `launch.window has no field ${extra.join(", ")}; it takes title and timeoutSeconds`);
  const secs = window.timeoutSeconds ?? DEFAULT_WINDOW_SECONDS;
  if (secs !== UNKNOWN && !wholeIn(secs, 1, MAX_WINDOW_SECONDS))
    refuse("launch", `launch.window.timeoutSeconds is whole seconds from 1 to ${MAX_WINDOW_SECONDS}`);
  return { ...launch, window: { ...window, timeoutSeconds: secs } };
}

/** A service's or the launch's env: variable names to text, never the app's own variables. */
export function checkEnv(env: unknown, at: string, property: string, secret: boolean, refuse: Refuse): void {
  if (env === undefined || env === UNKNOWN) return;
  if (!isObject(env)) return refuse(property, `${at} is a map of variable names to text`);
  for (const [k, v] of Object.entries(env)) {
    if (!ENV_NAME.test(k)) refuse(property, secret ? `${at} (a secret) is refused` : `${at}'s name ${JSON.stringify(k)} is not a variable name`);
    else if (k === APP_MARK || k === SETTINGS_VAR) refuse(property, `${at}'s ${k} is the app's own: name another`);
    if (v !== UNKNOWN && typeof v !== "string") refuse(property, `${at}'s ${k} must be text`);
  }
}

export function checkRequirements(requirements: unknown, refuse: Refuse): void {
  if (requirements === undefined || requirements === UNKNOWN) return;
  const words = "requirements is {python: {packages, wheels}}: a Python app's requirements, installed once into a venv in its folder (.venv)";
  if (!isObject(requirements)) return refuse("requirements", words);
  const unknown = Object.keys(requirements).filter((k) => k !== "python");
  if (unknown.length) refuse("requirements", `requirements has no field ${unknown.join(", ")}; it takes python`);
  const python = requirements.python;
  if (python === UNKNOWN) return;
  if (!isObject(python)) return refuse("requirements", words);
  const extra = Object.keys(python).filter((k) => k !== "packages" && k !== "wheels");
  if (extra.length) refuse("requirements", `requirements.python has no field ${extra.join(", ")}; it takes packages and wheels`);
  const packages = python.packages;
  if (packages !== UNKNOWN) {
    if (!Array.isArray(packages) || packages.length === 0)
      refuse("requirements", "requirements.python.packages is a non-empty list of pip requirements (name, name==1.0)");
    else
      for (const p of packages)
        if (p !== UNKNOWN && (typeof p !== "string" || !REQUIREMENT.test(p)))
          refuse(
            "requirements",
            `requirements.python.packages' ${JSON.stringify(String(p).slice(0, 80))} is not a requirement by name and version: an option, a path or a URL is refused (send wheels instead)`,
          );
  }
  if (python.wheels !== undefined && python.wheels !== UNKNOWN && !isArchive(python.wheels))
    refuse("requirements", "requirements.python.wheels is a local folder of wheels (fn::fileArchive), sent with the app and installed from offline");
}

export function checkServices(services: unknown, launch: unknown, secret: boolean, refuse: (p: string, r: string) => void): void {
  if (services === UNKNOWN || (services === undefined && launch !== undefined)) return;
  if (!isObject(services) || (Object.keys(services).length === 0 && launch === undefined))
    return refuse(
      "services",
      "services or launch is required: services, a map of service names to {argv, env}, each started as the computer's user from the app's folder; launch, the app's command",
    );
  for (const [name, s] of Object.entries(services)) {
    if (!SERVICE.test(name)) refuse("services", `the service name ${JSON.stringify(name.slice(0, 64))} is not letters, digits, _, . and - (at most 63)`);
    if (!isObject(s) || !isArgv(s.argv)) {
      refuse("services", `services.${name} needs argv: the program and its arguments, a list of strings`);
      continue;
    }
    const unknown = Object.keys(s).filter((k) => k !== "argv" && k !== "env");
    if (unknown.length) refuse("services", `services.${name} has no field ${unknown.join(", ")}; it takes argv and env`);
    checkEnv(s.env, `services.${name}.env`, "services", secret, refuse);
  }
}

/** ready with its timeout filled in, or undefined (refused into failures). */
export function checkReady(ready: unknown, refuse: (p: string, r: string) => void): unknown {
  if (ready === undefined || ready === UNKNOWN) return ready;
  if (!isObject(ready))
    return refuse(
      "ready",
      "ready is {port} (a TCP port on the computer's loopback) or {command} (an argv that exits 0 when the app is up), with timeoutSeconds",
    );
  const unknown = Object.keys(ready).filter((k) => !["port", "command", "timeoutSeconds"].includes(k));
  if (unknown.length) refuse("ready", `ready has no field ${unknown.join(", ")}; it takes port or command, and timeoutSeconds`);
  if ((ready.port === undefined) === (ready.command === undefined)) refuse("ready", "ready takes one of port and command");
  if (ready.port !== undefined && ready.port !== UNKNOWN && !wholeIn(ready.port, 1, 65535))
    refuse("ready", "ready.port is a TCP port, 1 to 65535, on the computer's loopback");
  if (ready.command !== undefined && !isArgv(ready.command)) refuse("ready", "ready.command is an argv, a list of strings, that exits 0 once the app is up");
  const secs = ready.timeoutSeconds ?? DEFAULT_READY_SECONDS;
  if (secs !== UNKNOWN && !wholeIn(secs, 1, MAX_READY_SECONDS)) refuse("ready", `ready.timeoutSeconds is whole seconds from 1 to ${MAX_READY_SECONDS}`);
  return { ...ready, timeoutSeconds: secs };
}
