// Modal's hooks of the one create flow (src/contract/create.ts): the app and the daemon's bytes read
// before anything is made, sandboxes.create with the owner's tags in the request (its terminate
// pushed on the undo stack at once), the daemon's upload, and the sandbox's read-back (poll,
// tags, hello, the probe: sandboxes.ts's readSandbox, which read() shares) held to what was declared.
import { abortedWords, type CreateHooks, type Creation, failedThen } from "../contract/create.js";
import type { Adoption } from "../contract/adopt.js";
import type { CheckedSpec, ComputerRef, CreateOptions, ReadBack } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { parseSnapshotImage } from "../contract/state.js";
import { parseUser, userText } from "../contract/user.js";
import { bounded } from "./calls.js";
import { imageEntrypoint, imageLayer, modalCommands } from "./commands.js";
import { CPU_REQUEST_CORES, HOME, MEMORY_REQUEST_MIB } from "./constants.js";
import type { Daemon, ModalSandboxes } from "./sandboxes.js";
import type { ModalApp, ModalSandbox, SandboxCreateParams } from "./sdk.js";
import { type RecordedSpec, tagsOf } from "./tags.js";
import { upload } from "./upload.js";

/** The checked spec, with the app and (unless daemonImage) the daemon's bytes once prepare has read them. */
export interface ModalChecked extends CheckedSpec {
  app?: ModalApp;
  daemon?: Daemon;
}

/** What create made: the sandbox, the tags it was given, the spec they record, and the upload's argv. */
export interface ModalMade {
  sandbox: ModalSandbox;
  tags: Record<string, string>;
  recorded: RecordedSpec;
  uploadArgv: string[];
}

/** sandboxes.create with the owner's tags in the request; its terminate pushed at once. */
async function makeSandbox(sb: ModalSandboxes, c: Creation<ModalChecked>): Promise<Result<ModalMade>> {
  const { spec, name, signal } = c;
  const { t } = sb.o;
  const user = parseUser(spec.user ?? sb.o.user);
  if (!user.ok) return user;
  const userWords = userText(user.value);
  const workdir = spec.workdir ?? HOME;
  const lifetimeS = Math.ceil(spec.lifetimeMs / 1000);
  const recorded: RecordedSpec = {
    image: spec.image,
    user: userWords,
    network: "none",
    workdir,
    kind: "linux",
    ...(spec.cpus === undefined ? {} : { cpus: spec.cpus }),
    ...(spec.memoryMb === undefined ? {} : { memoryMb: spec.memoryMb }),
  };
  // The owner's tags are in the create request itself: no moment exists when the sandbox is untagged.
  const tags = tagsOf(name, c.deadline, recorded, c.labels);
  const sha256 = c.checked.daemon?.sha256 ?? "";
  const commands = modalCommands({ deadline: c.deadline, user: userWords, waitSeconds: (t.uploadMs + t.callMs) / 1000, sha256 });
  const params: SandboxCreateParams = {
    runtime: "vm",
    command: sb.o.daemonImage ? imageEntrypoint(c.deadline, userWords) : commands.entrypoint,
    timeoutMs: lifetimeS * 1000,
    workdir,
    blockNetwork: true,
    tags,
    ...(spec.cpus === undefined ? {} : { cpuLimit: spec.cpus / 2, cpu: Math.min(CPU_REQUEST_CORES, spec.cpus / 2) }),
    ...(spec.memoryMb === undefined ? {} : { memoryLimitMiB: spec.memoryMb, memoryMiB: Math.min(MEMORY_REQUEST_MIB, spec.memoryMb) }),
  };
  const made = await bounded(
    async () => {
      const sdk = await sb.sdk();
      // A fork starts from its snapshot's image (by its id), with the same layer on top.
      const fork = parseSnapshotImage(spec.image);
      const base = fork ? await sdk.images.fromId(fork.id) : sdk.images.fromRegistry(spec.image);
      const image = base.dockerfileCommands(imageLayer(workdir, sb.o.daemonImage));
      return sdk.sandboxes.create(c.checked.app!, image, params);
    },
    // A create given up on still ends what lands later.
    { what: `sandboxes.create of ${name}`, ms: t.createMs, signal, late: (sandbox) => void sb.end(sandbox, undefined) },
  );
  if (!made.ok) return fail(made.error.code, `${made.error.message}; nothing was left`);
  const sandbox = made.value;
  // Terminated whatever the caller's signal; the wait for it to finish takes that signal, as release's does.
  c.undo.push({
    what: sandbox.sandboxId,
    run: (s) => sb.end(sandbox, signal ? AbortSignal.any([signal, s]) : s),
    ms: t.callMs + t.releaseMs + 10_000,
    words: (failure) => failure,
  });
  return ok({ sandbox, tags, recorded, uploadArgv: commands.upload });
}

/** Modal's hooks for one create; check is the provider's, adoption its lookups for an owner's leftovers. */
export function modalHooks(
  sb: ModalSandboxes,
  provider: { check(spec: CheckedSpec["spec"]): Result<CheckedSpec>; adoption(): Adoption },
  options: CreateOptions,
): CreateHooks<ModalChecked, ModalMade, ReadBack & { ref: ComputerRef }> {
  const { signal } = options;
  const { t } = sb.o;
  let sandboxId = "the sandbox";
  return {
    check: (spec) => provider.check(spec),
    prepare: async (checked) => {
      const app = await sb.appOf(signal);
      if (!app.ok) return fail(app.error.code, `${app.error.message}; nothing was made`);
      if (sb.o.daemonImage) return ok({ ...checked, app: app.value });
      const daemon = await sb.daemonBytes();
      return daemon.ok ? ok({ ...checked, app: app.value, daemon: daemon.value }) : daemon;
    },
    adoption: provider.adoption(),
    make: async (c) => {
      const made = await makeSandbox(sb, c);
      if (made.ok) sandboxId = made.value.sandbox.sandboxId;
      return made;
    },
    ready: async (c, made) => {
      const daemon = c.checked.daemon;
      if (!daemon) return ok(made);
      const result = await upload(made.sandbox, {
        argv: made.uploadArgv,
        bytes: daemon.bytes,
        sha256: daemon.sha256,
        uploadMs: t.uploadMs,
        callMs: t.callMs,
        signal,
      });
      return result.ok ? ok(made) : fail(result.error.code, `${c.name}: ${result.error.message}`);
    },
    // Modal's read-back opens its own connection, says hello, runs the probe and closes it.
    connect: (c, made) => sb.readSandbox(made.sandbox, { name: c.name, tags: made.tags, spec: made.recorded }, signal, true),
    verify: async (c, _made, read) =>
      read.drift.length > 0 ? fail("refused", `${c.name} is not what was declared, so it was not kept: ${read.drift.join("; ")}`) : ok(read.ref),
    failed: failedThen(() => `${sandboxId} was terminated`),
    aborted: (step, name) =>
      step === "make"
        ? "create was aborted before Modal was asked; nothing was made"
        : step === "verify"
          ? `create of ${name} was aborted after its checks`
          : abortedWords(step),
  };
}
