// The plugin's one door to the library's providers: built from the stack's settings through the
// registry (src/providers.ts), once per plugin process, so a provider's reads of its host are
// shared by every resource. A resource knows a vendor only through here.
import type { ComputerProvider } from "../src/provider.js";
import { fail, type Result } from "../src/result.js";
import type { Settings } from "./config.js";

export type Vendors = (id: string) => Promise<Result<ComputerProvider>>;

export function vendors(settings: Settings): Vendors {
  const made = new Map<string, Promise<Result<ComputerProvider>>>();
  return (id) => {
    let p = made.get(id);
    if (!p) {
      p = build(id, settings);
      made.set(id, p);
    }
    return p;
  };
}

async function build(id: string, settings: Settings): Promise<Result<ComputerProvider>> {
  const { providerFor } = await import("../src/providers.js");
  const options = (settings as Record<string, unknown>)[id] ?? {};
  try {
    return await providerFor(id, options);
  } catch (e) {
    // A provider's constructor throws in words on a bad option; the words never hold a value.
    return fail("invalid", `the agentrun:${id} settings are refused: ${(e as Error).message}`);
  }
}

