// The conformance module of the Modal provider on the Docker-backed fake (test only):
// npm run conformance -- --provider ./dist/test/support/fake-modal-conformance.js
// Its containers carry the fake's run label AGENTRUN_MODAL_FAKE_RUN (one made up when unset), and
// the run's end removes them by it, so nothing is left.
import { randomBytes } from "node:crypto";
import { toolchainBase } from "../../src/package.js";
import { create } from "../../src/modal/create.js";
import type { ModalProvider } from "../../src/modal/provider.js";
import { CONFORMANCE_MAX_LIFETIME_MS } from "../../src/modal/conformance/module.js";
import { ModalDockerFake } from "./fake-modal-docker.js";

export const ENV = ["AGENTRUN_MODAL_FAKE_RUN"] as const;
const run = process.env.AGENTRUN_MODAL_FAKE_RUN || `conformance-${randomBytes(6).toString("hex")}`;
export const fake = new ModalDockerFake({ run });

export function createProvider(): ModalProvider {
  return create({ sdk: fake, app: "agentrun-conformance", maxLifetimeMs: CONFORMANCE_MAX_LIFETIME_MS });
}

export function createDriftedProvider(): ModalProvider {
  const provider = createProvider();
  return create({ sdk: fake, app: "agentrun-conformance", maxLifetimeMs: CONFORMANCE_MAX_LIFETIME_MS, version: `${provider.version}-drift` });
}

export function conformanceImage(): string | undefined {
  return toolchainBase();
}

export const conformanceNotes: string[] = [`Modal on the Docker-backed fake (run label ${run}): every sandbox a root container with every capability`];
