// The Docker host's own addresses, which every egress proxy refuses as this-host. Docker does
// not report them: the provider passes this machine's interface addresses, which are the Docker
// host's only when the provider runs on it. In a container (its signs read under hostRoot) an
// allowlist needs egress.hostAddresses; and an address on no interface (a cloud's NAT'd public
// IP) is never seen, so it belongs in egress.hostAddresses too.
import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { fail, ok, type Result } from "../daemon/result.js";
import { classify, formatAddress, parseAddress, unmap } from "./address.js";

export interface HostAddressOptions {
  /** The host's addresses as the caller knows them (IP addresses), beside this machine's own. */
  hostAddresses?: readonly string[];
  /** The root the container signs are read under (default /), for tests and embedders. */
  hostRoot?: string;
  /** This machine's interfaces (default os.networkInterfaces()), for tests. */
  interfaces?: ReturnType<typeof networkInterfaces>;
  /** Why this machine is not the Docker host though it runs in no container (a remote engine), in words. */
  elsewhere?: string;
}

/** The sign that this process runs in a container, in words, or undefined on a plain host. */
export function containerSign(hostRoot = "/"): string | undefined {
  for (const file of ["/.dockerenv", "/run/.containerenv"]) {
    try {
      readFileSync(join(hostRoot, file));
      return `${file} is there`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EISDIR") return `${file} is there`;
    }
  }
  let cgroup = "";
  try {
    cgroup = readFileSync(join(hostRoot, "/proc/self/cgroup"), "utf8");
  } catch {
    return undefined;
  }
  const line = cgroup.split("\n").find((l) => /\/(docker|containerd|kubepods|libpod|lxc)[/-]/.test(l));
  return line ? `its cgroup (/proc/self/cgroup) is a container's: ${line.trim()}` : undefined;
}

/**
 * The addresses a proxy refuses as this host's: every public interface address of this machine,
 * then the caller's; for a remote engine (elsewhere), the caller's alone. In a container or for a
 * remote engine the caller's are required; an entry that is not an IP address is refused in words.
 */
export function hostAddresses(options: HostAddressOptions = {}): Result<string[]> {
  const given: string[] = [];
  for (const text of options.hostAddresses ?? []) {
    const a = typeof text === "string" ? parseAddress(text) : undefined;
    if (!a) return fail("invalid", `egress.hostAddresses holds ${JSON.stringify(text)}, which is not an IP address`, { field: "egress.hostAddresses" });
    given.push(formatAddress(unmap(a)));
  }
  const contained = containerSign(options.hostRoot);
  const sign = options.elsewhere ?? contained;
  if (given.length === 0 && sign) {
    const where = options.elsewhere ?? `this provider runs in a container (${contained})`;
    return fail(
      "unsupported",
      `an allowlist needs the Docker host's own addresses, and ${where}, so this machine's interfaces are not the host's: give egress.hostAddresses (the host's IP addresses, its public and NAT'd ones too)`,
      { field: "network" },
    );
  }
  // A remote engine's host is not this machine: its addresses are the given ones alone, so a
  // proxy there neither refuses this machine's addresses nor reads back differently as they change.
  if (options.elsewhere) return ok([...new Set(given)].sort());
  const own: string[] = [];
  const onInterfaces = new Set<string>();
  for (const list of Object.values(options.interfaces ?? networkInterfaces())) {
    for (const i of list ?? []) {
      const a = parseAddress(i.address.split("%")[0]!);
      if (a) onInterfaces.add(formatAddress(unmap(a)));
      // Only a public address needs naming: every other class is refused by the table already,
      // and the host's veths come and go with its containers.
      if (!i.internal && a && classify(a) === "public") own.push(formatAddress(unmap(a)));
    }
  }
  // On the Docker host itself its interfaces are the host's: a given address on none of them is
  // the host's only as a public one it is reached at (a cloud's NAT'd address).
  if (!sign) {
    const stray = given.filter((a) => !onInterfaces.has(a) && classify(parseAddress(a)!) !== "public");
    if (stray.length > 0)
      return fail(
        "invalid",
        `egress.hostAddresses holds ${stray.join(", ")}, which is none of this host's addresses: this provider runs on the Docker host, whose public addresses it finds itself (\`ip -brief address\` lists them); give only a public address the host is reached at that is on no interface (a cloud's NAT'd one), or unset it`,
        { field: "egress.hostAddresses" },
      );
  }
  return ok([...new Set([...own, ...given])].sort());
}
