// The conformance module of the E2B provider on the Docker-backed fake (test only):
// npm run conformance -- --provider ./dist/test/support/fake-e2b-conformance.js
// Its containers carry the fake's run label AGENTRUN_E2B_FAKE_RUN (one made up when unset), and
// the run's end removes them by it, so nothing is left.
import { randomBytes } from "node:crypto";
import { CONFORMANCE_MAX_LIFETIME_MS } from "../../src/e2b/conformance/module.js";
import { create, driftedProvider } from "../../src/e2b/create.js";
import type { E2BProvider } from "../../src/e2b/provider.js";
import { E2BDockerFake } from "./fake-e2b-docker.js";

export const ENV = ["AGENTRUN_E2B_FAKE_RUN"] as const;
const run = process.env.AGENTRUN_E2B_FAKE_RUN || `conformance-${randomBytes(6).toString("hex")}`;
const apiKey = `e2b_fake_${randomBytes(8).toString("hex")}`;
export const fake = new E2BDockerFake({ run, apiKey });

export function createProvider(): E2BProvider {
  return create({ sdk: fake, apiKey, maxLifetimeMs: CONFORMANCE_MAX_LIFETIME_MS });
}

export function createDriftedProvider(): E2BProvider {
  return driftedProvider({ sdk: fake, apiKey, maxLifetimeMs: CONFORMANCE_MAX_LIFETIME_MS });
}

export function conformanceImage(): string {
  return "base";
}

export const conformanceNotes: string[] = [
  `E2B on the Docker-backed fake (run label ${run}): every sandbox a root container with every capability, a stand-in envd on 49983 its first process`,
];
