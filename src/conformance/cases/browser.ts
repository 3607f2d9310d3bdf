// browser: a computer of kind browser, driven over CDP. check past the cap (no browser), then on
// the run's one browser: attach by id and by labels, list, CDP Browser.getVersion and
// Runtime.evaluate on a data: page through the URL connect gives, the live view, and release last.
// No failure's words hold a URL: a CDP or live view URL is a secret.
import { redactWords } from "../../daemon/redact.js";
import { check, must, mustFail, shown } from "../assert.js";
import { conformanceCase, type CaseContext } from "../case.js";
import { evaluateLoaded, openCdp, openPage } from "../cdp.js";
import { onTheDisplay } from "../fixture.js";
import { CONFORMANCE_LABEL } from "../ledger.js";

const runLabel = (t: CaseContext) => ({ [CONFORMANCE_LABEL]: t.runId });

/** A CDP connection through the URL a connection of the case's own gives; the words of a failure hold no URL. */
export async function cdpOf(t: CaseContext) {
  const connection = await t.connect(t.computer);
  check(typeof connection.cdp?.url === "string" && connection.cdp.url.length > 0, "connect gave no cdp.url: a browser's connection carries its CDP target");
  check(!JSON.stringify(connection).includes(connection.cdp.url), "the connection's JSON holds the CDP URL: it is a secret, readable as cdp.url alone");
  try {
    return await openCdp(connection.cdp.url, { signal: t.signal });
  } catch (error) {
    throw new Error(`the CDP target of the URL connect gave: ${redactWords((error as Error).message)}`);
  }
}

export const browserCases = [
  conformanceCase(
    "browser.check-cap",
    "core",
    {},
    async (t) => {
      const spec = t.spec();
      must(t.provider.check(spec), "check of the suite's browser spec");
      const refused = mustFail(t.provider.check({ ...spec, lifetimeMs: t.capabilities.maxLifetimeMs + 1 }), ["invalid"], "check of a lifetime past the cap");
      check(refused.field === "lifetimeMs", `check refused a lifetime past the cap on ${refused.field ?? "no field"}, not lifetimeMs`);
      const image = mustFail(t.provider.check({ ...spec, image: "not-chromium" }), ["invalid"], "check of an image other than chromium");
      check(image.field === "image", `check refused another image on ${image.field ?? "no field"}, not image`);
    },
    { shared: false },
  ),

  conformanceCase("browser.attach-id", "core", { groups: ["cdp"] }, async (t) => {
    const ref = must(await t.provider.attach({ id: t.computer.id }, { signal: t.signal }), "attach by id");
    check(ref.id === t.computer.id && ref.name === t.computer.name, `attach by id found ${shown({ id: ref.id, name: ref.name })}, not the run's browser`);
    const network = t.spec().network;
    check(
      ref.spec?.kind === "browser" && JSON.stringify(ref.spec.network) === JSON.stringify(network),
      `attach read back ${shown(ref.spec)}: a browser with network ${shown(network)}`,
    );
  }),

  conformanceCase("browser.attach-labels", "core", { groups: ["cdp"] }, async (t) => {
    const ref = must(await t.provider.attach({ labels: runLabel(t) }, { signal: t.signal }), "attach by the run's label");
    check(ref.id === t.computer.id, `attach by labels found ${ref.name}, not the run's browser ${t.computer.name}`);
    mustFail(await t.provider.attach({ labels: {} }, { signal: t.signal }), ["invalid"], "attach by no label");
  }),

  conformanceCase("browser.list", "core", { groups: ["cdp"] }, async (t) => {
    const listed = must(await t.provider.list(runLabel(t), { signal: t.signal }), "list by the run's label");
    const ours = listed.filter((c) => c.ref.id === t.computer.id);
    check(ours.length === 1, `list by the run's label shows ${listed.length} browser(s), without the run's own: ${shown(listed.map((c) => c.ref.name))}`);
    check(
      ours[0]!.state === "running" && JSON.stringify(ours[0]!.network) === JSON.stringify(t.spec().network),
      `list shows the run's browser ${shown({ state: ours[0]!.state, network: ours[0]!.network })}, not running with network ${shown(t.spec().network)}`,
    );
    check(ours[0]!.labels[CONFORMANCE_LABEL] === t.runId, `list shows the run's browser with labels ${shown(ours[0]!.labels)}`);
    // A vendor's account holds browsers no provider made: there, a list takes a label.
    if (t.capabilities.daemon === "none") mustFail(await t.provider.list({}, { signal: t.signal }), ["invalid"], "list with no label");
  }),

  conformanceCase("browser.cdp-version", "core", { groups: ["cdp"] }, async (t) => {
    const cdp = await cdpOf(t);
    try {
      const version = await cdp.send("Browser.getVersion");
      check(/^(Headless)?Chrom(e|ium)\//.test(String(version.product)), `Browser.getVersion answered product ${shown(version.product)}`);
      check(typeof version.protocolVersion === "string", `Browser.getVersion answered no protocolVersion: ${shown(version)}`);
    } finally {
      cdp.close();
    }
  }),

  // A page of its own is what the browser shows while it is open: on the display, apart from the live view's case.
  conformanceCase("browser.cdp-evaluate", "core", { groups: ["cdp"] }, (t) =>
    onTheDisplay(t, async () => {
      const cdp = await cdpOf(t);
      try {
        const page = await openPage(cdp, "<title>agentrun conformance</title><p id=p>42</p>");
        try {
          const value = await evaluateLoaded(cdp, page.sessionId, "document.title + ':' + (1+1) + ':' + document.getElementById('p').textContent");
          check(value === "agentrun conformance:2:42", `Runtime.evaluate on the data: page answered ${shown(value)}, not "agentrun conformance:2:42"`);
        } finally {
          await cdp.send("Target.closeTarget", { targetId: page.targetId }).catch(() => undefined);
        }
      } finally {
        cdp.close();
      }
    }),
  ),

  conformanceCase("browser.live-view", "core", { groups: ["stream"], methods: ["stream"] }, async (t) => {
    const live = must(await t.provider.stream!(t.computer, { signal: t.signal }), "stream");
    check(/^https?:\/\//.test(live.url), "stream gave something other than an http(s) URL");
    let status: number;
    try {
      const answer = await fetch(live.url, { signal: AbortSignal.any([t.signal, AbortSignal.timeout(30_000)]) });
      status = answer.status;
      await answer.arrayBuffer();
    } catch (error) {
      throw new Error(`the live view could not be read: ${redactWords((error as Error).message)}`);
    }
    check(status === 200, `the live view answered HTTP ${status}, not 200`);
  }),

  conformanceCase(
    "browser.release",
    "core",
    { groups: ["cdp"] },
    async (t) => {
      // A vendor's browser has no stopped state; one that declares stop is stopped as any computer is.
      if (!t.capabilities.release.includes("stop"))
        mustFail(await t.provider.release(t.computer, "stop", { signal: t.signal }), ["unsupported"], "release stop of a browser");
      must(await t.provider.release(t.computer, "delete", { signal: t.signal }), "release delete");
      const connected = await t.provider.connect(t.computer, { signal: t.signal });
      mustFail(connected, ["gone", "not_found"], "connect after release");
      mustFail(await t.provider.attach({ id: t.computer.id }, { signal: t.signal }), ["not_found", "gone"], "attach by id after release");
      must(await t.provider.release(t.computer, "delete", { signal: t.signal }), "a second release of the same browser");
      const listed = must(await t.provider.list(runLabel(t), { signal: t.signal }), "list after release");
      check(!listed.some((c) => c.ref.id === t.computer.id), "the released browser is still listed");
    },
    { last: true },
  ),
];
