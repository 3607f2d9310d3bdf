// The conformance module of the E2B provider at the wire (test only): the real e2b SDK pointed at a
// loopback server of E2B's REST API and of envd (test/support/e2b-wire/), its sandboxes the
// Docker-backed fake's root containers with the stand-in agent on 49983. Its computers are kind
// linux on the base template: the wire is the SDK's calls, the same for a desktop, whose X server
// the Docker-backed fake's desktop run proves (a desktop per case would start Xvfb in every one).
// npm run conformance -- --provider ./dist/test/support/fake-e2b-wire-conformance.js
// Its containers carry the fake's run label AGENTRUN_E2B_FAKE_RUN (one made up when unset), by
// which the test script removes them, the run's network and its state folder after. The key is made up here, and
// the server checks it. With AGENTRUN_E2B_WIRE_CALLS set, the calls the run made are written there
// as it exits.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { CONFORMANCE_MAX_LIFETIME_MS } from "../../src/e2b/conformance/module.js";
import { BASE_TEMPLATE } from "../../src/e2b/constants.js";
import { create, driftedProvider, type E2BOptions } from "../../src/e2b/create.js";
import type { E2BProvider } from "../../src/e2b/provider.js";
import { E2BWireServer, newApiKey } from "./e2b-wire/server.js";
import { standinBinary } from "./standin.js";

export const ENV = ["AGENTRUN_E2B_FAKE_RUN", "AGENTRUN_E2B_WIRE_CALLS"] as const;
const run = process.env.AGENTRUN_E2B_FAKE_RUN || `conformance-${randomBytes(6).toString("hex")}`;
const apiKey = newApiKey();
let started: Promise<E2BWireServer> | undefined;

/** The one server of this run, started at the first provider (the stand-in agent built first). */
export function server(): Promise<E2BWireServer> {
  if (!started) {
    started = standinBinary().then(() => new E2BWireServer({ run, apiKey }).start());
    const callsFile = process.env.AGENTRUN_E2B_WIRE_CALLS;
    if (callsFile) void started.then((s) => process.once("exit", () => writeFileSync(callsFile, `${JSON.stringify(s.calls)}\n`)));
  }
  return started;
}

async function options(): Promise<E2BOptions> {
  const { apiUrl, sandboxUrl } = await server();
  return { apiKey, apiUrl, sandboxUrl, kind: "linux", maxLifetimeMs: CONFORMANCE_MAX_LIFETIME_MS };
}

export const createProvider = async (): Promise<E2BProvider> => create(await options());

export const createDriftedProvider = async (): Promise<E2BProvider> => driftedProvider(await options());

export function conformanceImage(): string {
  return BASE_TEMPLATE;
}

export const conformanceNotes: string[] = [
  `E2B at the wire: the real e2b SDK against a loopback server of E2B's API and envd (run label ${run}), every sandbox a root container with every capability, a stand-in agent on 49983 its first process`,
];
