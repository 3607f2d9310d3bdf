// provider: check, create, attach, list, network and release through ComputerProvider alone,
// each on a computer of the case's own; the network changes and the takeover by label.
import { releaseOlder } from "../../fleet/janitor.js";
import { EPOCH_LABEL, RUN_LABEL, runLabels } from "../../contract/labels.js";
import type { CaseContext } from "../case.js";
import type { ComputerRef, NetworkPolicy } from "../../contract/provider.js";
import { check, must, mustFail, shown, until } from "../assert.js";
import { conformanceCase, Skip } from "../case.js";

const MINUTE = 60_000;

async function listed(t: CaseContext, labels = t.labels) {
  return must(await t.provider.list(labels, { signal: t.signal }), `list of ${shown(labels)}`);
}

/** Asks for a network and back to none: refused with it unchanged, or applied and read back. */
async function switchNetwork(t: CaseContext, policy: NetworkPolicy) {
  if (t.spec().network !== "none")
    return new Skip(
      `the suite makes this provider's computers with network ${shown(t.spec().network)} (it declares no none), so there is no none to switch from`,
    );
  const ref = await t.create();
  const changed = await t.provider.network(ref, policy, { signal: t.signal });
  const now = must(await t.provider.network(ref, undefined, { signal: t.signal }), "network read back");
  if (!changed.ok) {
    check(now === "none", `a refused change to ${shown(policy)} left the network ${shown(now)}, not none`);
    return;
  }
  check(
    shown(changed.value) === shown(policy) && shown(now) === shown(policy),
    `a change to ${shown(policy)} answered ${shown(changed.value)} and reads back ${shown(now)}`,
  );
  const back = must(await t.provider.network(ref, "none", { signal: t.signal }), "the change back to none");
  const after = must(await t.provider.network(ref, undefined, { signal: t.signal }), "network read back");
  check(back === "none" && after === "none", `the change back to none answered ${shown(back)} and reads back ${shown(after)}`);
}

export const providerCases = [
  conformanceCase("provider.check-refuses", "core", {}, async (t) => {
    const good = t.provider.check(t.spec());
    check(!(good instanceof Promise), "check returned a promise: it answers with no vendor call");
    must(good, "check of the suite's own spec");
    const cap = t.capabilities.maxLifetimeMs;
    const past = mustFail(t.provider.check(t.spec({ lifetimeMs: cap + 1 })), ["invalid"], `check of lifetimeMs maxLifetimeMs + 1 (${cap + 1})`);
    check(past.field === "lifetimeMs", `the refusal of lifetimeMs ${cap + 1} names the field ${shown(past.field)}`);
    mustFail(t.provider.check(t.spec({ lifetimeMs: 0 })), ["invalid"], "check of lifetimeMs 0");
    mustFail(t.provider.check(t.spec({ lifetimeMs: 1.5 })), ["invalid"], "check of lifetimeMs 1.5");
    mustFail(t.provider.check(t.spec({ image: "" })), ["invalid"], "check of an empty image");
    mustFail(t.provider.check(t.spec({ network: "everywhere" as never })), ["invalid"], 'check of network "everywhere"');
    const nothing = await listed(t);
    check(nothing.length === 0, `checks made computers: ${nothing.map((c) => c.ref.name).join(", ")}`);
  }),

  conformanceCase("provider.create", "core", {}, async (t) => {
    const ref = await t.create();
    check(ref.provider === t.provider.id && ref.id.length > 0 && ref.name.length > 0, `create answered the ref ${shown(ref)}`);
    const connection = await t.connect(ref);
    check(connection.hello.version === t.provider.version, `the new computer's daemon reports ${connection.hello.version}, not ${t.provider.version}`);
  }),

  conformanceCase("provider.attach", "core", {}, async (t) => {
    const ref = await t.create();
    const attached = must(await t.provider.attach({ id: ref.id }, { signal: t.signal }), `attach of ${ref.name} by id`);
    check(attached.name === ref.name, `attach by id found ${attached.name}, not ${ref.name}`);
    const spec = attached.spec;
    check(spec !== undefined, "attach read no spec back");
    const asked = t.spec().network;
    check(shown(spec.network) === shown(asked), `attach reads the network back as ${shown(spec.network)}, not ${shown(asked)}`);
    check(spec.image === t.image, `attach reads the image back as ${shown(spec.image)}, not ${t.image}`);
    const [uid] = spec.user.split(":");
    check(/^\d+:\d+$/.test(spec.user) && uid !== "0", `attach reads the user back as ${shown(spec.user)}, not a non-root uid:gid`);
    const byLabels = must(await t.provider.attach({ labels: t.labels }, { signal: t.signal }), "attach by the case's labels");
    check(byLabels.name === ref.name, `attach by labels found ${byLabels.name}, not ${ref.name}`);
  }),

  conformanceCase("provider.list", "core", {}, async (t) => {
    const before = Date.now();
    const ref = await t.create();
    const found = await listed(t);
    check(
      found.length === 1 && found[0]!.ref.name === ref.name,
      `list of the case's labels gave ${shown(found.map((c) => c.ref.name))}, not ${ref.name} alone`,
    );
    const info = found[0]!;
    for (const [key, value] of Object.entries(t.labels))
      check(info.labels[key] === value, `list reads the label ${key} as ${shown(info.labels[key])}, not ${value}`);
    check(info.state === "running", `list reads a new computer as ${info.state}`);
    const asked = t.spec().network;
    check(shown(info.network) === shown(asked), `list reads the network as ${shown(info.network)}, not ${shown(asked)}`);
    const at = info.deadline?.getTime();
    const lifetime = t.spec().lifetimeMs;
    check(
      at !== undefined && at >= before + lifetime - MINUTE && at <= Date.now() + lifetime + MINUTE,
      `list reads the deadline as ${info.deadline?.toISOString() ?? "none"}, not about ${lifetime / MINUTE} minutes from create`,
    );
  }),

  conformanceCase(
    "provider.network-readback",
    "core",
    {},
    async (t) => {
      const read = must(await t.provider.network(t.computer, undefined, { signal: t.signal }), "network read back");
      const asked = t.spec().network;
      check(shown(read) === shown(asked), `a computer made with network ${shown(asked)} reads back ${shown(read)}`);
    },
    { shared: true },
  ),

  conformanceCase(
    "provider.network-undeclared",
    "core",
    { undeclaredNetwork: true },
    async (t) => {
      const wider: NetworkPolicy[] = [];
      if (!t.capabilities.network.includes("open")) wider.push("open");
      if (!t.capabilities.network.includes("allow")) wider.push({ allow: ["example.com"] });
      for (const policy of wider) {
        mustFail(
          await t.provider.network(t.computer, policy, { signal: t.signal }),
          ["unsupported", "invalid", "refused"],
          `a change to ${shown(policy)}, which the provider does not declare,`,
        );
        const now = must(await t.provider.network(t.computer, undefined, { signal: t.signal }), "network read back");
        const asked = t.spec().network;
        check(shown(now) === shown(asked), `after a refused change to ${shown(policy)} the network reads ${shown(now)}, not ${shown(asked)}`);
      }
    },
    { shared: true },
  ),

  conformanceCase("provider.stop", "core", {}, async (t) => {
    const ref = await t.create();
    const stopped = await t.provider.release(ref, "stop", { signal: t.signal });
    const state = async () => (await listed(t)).find((c) => c.ref.name === ref.name)?.state;
    if (!t.capabilities.release.includes("stop")) {
      const refusal = mustFail(stopped, ["unsupported"], "a stop, which the provider does not declare,");
      check(refusal.message.length > 0, "the refusal of stop has no words");
      check((await state()) === "running", "a refused stop did not leave the computer listed and running");
      return;
    }
    must(stopped, `release(${ref.name}, "stop")`);
    if (t.capabilities.stopDeletes) {
      const gone = await until(state, (s) => s === undefined, 30_000, t.signal);
      check(gone === undefined, `a stop that deletes (stopDeletes) left ${ref.name} listed as ${gone}`);
      mustFail(
        await t.provider.attach({ id: ref.id }, { signal: t.signal }),
        ["not_found", "gone", "refused"],
        `attach of ${ref.name} after a stop that deletes`,
      );
      return;
    }
    const seen = await until(state, (s) => s === "stopped", 30_000, t.signal);
    check(seen === "stopped", `a stopped computer is listed as ${seen ?? "gone"}, not stopped until it is deleted`);
    must(await t.provider.release(ref, "delete", { signal: t.signal }), `release(${ref.name}, "delete") after the stop`);
    const after = await until(state, (s) => s === undefined, 30_000, t.signal);
    check(after === undefined, `after the delete ${ref.name} is still listed as ${after}`);
  }),

  conformanceCase("provider.release-delete", "core", {}, async (t) => {
    const ref = await t.create();
    must(await t.provider.release(ref, "delete", { signal: t.signal }), `release(${ref.name}, "delete")`);
    const left = await until(
      () => listed(t),
      (l) => l.length === 0,
      30_000,
      t.signal,
    );
    check(left.length === 0, `after its delete, list still gives ${left.map((c) => c.ref.name).join(", ")}`);
    mustFail(await t.provider.attach({ id: ref.id }, { signal: t.signal }), ["not_found", "gone"], `attach of ${ref.name} after its delete`);
    must(await t.provider.release(ref, "delete", { signal: t.signal }), "a second delete of a computer already gone");
  }),

  conformanceCase("provider.network-switch", "full", { networks: ["open"] }, async (t) => switchNetwork(t, "open")),

  conformanceCase("provider.network-switch-allow", "full", { networks: ["allow"] }, async (t) => switchNetwork(t, { allow: ["example.com"] })),

  conformanceCase("provider.release-older", "full", {}, async (t) => {
    const run = `conformance-${t.runId}-older`;
    const otherRun = `conformance-${t.runId}-other`;
    const made = await Promise.all(
      [
        [run, 1],
        [run, 2],
        [run, 3],
        [otherRun, 1],
      ].map(([r, e]) => t.create({ labels: { ...t.labels, ...runLabels(r as string, e as number) } })),
    );
    const [one, two, three, other] = made as [ComputerRef, ComputerRef, ComputerRef, ComputerRef];
    const ofRun = await listed(t, { ...t.labels, [RUN_LABEL]: run });
    check(ofRun.length === 3, `the run's label lists ${ofRun.length} computers, not 3`);
    for (const info of ofRun) {
      const epoch = made.findIndex((r) => r.name === info.ref.name) + 1;
      check(
        info.labels[RUN_LABEL] === run && info.labels[EPOCH_LABEL] === String(epoch),
        `${info.ref.name} reads back the run and epoch labels as ${shown([info.labels[RUN_LABEL], info.labels[EPOCH_LABEL]])}, not ${shown([run, String(epoch)])}`,
      );
    }
    const released = must(await releaseOlder(t.provider, run, 3, { signal: t.signal }), "releaseOlder at epoch 3");
    check(
      shown([...released.released].sort()) === shown([one.name, two.name].sort()) && shown(released.kept) === shown([three.name]),
      `releaseOlder at epoch 3 released ${shown(released.released)} and kept ${shown(released.kept)}`,
    );
    const left = await listed(t, { ...t.labels, [RUN_LABEL]: run });
    check(
      shown(left.map((c) => c.ref.name)) === shown([three.name]),
      `after releaseOlder the run's label lists ${shown(left.map((c) => c.ref.name))}, not epoch 3 alone`,
    );
    for (const gone of [one, two])
      mustFail(await t.provider.attach({ id: gone.id }, { signal: t.signal }), ["not_found", "gone"], `attach of ${gone.name} after releaseOlder`);
    must(await t.provider.attach({ id: other.id }, { signal: t.signal }), `attach of the other run's ${other.name}`);
    must(await t.provider.attach({ id: three.id }, { signal: t.signal }), `attach of epoch 3's ${three.name}`);
    const fenced = mustFail(await releaseOlder(t.provider, run, 2, { signal: t.signal }), ["refused"], "releaseOlder at epoch 2 after epoch 3");
    check(/fenced/.test(fenced.message), `the refusal at epoch 2 does not say fenced: ${fenced.message}`);
    const still = await listed(t, { ...t.labels, [RUN_LABEL]: run });
    check(still.length === 1 && still[0]!.ref.name === three.name, "the fenced releaseOlder released something");
  }),
];
