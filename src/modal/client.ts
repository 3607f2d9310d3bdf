// The one place a real ModalClient is built: from a tokenId and tokenSecret given, and from
// nothing else. The client takes no server, and reads MODAL_SERVER_URL (else a profile's) once
// as it is constructed, so the construction sets that variable to the server chosen here and
// puts it back: no MODAL_PROFILE, MODAL_CONFIG_PATH or ~/.modal.toml can send the key elsewhere.
import { createRequire } from "node:module";
import type { ModalClient } from "modal";
import type { ModalSdk } from "./sdk.js";

export const DEFAULT_SERVER_URL = "https://api.modal.com:443";

export interface ClientOptions {
  tokenId: string;
  tokenSecret: string;
  environment?: string;
  serverUrl?: string;
}

/** A ModalClient from these options alone; throws in words that never hold the token. */
export function modalClient(options: ClientOptions): ModalSdk {
  for (const key of ["tokenId", "tokenSecret"] as const) {
    if (typeof options[key] !== "string" || options[key].length === 0)
      throw new TypeError(`the Modal provider needs ${key}: the token's ${key === "tokenId" ? "id" : "secret"}`);
  }
  const server = options.serverUrl ?? DEFAULT_SERVER_URL;
  // Plaintext only to this machine's loopback, which the SDK dials without TLS (a server of one's own, a test's).
  if (!/^https:\/\/[^\s/]+(:\d+)?\/?$/.test(server) && !/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/?$/.test(server))
    throw new TypeError("the Modal provider's serverUrl is an https:// address with no path (or http:// on the loopback, with a port)");
  // The library's one touch of Modal's environment: an ambient server is refused, never used.
  if (process.env.MODAL_SERVER_URL !== undefined)
    throw new TypeError(
      `MODAL_SERVER_URL is set in this process; the Modal provider refuses to build a client that could send the token there: unset it, and give serverUrl`,
    );
  const { ModalClient: Client } = createRequire(import.meta.url)("modal") as { ModalClient: new (params: object) => ModalClient };
  process.env.MODAL_SERVER_URL = server;
  try {
    return new Client({ tokenId: options.tokenId, tokenSecret: options.tokenSecret, ...(options.environment ? { environment: options.environment } : {}) });
  } finally {
    delete process.env.MODAL_SERVER_URL;
  }
}
