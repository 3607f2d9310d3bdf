// The Modal provider built from its options alone: a client from the token given, or a fake's.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { OptionError } from "../daemon/result.js";
import { loadModule } from "../load-module.js";
import { modalClient, modalServer } from "./client.js";
import { ModalProvider, type ModalProviderOptions } from "./provider.js";
import type { ModalSdk } from "./sdk.js";

export interface ModalOptions extends Omit<ModalProviderOptions, "sdk"> {
  /** The token, passed to ModalClient explicitly: MODAL_TOKEN_ID and MODAL_TOKEN_SECRET are never used. */
  tokenId?: string;
  tokenSecret?: string;
  /** Where the token goes (default https://api.modal.com:443). */
  serverUrl?: string;
  /** A client already made (a test's fake); then no token is taken. */
  sdk?: ModalSdk;
  /**
   * Tests only: the path of a module whose createSdk() makes the client (the Docker-backed fake),
   * loaded at the first call; then no token is taken. The Pulumi plugin refuses it unless its
   * test flag is on.
   */
  testSdk?: string;
}

/** The provider from its options alone; a missing app or token throws in words that never hold the token. */
export function create(options: ModalOptions): ModalProvider {
  // Where the token would go is refused first, whatever else the options lack.
  const server = modalServer(options?.serverUrl);
  if (typeof options?.app !== "string" || options.app.length === 0)
    throw new OptionError("app", "the Modal provider's app", " is required: the name of the Modal app its sandboxes are made in");
  const { tokenId, tokenSecret, serverUrl: _given, sdk, testSdk, ...rest } = options;
  // With daemonImage the daemon comes from that image, and nothing is uploaded.
  const { daemonPath, ...others } = rest;
  const provider = { ...others, ...(rest.daemonImage ? {} : daemonPath ? { daemonPath } : {}) };
  if (sdk) return new ModalProvider({ ...provider, sdk });
  if (testSdk !== undefined) {
    if (typeof testSdk !== "string" || !path.isAbsolute(testSdk))
      throw new TypeError("the Modal provider's testSdk is the absolute path of a module that exports createSdk()");
    // The fake is handed the token as Modal's client would be, to refuse a wrong one as Modal does.
    type TestSdk = { createSdk(credentials: { tokenId?: string; tokenSecret?: string }): ModalSdk };
    const load = async () => (await loadModule<TestSdk>(pathToFileURL(testSdk).href)).createSdk({ tokenId, tokenSecret });
    return new ModalProvider({ ...provider, sdk: load, target: `a fake of Modal (${testSdk})` });
  }
  const client = modalClient({
    tokenId: tokenId ?? "",
    tokenSecret: tokenSecret ?? "",
    ...(rest.environment ? { environment: rest.environment } : {}),
    serverUrl: server,
  });
  return new ModalProvider({ ...provider, sdk: client, target: server });
}

/** The drifted provider of the conformance suite: hello's version is held to another. */
export function driftedProvider(options: ModalOptions, version: string): ModalProvider {
  return create({ ...options, version });
}
