// The one place the real E2B SDK is loaded, and the connection options every call is given. The
// SDK reads E2B_API_KEY, E2B_DOMAIN, E2B_API_URL and E2B_DEBUG whenever a call is not given them
// (dist/index.mjs, ConnectionConfig), so every call gets the key, the domain, the API URL and
// debug: false explicitly. E2B_SANDBOX_URL it takes whenever no sandbox URL is given, and no option
// clears it: the provider refuses to start while it is set.
import { createRequire } from "node:module";
import type { Sandbox } from "e2b";
import { asE2BSandboxClass, type E2BApiOpts, type E2BSandboxClass } from "./sdk.js";

/** The connection half of every call's options. */
export interface Connection {
  apiKey: string;
  domain: string;
  apiUrl: string;
  sandboxUrl?: string;
  debug: false;
}

/** The connection of settled options: the API https://api.<domain> unless given, envd the SDK's own unless given. */
export function connectionOf(o: { apiKey: string; domain: string; apiUrl: string; sandboxUrl: string | undefined }): Connection {
  return { apiKey: o.apiKey, domain: o.domain, apiUrl: o.apiUrl, ...(o.sandboxUrl ? { sandboxUrl: o.sandboxUrl } : {}), debug: false };
}

export const SANDBOX_URL_SET =
  "E2B_SANDBOX_URL is set in this process; the E2B SDK would send every sandbox call (the upload and the bridge with them) there, and no option clears it: unset it";

/** Why the provider may not start in this process, or undefined: the library's one read of E2B's environment. */
export function ambientProblem(): string | undefined {
  return process.env.E2B_SANDBOX_URL !== undefined ? SANDBOX_URL_SET : undefined;
}

/** The host's e2b package's Sandbox class, loaded at the first call. */
export function realSandboxClass(): E2BSandboxClass {
  const { Sandbox: cls } = createRequire(import.meta.url)("e2b") as { Sandbox: typeof Sandbox };
  return asE2BSandboxClass(cls);
}

/** One call's options: the connection, its bound and its signal. */
export function callOpts(connection: Connection, requestTimeoutMs: number, signal: AbortSignal): E2BApiOpts {
  return { ...connection, requestTimeoutMs, signal };
}
