// The conformance module of the Modal provider at the wire (test only): the real ModalClient
// pointed at a loopback gRPC server of Modal's protocol, its sandboxes root Docker containers.
// npm run conformance -- --provider ./dist/test/support/fake-modal-wire-conformance.js
// Its containers carry the fake's run label AGENTRUN_MODAL_FAKE_RUN (one made up when unset), and
// the run's end removes them by it. The token is made up here, and the server checks it. With
// AGENTRUN_MODAL_WIRE_CALLS set, the RPCs the run called are written there as it exits.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { toolchainBase } from "../../src/package.js";
import { create } from "../../src/modal/create.js";
import type { ModalProvider } from "../../src/modal/provider.js";
import { CONFORMANCE_MAX_LIFETIME_MS } from "../../src/modal/conformance/module.js";
import { ModalWireServer, newToken } from "./modal-wire/server.js";

export const ENV = ["AGENTRUN_MODAL_FAKE_RUN", "AGENTRUN_MODAL_WIRE_CALLS"] as const;
const run = process.env.AGENTRUN_MODAL_FAKE_RUN || `conformance-${randomBytes(6).toString("hex")}`;
const token = newToken();
let started: Promise<ModalWireServer> | undefined;

/** The one server of this run, started at the first provider. */
export function server(): Promise<ModalWireServer> {
  if (!started) {
    started = new ModalWireServer({ run, token }).start();
    const callsFile = process.env.AGENTRUN_MODAL_WIRE_CALLS;
    if (callsFile) void started.then((s) => process.once("exit", () => writeFileSync(callsFile, `${JSON.stringify(s.calls)}\n`)));
  }
  return started;
}

async function provider(extra: { version?: string } = {}): Promise<ModalProvider> {
  const { serverUrl } = await server();
  return create({ ...token, serverUrl, app: "agentrun-conformance", maxLifetimeMs: CONFORMANCE_MAX_LIFETIME_MS, ...extra });
}

export const createProvider = (): Promise<ModalProvider> => provider();

export async function createDriftedProvider(): Promise<ModalProvider> {
  return provider({ version: `${(await provider()).version}-drift` });
}

export function conformanceImage(): string | undefined {
  return toolchainBase();
}

export const conformanceNotes: string[] = [
  `Modal at the wire: the real modal SDK against a loopback gRPC server of Modal's protocol (run label ${run}), every sandbox a root container with every capability`,
];
