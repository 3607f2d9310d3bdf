// The plugin's one door to the library's providers: built from the stack's settings through the
// registry (src/providers.ts), once per plugin process, so a provider's reads of its host are
// shared by every resource. A resource knows a vendor only through here.
import { arch, homedir } from "node:os";
import { fileURLToPath } from "node:url";
import { resolveEngine } from "../src/docker/engine.js";
import type { ComputerProvider } from "../src/provider.js";
import { ok, type Result } from "../src/result.js";
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
      p = import("../src/providers.js").then(({ providerFor }) => {
        const options = optionsOf(id, settings);
        return options.ok ? providerFor(id, options.value) : options;
      });
      made.set(id, p);
    }
    return p;
  };
}

/**
 * A provider's options from its settings; the local Docker engine runs this host's daemon. The
 * engine is agentrun:docker's engine, else the one the docker CLI would use from the environment
 * the Pulumi engine gave this plugin (DOCKER_HOST, then the CLI's context), as pulumi-docker's
 * host does and as this provider did while it ran the docker CLI.
 */
function optionsOf(id: string, settings: Settings): Result<unknown> {
  if (id !== "docker") return ok((settings as Record<string, unknown>)[id] ?? {});
  const { image, engine, ...rest } = settings.docker ?? {};
  const found = engine === undefined ? resolveEngine({ env: process.env, home: homedir() }) : ok(undefined);
  if (!found.ok) return found;
  return ok({
    daemonPath: `${DIST}computerd-linux-${GOARCH[arch()] ?? arch()}`,
    ...rest,
    engine: engine ?? found.value,
    ...(image ? { image: { image } } : {}),
  });
}
