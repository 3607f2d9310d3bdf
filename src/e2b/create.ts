// The E2B provider built from its options (the registry's create), and the conformance suite's
// drifted twin, apart from index.ts so the conformance modules build through them.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadModule } from "../load-module.js";
import type { E2BProviderOptions } from "./options.js";
import { E2BProvider } from "./provider.js";
import type { E2BSandboxClass } from "./sdk.js";

export interface E2BOptions extends E2BProviderOptions {
  /**
   * Tests only: the absolute path of a module whose createSdk() makes the slice (the Docker-backed
   * fake), loaded at the first call. The Pulumi plugin refuses it unless its test flag is on.
   */
  testSdk?: string;
}

export function create(options: E2BOptions): E2BProvider {
  const { testSdk, ...rest } = options ?? ({} as E2BOptions);
  if (testSdk === undefined) return new E2BProvider(rest);
  if (typeof testSdk !== "string" || !path.isAbsolute(testSdk))
    throw new TypeError("the E2B provider's testSdk is the absolute path of a module that exports createSdk()");
  return new E2BProvider({ ...rest, sdk: async () => (await loadModule<{ createSdk(): E2BSandboxClass }>(pathToFileURL(testSdk).href)).createSdk() });
}

/** The same provider holding its daemon to another version, so none of its computers is handed out. */
export function driftedProvider(options: E2BOptions): E2BProvider {
  return create({ ...options, version: `${create(options).version}-drift` });
}
