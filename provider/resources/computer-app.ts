// agentrun:index:ComputerApp, an app installed onto a computer and run: its files under
// ~/.agentrun/apps/<name>/ (the seed's /opt/agentrun/apps needs root, which no hardened computer
// has), its services started through process.start as the computer's user with orphans kept and
// AGENTRUN_APP_SETTINGS (its settings, one JSON value, checked against settingsSchema) in their
// environment, then its ready check waited on. read: each service running (process.list) and each
// file by sha256; a service that died, or a file changed, is drift, and `up` restarts and rewrites.
// delete stops its services (and all they started) and removes its folder. As the seed declares
// an app: supports (held against the computer's hello before anything is written), permissions
// (stored and shown), a skill (SKILL.md in its folder, given back as skillText), installSteps (run
// once, at create, in order; a failed install removes what it wrote) and launch (its command,
// started after its services; one that died is drift).
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { anyValue, archive, asset, fieldsOf, strings, wholeIn } from "../inputs.js";
import { posix } from "node:path";
import type { CheckFailure } from "@pulumi/pulumi/provider/index.js";
import { APP_MARK, APP_NAME, lastWords, removeApp, serviceStates, startServices, stopServices, waitReady, type Started } from "../../src/inside/app.js";
import { driftOf, readBack, syncFiles, type FileReadBack, type FileToLoad } from "../../src/inside/load.js";
import { runInstallSteps, type StepResult } from "../../src/inside/install.js";
import { installPython, VENV, WHEELS } from "../../src/inside/requirements.js";
import { raiseWindow, windowThere, type FoundWindow } from "../../src/inside/window.js";
import { DEFAULT_DISPLAY } from "../../src/daemon/desktop.js";
import { unsupported } from "../../src/inside/supports.js";
import { endMarked } from "../../src/inside/marks.js";
import { APP_ROOT, inHome } from "../../src/inside/paths.js";
import { runQuietly } from "../../src/inside/load.js";
import type { Session } from "../../src/inside/session.js";
import { fail, ok, orThrow, type Result } from "../../src/daemon/result.js";
import type { Context, Step, Stored } from "../resource.js";
import type { FieldChange, FieldDiff } from "../server.js";
import { resource, unknownFields } from "../resource.js";
import { UNKNOWN, hasUnknown, isObject, secretFieldsOf, unwrap, wrapDerived, type Props } from "../secrets.js";
import { isArchive, isAsset, plan, toLoad } from "./computer-files-assets.js";
import {
  checkInstallSteps,
  checkLaunch,
  checkReady,
  checkRequirements,
  checkServices,
  checkPermissions,
  checkSkill,
  checkSupports,
} from "./computer-app-declaration.js";
import { checkSettings } from "./computer-app-settings.js";
import { checkComputer, inComputer, WRITTEN } from "./computer-step.js";

const TYPE = "agentrun:index:ComputerApp";
const INSTALL_MS = 30 * 60_000;
const STEP_MS = 2 * 60_000;
// Outputs derived from inputs of other names, so a secret input keeps them secret.
const DERIVED = {
  folder: [],
  sources: ["files"],
  written: ["files", "skill"],
  running: [],
  launched: [],
  drift: ["files", "services", "launch"],
  address: ["port"],
  installed: ["installSteps"],
  pythonPackages: ["requirements"],
  window: ["launch"],
  skillText: ["skill"],
} as const;
/** The skill's file in the app's folder, and the most of it given back. */
const SKILL_FILE = "SKILL.md";
const MAX_SKILL_BYTES = 256 * 1024;

/** A ComputerApp's inputs as a stack gives them. */
const Given = z.strictObject({
  computer: z.string(),
  provider: z.string().optional(),
  name: z.string(),
  files: archive().optional(),
  services: z.record(z.string(), z.strictObject({ argv: z.array(z.string()), env: strings().optional() })).optional(),
  settings: z.record(z.string(), anyValue()).optional(),
  settingsSchema: z.record(z.string(), anyValue()).optional(),
  port: z.number().int().optional(),
  ready: z.strictObject({ port: z.number().int().optional(), command: z.array(z.string()).optional(), timeoutSeconds: z.number().int().optional() }).optional(),
  supports: z.strictObject({ os: z.array(z.string()).optional(), arch: z.array(z.string()).optional() }).optional(),
  permissions: z.array(z.string()).optional(),
  skill: asset().optional(),
  installSteps: z.array(z.strictObject({ name: z.string(), command: anyValue(), timeoutSeconds: z.number().int().optional() })).optional(),
  launch: z
    .strictObject({
      argv: z.array(z.string()),
      env: strings().optional(),
      window: z.strictObject({ title: z.string(), timeoutSeconds: z.number().int().optional() }).optional(),
    })
    .optional(),
  requirements: z.strictObject({ python: z.strictObject({ packages: z.array(z.string()), wheels: archive().optional() }) }).optional(),
});
const INPUTS = fieldsOf(Given);
type Given = z.infer<typeof Given>;
const TIMED = { timeoutSeconds: z.number().int() };
const ARGV = z.array(z.string());
/** What check gives: the provider and the services filled in, and each timeout (ready's one of port and command, as the library's Ready). */
const Checked = Given.required({ provider: true }).extend({
  services: z.record(z.string(), z.object({ argv: ARGV, env: strings().optional() })),
  ready: z.union([z.object({ port: z.number().int(), ...TIMED }), z.object({ command: ARGV, ...TIMED })]).optional(),
  installSteps: z.array(z.object({ name: z.string(), command: z.union([z.string(), ARGV]), ...TIMED })).optional(),
  launch: z.object({ argv: ARGV, env: strings().optional(), window: z.object({ title: z.string(), ...TIMED }).optional() }).optional(),
});
type Inputs = z.infer<typeof Checked>;
const STARTED = z.looseObject({ id: z.string(), pid: z.number() });
/** What the steps read of the stored state: the inputs, then what the install made. */
const Stored = Given.extend({
  sources: z.looseObject({ files: z.string().optional() }),
  written: WRITTEN,
  running: z.record(z.string(), STARTED),
  launched: STARTED,
  installed: z.array(z.looseObject({ name: z.string(), exitCode: z.number(), stdout: z.string(), stderr: z.string() })),
  pythonPackages: z.array(z.string()),
  window: z.looseObject({ id: z.number(), title: z.string() }),
  skillText: z.string(),
  drift: z.array(z.string()),
});
type State = Stored<z.infer<typeof Stored>>;
/** What an install made, as state keeps it. */
interface Installed {
  written: Written;
  running: Record<string, Started>;
  launched?: Started;
  installed?: StepResult[];
  /** The Python distributions installed into its venv, name==version. */
  pythonPackages?: string[];
  /** The launch's window, found by its title and raised. */
  window?: FoundWindow;
}
type Written = Record<string, FileReadBack>;

/** The app's address as code inside the computer reaches it: its loopback port, with no network. */
export const addressOf = (port: number) => `http://127.0.0.1:${port}`;

/** The app's folder, relative to the home. */
export const folderOf = (name: string) => posix.join(APP_ROOT, name);

async function check(ctx: Context, _olds: Props, news: Props) {
  const { plain, secretKeys } = unwrap(news);
  const failures: CheckFailure[] = unknownFields(plain, INPUTS, TYPE);
  const refuse = (property: string, reason: string) => void failures.push({ property, reason });
  const { computer, provider } = await checkComputer(ctx, plain, failures);
  const name = plain.name;
  if (name !== UNKNOWN && (typeof name !== "string" || !APP_NAME.test(name)))
    refuse("name", "name is required: the app's name, lowercase letters, digits, _ and - (at most 63), its folder's under ~/.agentrun/apps");
  if (plain.files !== undefined && plain.files !== UNKNOWN) {
    if (!isArchive(plain.files)) refuse("files", "files is an archive (fn::fileArchive of a folder, or fn::assetArchive), installed into the app's folder");
    else if (typeof name === "string" && APP_NAME.test(name) && !hasUnknown(plain.files)) {
      const planned = await plan({ ".": plain.files }, folderOf(name));
      if (!planned.ok) for (const r of planned.error.refusals ?? []) refuse("files", r.message);
    }
  }
  checkServices(plain.services, plain.launch, secretKeys.has("services"), refuse);
  checkSupports(plain.supports, refuse);
  checkPermissions(plain.permissions, refuse);
  checkSkill(plain.skill, refuse);
  const launch = checkLaunch(plain.launch, secretKeys.has("launch"), refuse);
  checkRequirements(plain.requirements, refuse);
  const wheels = isObject(plain.requirements) && isObject(plain.requirements.python) ? plain.requirements.python.wheels : undefined;
  if (typeof name === "string" && APP_NAME.test(name) && isArchive(wheels) && !hasUnknown(wheels)) {
    const planned = await plan({ [WHEELS]: wheels }, folderOf(name), undefined, () => "requirements.python.wheels");
    if (!planned.ok) for (const r of planned.error.refusals ?? []) refuse("requirements", r.message);
  }
  const installSteps = checkInstallSteps(plain.installSteps, refuse);
  if (typeof name === "string" && APP_NAME.test(name) && isAsset(plain.skill) && !hasUnknown(plain.skill) && !hasUnknown(plain.files)) {
    const planned = await plan({ ...(isArchive(plain.files) ? { ".": plain.files } : {}), [SKILL_FILE]: plain.skill }, folderOf(name));
    // The files' own refusals are said above; here the skill's, and a file of the app's on SKILL.md.
    if (!planned.ok) {
      for (const r of planned.error.refusals ?? []) if (r.field !== ".") refuse(r.field === SKILL_FILE ? "skill" : "files", r.message);
    } else {
      const skill = (await toLoad(planned.value.filter((p) => p.path === posix.join(folderOf(name), SKILL_FILE))))[0];
      if (skill && skill.size > MAX_SKILL_BYTES) refuse("skill", `skill holds ${skill.size} bytes, past the most given back, ${MAX_SKILL_BYTES} (256 KiB)`);
    }
  }
  const { settings, settingsSchema } = plain;
  if (settings !== undefined && settings !== UNKNOWN && !isObject(settings)) refuse("settings", "settings is a map of the app's settings");
  else if (settingsSchema !== undefined && settingsSchema !== UNKNOWN && !hasUnknown(settings)) {
    for (const r of checkSettings(settingsSchema, news.settings, settings)) refuse(r.field, r.message);
  }
  const port = plain.port;
  if (port !== undefined && port !== UNKNOWN && !wholeIn(port, 1, 65535))
    refuse("port", "port is the TCP port, 1 to 65535, the app answers on at the computer's loopback (its address is http://127.0.0.1:<port>)");
  // With a port and no ready check of its own, the app is ready once its port answers.
  const ready = checkReady(plain.ready ?? (port !== undefined ? { port } : undefined), refuse);
  if (failures.length) return { failures };
  const inputs: Props = { computer, provider, name, services: plain.services ?? {} };
  if (ready !== undefined) inputs.ready = ready;
  if (port !== undefined) inputs.port = port;
  if (installSteps !== undefined) inputs.installSteps = installSteps;
  if (launch !== undefined) inputs.launch = launch;
  for (const k of ["files", "settings", "settingsSchema", "supports", "permissions", "skill", "requirements"] as const)
    if (plain[k] !== undefined) inputs[k] = plain[k];
  // settings keep their own secret fields wrapped, as given; every other field wrapped whole.
  const wrapped = wrapDerived(inputs, new Set([...secretKeys].filter((k) => k !== "settings")));
  if (news.settings !== undefined) wrapped.settings = news.settings;
  return { inputs: wrapped };
}

/** The engine's hash of the files archive (diff is given hashes, never contents); "" when it has none. */
const sourceOf = (files: unknown) => (files === undefined ? "" : isObject(files) && typeof files.hash === "string" ? files.hash : "?");

async function filesOf(inputs: Inputs) {
  const wheels = inputs.requirements?.python.wheels;
  const files = {
    ...(inputs.files ? { ".": inputs.files } : {}),
    ...(inputs.skill ? { [SKILL_FILE]: inputs.skill } : {}),
    ...(wheels ? { [WHEELS]: wheels } : {}),
  };
  return toLoad(orThrow(await plan(files, folderOf(inputs.name))));
}

/** What a failed start or ready check says: each service's state and its last words on stderr. */
async function whyNotReady(session: Session, started: Record<string, Started>): Promise<string> {
  const states = await serviceStates(session, started);
  const parts = await Promise.all(
    Object.entries(started).map(async ([name, s]) => {
      const state = states.ok ? states.value[name] : "unknown";
      const words = await lastWords(session, s);
      return `${name === "(launch)" ? "the launch" : name} ${state}${words ? ` (${words})` : ""}`;
    }),
  );
  return parts.join("; ");
}

/** The computer is one the app supports, or a refusal in words, before anything of it is written (or, on an update, changed). */
function supported(session: Session, inputs: Inputs, installed: boolean): Result<undefined> {
  const why =
    unsupported(inputs.supports, session.hello) ??
    (inputs.launch?.window && session.hello.kind !== "desktop" ? `kind ${session.hello.kind}, not a desktop, where a launch's window shows` : undefined);
  if (!why) return ok();
  const left = installed ? "the app is left as it was" : "nothing of it was written";
  return fail("invalid", `${session.name}: the app ${inputs.name} does not run on this computer, which is ${why}; ${left}`);
}

/** The skill's text, from the files about to be written. */
async function skillOf(files: readonly FileToLoad[], name: string): Promise<string | undefined> {
  const file = files.find((f) => f.name === posix.join(folderOf(name), SKILL_FILE));
  if (!file) return undefined;
  const chunks: Uint8Array[] = [];
  for await (const chunk of file.bytes()) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Installs the files, runs the install steps (at create alone: firstTime), starts the services and
 * the launch, and waits for ready; on a failure, stops what it started.
 */
async function install(
  ctx: Context,
  session: Session,
  inputs: Inputs,
  remove: readonly string[],
  firstTime: boolean,
  signal: AbortSignal,
): Promise<Result<Installed & { skillText?: string }>> {
  const dir = inHome(session.home, folderOf(inputs.name));
  const made = await runQuietly(session, ["mkdir", "-p", "-m", "700", "--", dir], 60_000, "mkdir of the app's folder", { signal });
  if (!made.ok) return made;
  const files = await filesOf(inputs);
  const onBatch = (i: number, of: number, bytes: number) =>
    ctx.say?.(`installing ${inputs.name} into ${inputs.computer}: batch ${i} of ${of} (${(bytes / 2 ** 20).toFixed(1)} MiB)`);
  const written = await syncFiles(session, files, remove, { signal, onBatch });
  if (!written.ok) return written;
  let pythonPackages: string[] | undefined;
  if (firstTime && inputs.requirements) {
    const { packages, wheels } = inputs.requirements.python;
    ctx.say?.(`installing ${inputs.name}'s Python requirements into ${folderOf(inputs.name)}/${VENV} (${packages.join(", ")})`);
    const venv = await installPython(session, dir, { packages, wheels: wheels !== undefined }, { signal });
    if (!venv.ok) return fail(venv.error.code, `${venv.error.message}; what the install wrote in ${folderOf(inputs.name)} is removed`);
    pythonPackages = venv.value;
  }
  let installed: StepResult[] | undefined;
  if (firstTime && inputs.installSteps?.length) {
    ctx.say?.(`running ${inputs.name}'s ${inputs.installSteps.length} install step(s) in ${inputs.computer}`);
    const ran = await runInstallSteps(session, dir, inputs.installSteps, { signal });
    if (!ran.ok) return fail(ran.error.code, `${ran.error.message}; what the install wrote in ${folderOf(inputs.name)} is removed`);
    installed = ran.value;
  }
  const started = await startServices(session, dir, inputs.services, inputs.settings, { signal });
  if (!started.ok) return started;
  let launched: Started | undefined;
  if (inputs.launch) {
    const { argv, env, window } = inputs.launch;
    // On a desktop the launch is a client of its display, unless it names another.
    const launch = { argv, env: window ? { DISPLAY: DEFAULT_DISPLAY, ...env } : env, named: "the launch" };
    const l = await startServices(session, dir, { launch }, inputs.settings, { signal });
    if (!l.ok) {
      await stopServices(session, dir, started.value);
      return l;
    }
    launched = l.value.launch;
  }
  const all = { ...started.value, ...(launched ? { "(launch)": launched } : {}) };
  let window: FoundWindow | undefined;
  if (inputs.launch?.window) {
    ctx.say?.(
      `waiting for ${inputs.name}'s window ${JSON.stringify(inputs.launch.window.title)} in ${inputs.computer} (at most ${inputs.launch.window.timeoutSeconds} s)`,
    );
    const raised = await raiseWindow(session, inputs.launch.window, { signal });
    if (!raised.ok) {
      const why = await whyNotReady(session, all);
      await stopServices(session, dir, all);
      return fail(raised.error.code, `${raised.error.message}; its services and launch were stopped: ${why}`);
    }
    window = raised.value;
  }
  if (inputs.ready) {
    ctx.say?.(`waiting for ${inputs.name} to be ready in ${inputs.computer} (at most ${inputs.ready.timeoutSeconds} s)`);
    const ready = await waitReady(session, inputs.ready, { signal });
    if (!ready.ok) {
      const why = await whyNotReady(session, all);
      await stopServices(session, dir, all);
      return fail(ready.error.code, `${ready.error.message}; its services were stopped: ${why}`);
    }
  }
  const done: Installed & { skillText?: string } = { written: written.value, running: started.value };
  if (launched) done.launched = launched;
  if (installed) done.installed = installed;
  if (pythonPackages) done.pythonPackages = pythonPackages;
  if (window) done.window = window;
  const skillText = await skillOf(files, inputs.name);
  if (skillText !== undefined) done.skillText = skillText;
  return ok(done);
}

/** The inputs as given (their secrets still wrapped), then what was made, wrapped where it derives from a secret. */
/** The outputs: the inputs, what follows from them (folder, source, address), what was made and the drift. */
function outputsOf(raw: Props, inputs: Pick<Inputs, "name" | "files" | "port">, made: Partial<Installed> & { skillText?: string }, drift: string[]): Props {
  const secretKeys = new Set([...secretFieldsOf(raw)].filter((k) => k !== "settings"));
  const outs: Props = { folder: folderOf(inputs.name), sources: { files: sourceOf(inputs.files) }, ...made, drift };
  if (inputs.port !== undefined) outs.address = addressOf(inputs.port);
  return { ...raw, ...wrapDerived(outs, secretKeys, DERIVED) };
}

/** What state holds of an install, for the next step: the outputs less the inputs and what is worked out again. */
function installedOf({ old: o }: State): Installed & { skillText?: string } {
  const made: Installed & { skillText?: string } = { written: o.written ?? {}, running: o.running ?? {} };
  if (o.launched) made.launched = o.launched;
  if (o.installed) made.installed = o.installed;
  if (o.pythonPackages) made.pythonPackages = o.pythonPackages;
  if (o.window) made.window = o.window;
  if (typeof o.skillText === "string") made.skillText = o.skillText;
  return made;
}

/** The app stored state names: its name, without which no folder of it is known. */
function appOf({ old }: State): typeof old & { name: string } {
  const name = old.name;
  if (name === undefined) throw new Error("the ComputerApp's state names no app, so no folder of it is known");
  return { ...old, name };
}

async function create(ctx: Context, { inputs, raw }: Step<Inputs>) {
  if (inputs.permissions?.length) ctx.say?.(`${inputs.name} asks for: ${inputs.permissions.join("; ")}`);
  const done = orThrow(
    await inComputer(ctx, inputs, INSTALL_MS, async (session, signal) => {
      const fits = supported(session, inputs, false);
      if (!fits.ok) return fits;
      const dir = inHome(session.home, folderOf(inputs.name));
      // What a create that failed before left running from this folder is ended first.
      const ended = await endMarked(session, APP_MARK, dir, { signal });
      if (!ended.ok) return ended;
      const installed = await install(ctx, session, inputs, [], true, signal);
      if (!installed.ok) {
        // A service that started before another failed to carries the app's mark: it ends here.
        await endMarked(session, APP_MARK, dir);
        await removeApp(session, dir);
      }
      return installed;
    }),
  );
  return { id: `app-${randomBytes(8).toString("hex")}`, outs: outputsOf(raw, inputs, done, []) };
}

async function read(ctx: Context, id: string, stored: State) {
  const old = appOf(stored);
  const props = stored.raw;
  const made = installedOf(stored);
  const seen = await inComputer(ctx, old, STEP_MS, async (session, signal) => {
    const files = await readBack(session, Object.keys(made.written), { signal });
    if (!files.ok) return files;
    const states = await serviceStates(session, { ...made.running, ...(made.launched ? { "(launch)": made.launched } : {}) }, { signal });
    if (!states.ok) return states;
    const stopped = Object.entries(states.value)
      .filter(([, s]) => s !== "running")
      .map(([name, s]) => (name === "(launch)" ? `the launch is not running (${s})` : `the service ${name} is not running (${s})`));
    const title = old.launch?.window?.title;
    if (title !== undefined && made.window) {
      const there = await windowThere(session, title, { signal });
      if (!there.ok) return there;
      if (!there.value) stopped.push(`the launch's window titled ${JSON.stringify(title)} is gone`);
    }
    return ok([...stopped, ...driftOf(made.written, files.value)]);
  });
  if (!seen.ok && seen.error.code === "gone") return {}; // gone with its computer
  const drift = orThrow(seen);
  const raw = Object.fromEntries(INPUTS.filter((k) => props[k] !== undefined).map((k) => [k, props[k]]));
  return { id, props: outputsOf(raw, old, made, drift) };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Each changed field by name, as the plan's line shows it; drift for what changed inside (a file, a service, the launch). */
async function diff(_ctx: Context, _id: string, { old: o }: State, n: Props): Promise<FieldDiff> {
  const replaces = ["computer", "provider", "name"].filter((k) => n[k] !== UNKNOWN && o[k] !== n[k]);
  // Install steps and requirements go in once: new ones install the app again, the old one removed first (one folder).
  const reinstalls = ["installSteps", "requirements"].filter((k) => hasUnknown(n[k]) || !same(o[k], n[k]));
  replaces.push(...reinstalls);
  const changed: Record<string, FieldChange> = Object.fromEntries(replaces.map((k) => [k, "update-replace" as const]));
  const source = hasUnknown(n.files) ? "?" : sourceOf(n.files);
  if (source === "?" || source !== (o.sources?.files ?? "")) changed.files = "update";
  for (const k of ["services", "settings", "settingsSchema", "ready", "port", "supports", "permissions", "skill", "launch"])
    if (hasUnknown(n[k]) || !same(o[k], n[k])) changed[k] = "update";
  // A field still unknown (its computer made again, say) is known at up, which diffs it then.
  for (const [k, v] of Object.entries(n)) if (!(k in changed) && hasUnknown(v)) changed[k] = "update";
  if ((o.drift?.length ?? 0) > 0) changed.drift = "update";
  const changes = Object.keys(changed).length > 0;
  return { changes, replaces, deleteBeforeReplace: reinstalls.length > 0 && reinstalls.length === replaces.length, detailedDiff: changed };
}

/**
 * What an up makes, for a preview: the address and the files' source follow from the inputs, so a
 * command that takes the address is not planned again for an app healed in place. What is made
 * inside (files written, services, the window) is known once it is.
 */
async function preview(_ctx: Context, { inputs, raw }: Step<Inputs>) {
  return outputsOf(raw, inputs, {}, []);
}

/** Stops the services and the launch, makes the files as wanted, starts them again and waits for ready; install steps are not run again. */
async function update(ctx: Context, _id: string, olds: State, { inputs, raw: news }: Step<Inputs>) {
  const before = installedOf(olds);
  const done = orThrow(
    await inComputer(ctx, inputs, INSTALL_MS, async (session, signal) => {
      const fits = supported(session, inputs, true);
      if (!fits.ok) return fits;
      const dir = inHome(session.home, folderOf(inputs.name));
      const stopped = await stopServices(session, dir, { ...before.running, ...(before.launched ? { "(launch)": before.launched } : {}) }, { signal });
      if (!stopped.ok) return stopped;
      return install(ctx, session, inputs, Object.keys(before.written), false, signal);
    }),
  );
  // The install steps' and requirements' results stay those of the install that ran them.
  const kept = { ...(before.installed ? { installed: before.installed } : {}), ...(before.pythonPackages ? { pythonPackages: before.pythonPackages } : {}) };
  return { outs: outputsOf(news, inputs, { ...done, ...kept }, []) };
}

async function remove(ctx: Context, _id: string, stored: State) {
  const old = appOf(stored);
  const made = installedOf(stored);
  const removed = await inComputer(ctx, old, STEP_MS, async (session, signal) => {
    const dir = inHome(session.home, folderOf(old.name));
    const stopped = await stopServices(session, dir, { ...made.running, ...(made.launched ? { "(launch)": made.launched } : {}) }, { signal });
    if (!stopped.ok) return stopped;
    return removeApp(session, dir, { signal });
  });
  if (!removed.ok && removed.error.code === "gone") return;
  orThrow(removed);
}

export const computerApp = resource(TYPE, {
  given: Given,
  inputs: INPUTS,
  checked: Checked,
  stored: Stored,
  check,
  diff,
  create,
  read,
  update,
  preview,
  delete: remove,
});
