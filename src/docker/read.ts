// read: a computer found by name, id or labels and drift-checked, handed back whether or not it
// drifted (the ref with the spec read back, its state, every mismatch); attach refuses a drifted
// one, and a Pulumi refresh shows it field by field.
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import type { CallOptions } from "../daemon/client.js";
import type { Hello } from "../daemon/protocol.js";
import type { AttachBy, ComputerSpec, ReadBack } from "../contract/provider.js";
import { browserMismatches } from "../kits/browser/computer.js";
import { BROWSER_IMAGE } from "../kits/browser/labels.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { heldProxyReadBack } from "./computer-egress.js";
import { proxyHeld } from "./egress-enforced.js";
import { type EgressEnforced, enforcedInside, type ProxyHeld } from "../egress/enforced.js";
import { unprovenRules } from "../egress/proven.js";
import { openConnection } from "./connect.js";
import { BROWSER_PROFILE, HOME, ID_PATTERN, NAME_PATTERN } from "./constants.js";
import { capabilitiesOfKind, type DockerContext, expectedOf, refOf } from "./context.js";
import { inspect, listByLabels } from "./containers.js";
import { daemonCopyPath, daemonDigest } from "./daemon-cache.js";
import { drift, readBackDrift } from "./drift.js";
import { homeDrift } from "./home.js";
import { gvisorKernelDrift, runtimeOfDocker } from "./runtime.js";
import { type Inspected, labelsOf, nameOf, stateOf } from "./readback.js";
import { askedSubpath, DAEMON_DIR, type DaemonAt, daemonTreePath, daemonTreeVerifies, subpathOf } from "./volume.js";

/** The container a read names: its id or name, or the one computer its labels match. */
async function targetOf(context: DockerContext, by: AttachBy, options: CallOptions): Promise<Result<string>> {
  if ("id" in by) return ok(by.id);
  const labels = (by as { labels: Record<string, string> }).labels;
  const found = await listByLabels(context.engine, labels, options);
  if (!found.ok) return found;
  const shown = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");
  if (found.value.length === 0) return fail("not_found", `no computer matches the labels ${shown}`);
  if (found.value.length > 1)
    return fail(
      "invalid",
      `${found.value.length} computers match the labels ${shown} (${found.value.map(nameOf).join(", ")}); attach and read take labels that match one`,
    );
  return ok(found.value[0]!.Id);
}

/**
 * A running computer's hello and /work's mode, or the mismatch that kept them from being read:
 * over init's socket from this machine where it can be reached so, else through the bridge.
 */
async function fromInside(
  context: DockerContext,
  inspected: Inspected,
  hostKernel: string | undefined,
  options: CallOptions,
  browser: ComputerSpec["network"] | undefined,
  held: ProxyHeld | undefined,
): Promise<Result<{ hello: Hello | undefined; mismatches: string[]; enforced?: EgressEnforced }>> {
  const connection = await openConnection(
    context.engine,
    { id: inspected.Id, name: nameOf(inspected), inspected: Promise.resolve(ok(inspected)) },
    undefined,
    options.signal,
  );
  if (!connection.ok) {
    if (connection.error.code === "aborted") return connection;
    return ok({ hello: undefined, mismatches: [connection.error.message] });
  }
  const home = await homeDrift(connection.value.client, options.signal).catch((error: Error) => `${HOME} could not be read from inside: ${error.message}`);
  const kernel = await gvisorKernelDrift(connection.value.client, runtimeOfDocker(inspected.HostConfig?.Runtime), hostKernel, options.signal);
  // A browser: its flags for the network it reads back as, alive and answering CDP.
  const browsing = browser === undefined ? [] : await browserMismatches(connection.value.client, browser, BROWSER_PROFILE, options.signal);
  // An allowlisted computer: whose CA its programs trust (a fact of the read-back, not drift: a
  // proxy made again by an update is trusted once a program next connects).
  const enforced = held && (await enforcedInside(held, connection.value.client, options.signal));
  // And that the proxy on its path enforces those rules, proven from inside.
  const unproven = held ? await unprovenRules(connection.value.client, held.enforced.rules, DAEMON_IN_COMPUTER, options.signal) : [];
  await connection.value.close();
  const mismatches = [home, kernel, ...browsing, ...unproven].filter((m) => m !== undefined);
  return ok({ hello: connection.value.hello, mismatches, ...(enforced ? { enforced } : {}) });
}

/**
 * The daemon a computer must mount: the copy's path; with the volume option, the tree it mounts
 * when that is a published copy of this daemon that verifies now, else the tree staging names.
 */
async function expectedDaemon(context: DockerContext, inspected: Inspected, digest: string): Promise<DaemonAt> {
  if (!context.volume) return daemonCopyPath(context.daemonCache, digest);
  const mounted = askedSubpath(inspected.HostConfig?.Mounts, context.volume.name, DAEMON_DIR);
  if (mounted !== undefined && (await daemonTreeVerifies(context.volume, context.daemonCache, digest, mounted)))
    return { volume: context.volume.name, subpath: mounted };
  return { volume: context.volume.name, subpath: subpathOf(context.volume.root, daemonTreePath(context.daemonCache, digest)) ?? "" };
}

/** Finds a computer and runs the drift check, as attach does, but hands back what it read whether or not it drifted. */
export async function readComputer(context: DockerContext, by: AttachBy, options: CallOptions = {}): Promise<Result<ReadBack>> {
  const byId = by && "id" in by;
  const byLabels = by && "labels" in by && typeof by.labels === "object" && by.labels !== null && Object.keys(by.labels).length > 0;
  if (byId && (typeof by.id !== "string" || !(NAME_PATTERN.test(by.id) || ID_PATTERN.test(by.id)))) {
    return fail("invalid", "attach and read by id take a computer's name (computer-<12 hex digits>) or its container id (12 to 64 hex digits)", {
      field: "id",
    });
  }
  if (!byId && !byLabels) return fail("invalid", "attach and read take { id } or { labels } with at least one label", { field: "by" });
  // The host's enforcement first: a host that lacks any is refused before any other Docker call.
  const host = await context.enforcingHost(options);
  if (!host.ok) return host;
  const target = await targetOf(context, by, options);
  if (!target.ok) return target;
  const inspected = await inspect(context.engine, target.value, options);
  if (!inspected.ok) return inspected;
  const name = nameOf(inspected.value);
  const egress = await heldProxyReadBack(context, inspected.value, options);
  if (!egress.ok) return egress;
  const { network, proxy } = egress.value;
  const held = readBackDrift(inspected.value, capabilitiesOfKind("linux"), network, context.egress.testNetwork?.range, context.volume);
  // What the proxy enforces beyond its list, when it is as made: its rules, its credentials' hosts.
  const holding = await proxyHeld(context, inspected.value, network, options, { proxy });
  if (!holding.ok) return holding;
  const mismatches = [...held.mismatches];
  let hello: Hello | undefined;
  let enforced = holding.value?.enforced;
  if (stateOf(inspected.value) === "running") {
    const browser = held.kind === "browser" ? held.spec.network : undefined;
    const inside = await fromInside(context, inspected.value, host.value.kernel, options, browser, holding.value);
    if (!inside.ok) return inside;
    hello = inside.value.hello;
    enforced = inside.value.enforced ?? enforced;
    mismatches.push(...inside.value.mismatches);
  }
  const digest = await daemonDigest(context.daemonPath).catch(() => undefined);
  if (!digest) return fail("failed", `the daemon at ${context.daemonPath} could not be read, so ${name}'s daemon cannot be checked against it`);
  // A remote engine's computer holds the daemon in its own files (put by archive), bound from nowhere.
  const daemon = context.remote ? undefined : await expectedDaemon(context, inspected.value, digest);
  // A browser's image (a desktop's "chromium" too) is the provider's browser recipe's, made ready (there already, as it runs).
  const browserImage = held.kind === "browser" || held.spec.image === BROWSER_IMAGE ? await context.browserImage(options.signal) : undefined;
  if (browserImage && !browserImage.ok) return browserImage;
  mismatches.push(
    ...drift(held.spec, inspected.value, hello, {
      ...expectedOf(context, host.value, { uid: held.uid, gid: held.gid, deadline: held.deadline, daemon, kind: held.kind }),
      ...(network ? { proxy: network } : {}),
      ...(browserImage ? { image: browserImage.value } : {}),
    }),
  );
  const ref = refOf(inspected.value, hello, network, context.volume);
  if (enforced && ref.spec) ref.spec.enforced = enforced;
  return ok({
    ref,
    state: stateOf(inspected.value),
    labels: labelsOf(inspected.value),
    ...(hello ? { hello } : {}),
    drift: mismatches,
  });
}
