// The plugin's one door to the library's providers: built from the stack's settings through the
// registry (src/providers.ts), once per plugin process, so a provider's reads of its host are
// shared by every resource. A resource knows a vendor only through here.
import { arch } from "node:os";
import { fileURLToPath } from "node:url";
import type { ComputerProvider } from "../src/provider.js";
import type { Result } from "../src/result.js";
import type { Settings } from "./config.js";

export type Vendors = (id: string) => Promise<Result<ComputerProvider>>;

// The daemons this package carries, by the architecture Go names.
const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const GOARCH: Record<string, string> = { x64: "amd64", arm64: "arm64" };

export function vendors(settings: Settings): Vendors {
  const made = new Map<string, Promise<Result<ComputerProvider>>>();
  return (id) => {
    let p = made.get(id);
    if (!p) {
      p = import("../src/providers.js").then(({ providerFor }) => providerFor(id, optionsOf(id, settings)));
      made.set(id, p);
    }
    return p;
  };
}

/** A provider's options from its settings; the local Docker engine runs this host's daemon. */
function optionsOf(id: string, settings: Settings): unknown {
  if (id !== "docker") return (settings as Record<string, unknown>)[id] ?? {};
  const { image, ...rest } = settings.docker ?? {};
  return {
    daemonPath: `${DIST}computerd-linux-${GOARCH[arch()] ?? arch()}`,
    ...rest,
    ...(image ? { image: { image } } : {}),
  };
}
