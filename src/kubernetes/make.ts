// Kubernetes' hooks of the one create flow (src/contract/create.ts), each a step of the Pod client
// (pods.ts): the cluster's checks and the daemon's bytes before anything is made; the Pod made
// (pod.ts) with the owner's labels in the request, a shared proxy joined (proxies.ts) read and
// held to the computer before; the wait until its computer runs with the daemon in it; the
// bridge; and the Pod read back whole (inspect.ts) held to what was declared.
import type { Adoption } from "../contract/adopt.js";
import { abortedWords, type CreateHooks, failedThen } from "../contract/create.js";
import type { CheckedSpec, ComputerRef, ComputerSpec, Connection, CreateOptions } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { parseUser, userText } from "../contract/user.js";
import { restoreHome } from "../kits/image/snapshot-home.js";
import { HOME } from "./constants.js";
import { startComputerBrowser } from "../kits/browser/computer.js";
import { BROWSER_PROFILE } from "./browser.js";
import { inspectPod } from "./inspect.js";
import { snapshotRefOf } from "./snapshot-image.js";
import { computerPod } from "./pod.js";
import type { KubeMade, KubePods, PodInputs } from "./pods.js";
import type { KubeEgressProxies } from "./proxies.js";

/** The checked spec, with what prepare read of the cluster. */
export type KubeChecked = CheckedSpec & Partial<PodInputs>;

export function kubeHooks(
  sb: KubePods,
  provider: { check(spec: ComputerSpec): Result<CheckedSpec>; adoption(): Adoption; proxies: KubeEgressProxies },
  options: CreateOptions,
): CreateHooks<KubeChecked, KubeMade, Connection> {
  const { signal } = options;
  return {
    check: (spec) => provider.check(spec),
    prepare: async (checked) => {
      // A browser's "chromium" is the browser option's image.
      const inputs = await sb.prepare(sb.o.browserImage ?? checked.spec.image, checked.allow !== undefined, signal);
      return inputs.ok ? ok({ ...checked, ...inputs.value }) : inputs;
    },
    adoption: provider.adoption(),
    make: async (c) => {
      const user = parseUser(c.spec.user ?? sb.o.user);
      if (!user.ok) return user;
      const proxy = c.spec.egress;
      // A shared proxy joined: its ConfigMap and Secret read and held to the computer before anything is made (the sidecar reads them as they change).
      if (proxy !== undefined) {
        const joined = await provider.proxies.joinable(proxy, { user: userText(user.value), deadline: c.deadline, allow: c.checked.allow ?? [] }, signal);
        if (!joined.ok) return joined;
      }
      return sb.make(c.name, computerPod(c, sb.o, user.value), c.undo, signal);
    },
    ready: async (c, made) => {
      const ready = await sb.ready(made.name, c.checked.daemon!, { open: c.spec.network === "open", allow: c.checked.allow !== undefined }, signal);
      return ready.ok ? ok(made) : ready;
    },
    connect: (_c, made) => sb.openNew(made.name, signal),
    verify: async (c, made, connection): Promise<Result<ComputerRef>> => {
      // A browser: Chromium started through the daemon as the computer's user, its CDP answering, before the read-back holds it.
      if (sb.o.browserImage !== undefined) {
        const started = await startComputerBrowser(connection.client, c.spec.network, BROWSER_PROFILE, signal);
        if (!started.ok) return fail(started.error.code, `${c.name}'s browser: ${started.error.message}`);
      }
      const pod = await sb.get(made.name, signal);
      if (!pod.ok) return pod;
      // A fork: its snapshot's home put back into its own before it is read back.
      if (snapshotRefOf(c.spec.image) !== undefined) {
        const restored = await restoreHome(connection.client, HOME, { signal });
        if (!restored.ok) return fail(restored.error.code, `${c.name}'s home could not be put back from ${c.spec.image}: ${restored.error.message}`);
      }
      const read = await inspectPod(sb, pod.value, { connection, signal, proxies: provider.proxies });
      if (!read.ok) return read;
      return read.value.drift.length > 0
        ? fail("refused", `${c.name} is not what was declared, so it was not kept: ${read.value.drift.join("; ")}`)
        : ok(read.value.ref);
    },
    close: (connection) => connection.close(),
    failed: failedThen((name) => `the Pod ${name} was deleted`),
    aborted: (step, name) =>
      step === "make"
        ? "create was aborted before the API server was asked; nothing was made"
        : step === "verify"
          ? `create of ${name} was aborted after its checks`
          : abortedWords(step),
  };
}
