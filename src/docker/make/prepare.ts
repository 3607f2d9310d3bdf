// create's first phase: what Docker must say before anything is made. The host's enforcement
// (read once per provider), what this host cannot give the checked spec, an allowlist's host
// addresses and proxy image, and the daemon's copy; a refusal here makes nothing.
import type { MachineKind } from "../../daemon/protocol.js";
import { hostAddresses } from "../../egress/host-addresses.js";
import { BROWSER_IMAGE } from "../../kits/browser/labels.js";
import type { CheckedSpec, CreateOptions } from "../../contract/provider.js";
import { fail, ok, type Result } from "../../daemon/result.js";
import { hostRefusals } from "../check.js";
import type { DockerContext } from "../context.js";
import { DaemonCacheError } from "../daemon-cache.js";
import type { Host } from "../host.js";
import { failure } from "../containers.js";
import { snapshotIdOf, snapshotMissing } from "../snapshot-image.js";
import type { DaemonAt } from "../volume.js";

/** The checked spec with what Docker said of it: every later phase takes this. */
export interface Prepared extends CheckedSpec {
  host: Host;
  /** The daemon copy's path on the host, or its tree on the volume (the volume option); unset on a remote engine, where it goes in by archive. */
  daemon: DaemonAt;
  /** The kind the spec asks for, or the provider's. */
  kind: MachineKind;
  /** An allowlist's: the Docker host's addresses and the proxy's image, ready. */
  egress?: { hostAddresses: string[]; image: string };
  /** A browser's, or a desktop's that asks for "chromium": the engine image its "chromium" is, ready. */
  browserImage?: string;
}

/** The host read and held to the checked spec, the egress image and addresses, the daemon's copy. */
export async function prepare(context: DockerContext, checked: CheckedSpec, options: CreateOptions): Promise<Result<Prepared>> {
  const host = await context.enforcingHost(options);
  if (!host.ok) return host;
  // What only the host decides (a remap with a bind or an allowlist, an old engine with the volume option).
  const refusals = hostRefusals(checked.spec, host.value, context.volume?.root);
  if (refusals.length > 0) {
    return fail("refused", `${refusals.map((r) => r.message).join("; ")}. Nothing was made`, { field: refusals[0]!.field ?? "host" });
  }
  const prepared: Prepared = { ...checked, host: host.value, daemon: undefined, kind: checked.spec.kind ?? context.kind };
  // A fork: its snapshot on this engine, before anything is made.
  const snapshot = snapshotIdOf(checked.spec.image);
  if (snapshot !== undefined) {
    const there = await context.engine.call("GET", `/images/sha256:${snapshot}/json`, { signal: options.signal, timeoutMs: 30_000 });
    if (there.status === 404) return fail("not_found", snapshotMissing(checked.spec.image), { field: "image" });
    if (!there.ok) return failure(context.engine, `reading the snapshot ${checked.spec.image}`, there);
  }
  // A browser, or a desktop with Chromium: the image made ready (built once, by its recipe's hash) before anything is made.
  if (prepared.kind === "browser" || (prepared.kind === "desktop" && checked.spec.image === BROWSER_IMAGE)) {
    const image = await context.browserImage(options.signal);
    if (!image.ok) return fail(image.error.code, `the browser's image: ${image.error.message}. Nothing was made`, { field: "image" });
    prepared.browserImage = image.value;
  }
  // An allowlist: the host's addresses and the proxy's image first, so a refusal makes nothing.
  if (checked.allow !== undefined) {
    const addresses = hostAddresses(context.egress);
    if (!addresses.ok) return fail(addresses.error.code, `${addresses.error.message}. Nothing was made`, { field: addresses.error.field ?? "network" });
    const image = await context.egressImage(options.signal);
    if (!image.ok) return fail(image.error.code, `${image.error.message}. Nothing was made`, { field: "network" });
    prepared.egress = { hostAddresses: addresses.value, image: image.value };
  }
  try {
    // A remote engine's computer gets the daemon by archive: read here, so a refusal makes nothing.
    if (context.remote) await context.daemonFile();
    else prepared.daemon = await context.daemonCopy();
  } catch (error) {
    if (error instanceof DaemonCacheError) return fail("invalid", error.message, { field: "daemonCache" });
    const into = context.remote ? "read" : `copied into ${context.daemonCache}`;
    return fail("failed", `the daemon at ${context.daemonPath} could not be ${into}: ${(error as Error).message}`);
  }
  return ok(prepared);
}
