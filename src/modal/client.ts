// The one place a real ModalClient is built: from a tokenId and tokenSecret given, and from
// nothing else. The client takes no server, and reads MODAL_SERVER_URL (else a profile's) once
// as it is constructed, so the construction sets that variable to the server chosen here and
// puts it back: no MODAL_PROFILE, MODAL_CONFIG_PATH or ~/.modal.toml can send the key elsewhere.
// The same construction reads more of its profile from MODAL_* variables (the environment, the
// sandbox backend, the image builder, the throttle wait: seen at the wire, where MODAL_SANDBOX_V2=0
// turned create into another RPC): each is hidden while the client is built, so none applies.
import { createRequire } from "node:module";
import type { ModalClient } from "modal";
import { keyUrl } from "../contract/base-url.js";
import { TIMEOUTS } from "./constants.js";
import type { ModalSdk } from "./sdk.js";

export const DEFAULT_SERVER_URL = "https://api.modal.com:443";

/**
 * How long the SDK may keep retrying a call Modal throttles: left unset it retries without end, in
 * the background of a call whose bound has already given up, so it ends with the longest bound.
 */
export const MAX_THROTTLE_WAIT_SECS = TIMEOUTS.createMs / 1000;

/** What the SDK's profile takes from the process (its config.ts), each hidden while a client is built. */
export const PROFILE_VARIABLES = [
  "MODAL_PROFILE",
  "MODAL_TOKEN_ID",
  "MODAL_TOKEN_SECRET",
  "MODAL_OAUTH_REFRESH_TOKEN",
  "MODAL_OAUTH_CLIENT_ID",
  "MODAL_OAUTH_CLIENT_SECRET",
  "MODAL_OAUTH_JWT_KEY",
  "MODAL_ENVIRONMENT",
  "MODAL_IMAGE_BUILDER_VERSION",
  "MODAL_LOGLEVEL",
  "MODAL_MAX_THROTTLE_WAIT",
  "MODAL_SANDBOX_CHANNEL_IDLE_TIMEOUT",
  "MODAL_SANDBOX_V2",
] as const;

export interface ClientOptions {
  tokenId: string;
  tokenSecret: string;
  environment?: string;
  serverUrl?: string;
}

/**
 * The server the token goes to, held to the one rule (src/contract/base-url.ts) as an address
 * alone, since gRPC dials no path; plaintext is the loopback's alone (a server of one's own, a test's).
 */
export function modalServer(serverUrl: unknown = DEFAULT_SERVER_URL): string {
  return keyUrl(serverUrl, "serverUrl", "the Modal provider's serverUrl", { path: false });
}

/** A ModalClient from these options alone; throws in words that never hold the token. */
export function modalClient(options: ClientOptions): ModalSdk {
  for (const key of ["tokenId", "tokenSecret"] as const) {
    if (typeof options[key] !== "string" || options[key].length === 0)
      throw new TypeError(`the Modal provider needs ${key}: the token's ${key === "tokenId" ? "id" : "secret"}`);
  }
  const server = modalServer(options.serverUrl);
  // The library's one touch of Modal's environment: an ambient server is refused, never used.
  if (process.env.MODAL_SERVER_URL !== undefined)
    throw new TypeError(
      `MODAL_SERVER_URL is set in this process; the Modal provider refuses to build a client that could send the token there: unset it, and give serverUrl`,
    );
  const { ModalClient: Client } = createRequire(import.meta.url)("modal") as { ModalClient: new (params: object) => ModalClient };
  process.env.MODAL_SERVER_URL = server;
  try {
    return hidingProfile(
      () =>
        new Client({
          tokenId: options.tokenId,
          tokenSecret: options.tokenSecret,
          maxThrottleWaitSecs: MAX_THROTTLE_WAIT_SECS,
          ...(options.environment ? { environment: options.environment } : {}),
        }),
    );
  } finally {
    delete process.env.MODAL_SERVER_URL;
  }
}

/** build() with PROFILE_VARIABLES out of the process, each put back after. */
function hidingProfile<T>(build: () => T): T {
  const hidden: [string, string | undefined][] = [];
  for (const name of PROFILE_VARIABLES) {
    hidden.push([name, process.env[name]]);
    delete process.env[name];
  }
  try {
    return build();
  } finally {
    for (const [name, value] of hidden) if (value !== undefined) process.env[name] = value;
  }
}
