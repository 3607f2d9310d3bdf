// The Docker provider built from its options (the registry's create), and the conformance
// suite's drifted twin. Apart from index.ts, so the conformance module, which index.ts loads
// lazily, builds through them with no import loop.
import { DockerProvider, type DockerProviderOptions } from "./provider.js";

/** The provider from its options alone; a missing or wrong option throws in words. */
export function create(options: DockerProviderOptions): DockerProvider {
  return new DockerProvider(options);
}

/**
 * The conformance suite's drifted provider: the same provider, holding its daemon to another
 * version than the one the daemon reports, so every computer it makes is refused and deleted
 * at create, and connect refuses every computer.
 */
export function driftedProvider(options: DockerProviderOptions): DockerProvider {
  const probe = create(options);
  return create({ ...options, version: `${probe.version}-drifted` });
}
