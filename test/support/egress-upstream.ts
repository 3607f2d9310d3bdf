// The egress tests' upstream: egresskit (daemon/cmd/computerd/testdata/egresskit) serving on an
// --internal Docker network the test made, and the provider's egress options that mark that
// network reachable by the test-only seam, with the root its TLS is from; no public address is ever
// a target.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { DockerProviderOptions } from "../../src/docker/index.js";
import { docker, IMAGE } from "./docker-helpers.js";

export interface Upstream {
  /** The egresskit binary, to copy into a computer. */
  kit: string;
  net: string;
  subnet: string;
  /** The network's gateway: the Docker host's own address on it. */
  gateway: string;
  /** The upstream's address on the network. */
  ip: string;
  /** The provider's egress options for this network. */
  egress: NonNullable<DockerProviderOptions["egress"]>;
  /** Removes the upstream and its network. */
  close(): void;
}

/** egresskit built (static) in a folder of its own: its path. */
export function egresskit(): string {
  const kit = join(mkdtempSync(join(tmpdir(), "egresskit-")), "egresskit");
  execFileSync("go", ["build", "-o", kit, "./cmd/computerd/testdata/egresskit"], {
    cwd: resolve(import.meta.dirname, "../../daemon"),
    env: { ...process.env, CGO_ENABLED: "0" },
  });
  return kit;
}

/** egresskit serving on a new --internal network named from prefix, with a network alias and environment when asked. */
export function startUpstream(prefix: string, options: { alias?: string; env?: string[] } = {}): Upstream {
  const kit = egresskit();
  const net = prefix;
  const name = `${prefix}-up`;
  docker("network", "create", "--internal", "--label", `agentrun.test=${prefix}`, net);
  const subnet = docker("network", "inspect", "-f", "{{range .IPAM.Config}}{{.Subnet}}{{end}}", net);
  const gateway = docker("network", "inspect", "-f", "{{range .IPAM.Config}}{{.Gateway}}{{end}}", net);
  const extra = [...(options.alias ? ["--network-alias", options.alias] : []), ...(options.env ?? []).flatMap((e) => ["-e", e])];
  docker("run", "-d", "--name", name, "--network", net, ...extra, "-v", `${kit}:/opt/egresskit:ro`, IMAGE, "/opt/egresskit", "serve");
  const ip = docker("inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", name);
  // Its TLS is from a CA of its own, printed before it serves: the proxy's test-only root.
  let logs = "";
  for (const started = Date.now(); !logs.includes("serving") && Date.now() - started < 20_000;) {
    logs = docker("logs", name);
    if (!logs.includes("serving")) execFileSync("sleep", ["0.1"]);
  }
  const upstreamRoot = /-----BEGIN CERTIFICATE-----\n[^-]+-----END CERTIFICATE-----\n/.exec(logs)?.[0];
  if (!upstreamRoot) throw new Error(`egresskit did not print its root before serving: ${logs.slice(-2000)}`);
  return {
    kit,
    net,
    subnet,
    gateway,
    ip,
    egress: { hostAddresses: ["203.0.113.7"], hint: "ask the test", testNetwork: { name: net, range: subnet, upstreamRoot }, testOnly: true },
    close: () => {
      execFileSync("docker", ["rm", "--force", name], { stdio: "ignore" });
      execFileSync("docker", ["network", "rm", net], { stdio: "ignore" });
    },
  };
}
