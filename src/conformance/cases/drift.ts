// drift: a computer whose daemon is not what the provider declares is never handed out, at
// create, connect or attach.
import { check, mustFail, shown, until } from "../assert.js";
import { conformanceCase, Skip } from "../case.js";

const NO_DRIFTED = "the run has no drifted provider (its module exports no createDriftedProvider), so the drift check cannot be shown";

export const driftCases = [
  conformanceCase("drift.drifted-daemon", "core", {}, async (t) => {
    if (!t.drifted) return new Skip(NO_DRIFTED);
    check(t.drifted.version !== t.provider.version, `the drifted provider holds its daemon to ${t.drifted.version}, the daemon's own version`);
    const made = await t.attempt(t.spec(), t.drifted);
    if (made.ok) {
      // Made: connect must refuse it for the drift (refused), not fail for another reason (a timeout, a daemon not reached).
      const connected = await t.drifted.connect(made.value, { signal: t.signal });
      if (connected.ok) {
        const said = connected.value.hello.version;
        await connected.value.close();
        check(false, `a computer whose daemon reports ${said}, not ${t.drifted.version}, was made and handed a connection`);
      }
      mustFail(connected, ["refused"], `connect to ${made.value.name}, whose daemon is not ${t.drifted.version},`);
      return;
    }
    // Refused at create, for the drift: and deleted, so nothing of the case is left.
    mustFail(made, ["refused"], `create by a provider that expects daemon ${t.drifted.version}`);
    const left = await until(
      async () => await t.provider.list(t.labels, { signal: t.signal }),
      (l) => l.ok && l.value.length === 0,
      30_000,
      t.signal,
    );
    check(left.ok, `list after the refused create failed: ${left.ok ? "" : left.error.message}`);
    check(left.value.length === 0, `the drifted computer was refused but left: ${shown(left.value.map((c) => c.ref.name))}`);
  }),

  conformanceCase("drift.attach-refuses", "core", {}, async (t) => {
    if (!t.drifted) return new Skip(NO_DRIFTED);
    const ref = await t.create();
    mustFail(
      await t.drifted.attach({ id: ref.id }, { signal: t.signal }),
      ["refused"],
      `attach of ${ref.name} by a provider that expects daemon ${t.drifted.version}`,
    );
    mustFail(await t.drifted.connect(ref, { signal: t.signal }), ["refused"], `connect to ${ref.name} by a provider that expects daemon ${t.drifted.version}`);
    const listed = await t.provider.list(t.labels, { signal: t.signal });
    check(listed.ok && listed.value.some((c) => c.ref.name === ref.name), "a refused attach deleted the computer it found; attach leaves it as it is");
  }),
];
