// The conformance module of the E2B provider on the Docker-backed fake (test only):
// npm run conformance -- --provider ./dist/test/support/fake-e2b-conformance.js [--kind desktop|sandbox]
// Its containers carry the fake's run label AGENTRUN_E2B_FAKE_RUN (one made up when unset), and
// the run's end removes them by it, so nothing is left. A desktop run (E2B's default, as with no
// --kind) gives the fake a desktop template whose sandboxes run the image Docker's desktops run
// (Xvfb on the set-up's base); --kind sandbox runs kind linux on the base template.
import { randomBytes } from "node:crypto";
import type { RunShape } from "../../src/conformance/kind.js";
import { create as dockerProvider } from "../../src/docker/create.js";
import { CONFORMANCE_MAX_LIFETIME_MS, conformanceFixture as packageFixture, isDesktopRun } from "../../src/e2b/conformance/module.js";
import { BASE_TEMPLATE, DESKTOP_TEMPLATE } from "../../src/e2b/constants.js";
import { create, driftedProvider } from "../../src/e2b/create.js";
import { packagedDaemon } from "../../src/e2b/options.js";
import type { E2BProvider } from "../../src/e2b/provider.js";
import { E2BDockerFake } from "./fake-e2b-docker.js";

export const ENV = ["AGENTRUN_E2B_FAKE_RUN"] as const;
const run = process.env.AGENTRUN_E2B_FAKE_RUN || `conformance-${randomBytes(6).toString("hex")}`;
const apiKey = `e2b_fake_${randomBytes(8).toString("hex")}`;
const templates: Record<string, string> = {};
export const fake = new E2BDockerFake({ run, apiKey, templates });

/** The run's kind; a desktop's template, Docker's desktop image, made ready once. */
async function withDesktop(run: RunShape): Promise<{ kind: "desktop" | "linux" }> {
  if (!isDesktopRun(run)) return { kind: "linux" };
  if (!templates[DESKTOP_TEMPLATE]) {
    const image = await dockerProvider({ daemonPath: packagedDaemon(), desktop: {} }).image();
    if (!image.ok) throw new Error(`the desktop template's image: ${image.error.message}`);
    templates[DESKTOP_TEMPLATE] = image.value;
  }
  return { kind: "desktop" };
}

export async function createProvider(_settings?: undefined, run: RunShape = {}): Promise<E2BProvider> {
  return create({ sdk: fake, apiKey, maxLifetimeMs: CONFORMANCE_MAX_LIFETIME_MS, ...(await withDesktop(run)) });
}

export async function createDriftedProvider(_settings?: undefined, run: RunShape = {}): Promise<E2BProvider> {
  return driftedProvider({ sdk: fake, apiKey, maxLifetimeMs: CONFORMANCE_MAX_LIFETIME_MS, ...(await withDesktop(run)) });
}

export function conformanceImage(run: RunShape = {}): string {
  return isDesktopRun(run) ? DESKTOP_TEMPLATE : BASE_TEMPLATE;
}

export function conformanceFixture(run: RunShape = {}): string | undefined {
  return packageFixture(run, {});
}

export const conformanceNotes: string[] = [
  `E2B on the Docker-backed fake (run label ${run}): every sandbox a root container with every capability, a stand-in envd on 49983 its first process; the desktop template runs Docker's desktop image`,
];
