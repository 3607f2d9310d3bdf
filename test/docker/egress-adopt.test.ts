// Idempotent create of an allowlisted computer on the real Docker engine: its egress proxy and
// volume carry the owner's labels, so what an interrupted create left is found whole or not.
// The cut is a create that never goes on past a step (the provider's pause seam, held for ever,
// as a killed plugin would be): after run, the computer, its proxy and its volume are there; before
// run, only the volume. The next create of the same owner and spec adopts a whole one with its
// proxy; one whose proxy is gone or stopped is removed with its parts and made again; parts with
// no computer are removed; a delete leaves nothing with the owner's label, the parts of an earlier
// computer declared otherwise included. The proxy joins the test's own --internal network, marked
// reachable by the test-only seam; the list names an address in it, and no traffic is sent.
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CreateStep, Step } from "../../src/docker/pause.js";
import type { DockerProvider } from "../../src/docker/provider.js";
import { OWNER_LABEL, ownerLabel } from "../../src/contract/labels.js";
import type { ComputerSpec } from "../../src/contract/provider.js";
import { docker, IMAGE, provider, testLabel } from "../support/docker-helpers.js";

const net = `agentrun-egress-adopt-${randomBytes(4).toString("hex")}`;
let subnet = "";
let allowed = "";
const labelsMade: Array<Record<string, string>> = [];
/** The provider every next create and delete goes through (made once the test network is there). */
let docker1: DockerProvider;

beforeAll(() => {
  docker("network", "create", "--internal", "--label", `agentrun.test=${net}`, net);
  subnet = docker("network", "inspect", "-f", "{{range .IPAM.Config}}{{.Subnet}}{{end}}", net);
  allowed = `${docker("network", "inspect", "-f", "{{range .IPAM.Config}}{{.Gateway}}{{end}}", net)}/32`;
  docker1 = testProvider();
});

afterEach(() => {
  // Every container and volume of the test's label, by exact name.
  for (const labels of labelsMade.splice(0)) {
    const [k, v] = Object.entries(labels)[0]!;
    const names = docker("ps", "--all", "--format", "{{.Names}}", "--filter", `label=${k}=${v}`).split("\n").filter(Boolean);
    if (names.length) docker("rm", "--force", "--volumes", ...names);
    const volumes = docker("volume", "ls", "--format", "{{.Name}}", "--filter", `label=${k}=${v}`).split("\n").filter(Boolean);
    if (volumes.length) docker("volume", "rm", "--force", ...volumes);
  }
});

afterAll(() => {
  docker("network", "rm", net);
});

const testProvider = (pause?: (step: Step, signal?: AbortSignal) => Promise<void>) =>
  provider({ egress: { hostAddresses: ["203.0.113.7"], testNetwork: { name: net, range: subnet }, testOnly: true }, ...(pause ? { pause } : {}) });

const owner = () => `/stack/folder\0urn:pulumi:test::egress-adopt::agentrun:index:Computer::c-${randomBytes(4).toString("hex")}`;

function allowlisted(allow = [allowed]): ComputerSpec {
  const labels = testLabel();
  labelsMade.push(labels);
  return { image: IMAGE, lifetimeMs: 600_000, network: { allow }, labels, cpus: 0.5, memoryMb: 128, pids: 128 };
}

/** A create of this spec for this owner that stops for good at the step, as a killed plugin's. */
async function cutAt(step: CreateStep, spec: ComputerSpec, who: string): Promise<void> {
  let reached!: () => void;
  const there = new Promise<void>((resolve) => (reached = resolve));
  const cut = testProvider(async (at) => {
    if (at !== step) return;
    reached();
    await new Promise(() => {});
  });
  const ended = cut
    .create(spec, { owner: who })
    .then((r) => Promise.reject(new Error(`the create ended before ${step}: ${r.ok ? r.value.name : r.error.message}`)));
  await Promise.race([there, ended]);
}

/** The parts carrying a label: computers, proxies and volumes, by name, with their ids and states. */
function parts(label: string) {
  const containers = (egress: boolean) =>
    docker(
      "ps",
      "--all",
      "--no-trunc",
      "--format",
      "{{.Names}} {{.ID}} {{.State}}",
      "--filter",
      `label=${label}`,
      "--filter",
      egress ? "label=agentrun.computer.egress" : "label=agentrun.computer=1",
    )
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [name = "", id = "", state = ""] = line.split(" ");
        return { name, id, state };
      });
  return {
    computers: containers(false),
    proxies: containers(true),
    volumes: docker("volume", "ls", "--format", "{{.Name}}", "--filter", `label=${label}`).split("\n").filter(Boolean),
  };
}
const testOf = (spec: ComputerSpec) => `agentrun.test=${spec.labels!["agentrun.test"]}`;

describe("an allowlisted computer's create cut off", () => {
  it("after run, whole: the next create adopts it with its proxy, the same containers, the list read back", async () => {
    const s = allowlisted();
    const who = owner();
    await cutAt("after-run", s, who);
    const left = parts(testOf(s));
    expect(left.computers).toHaveLength(1);
    expect(left.proxies).toHaveLength(1);
    expect(left.volumes).toEqual([`${left.computers[0]!.name}-egress`]);

    const again = await docker1.create(s, { owner: who });
    if (!again.ok) throw new Error(again.error.message);
    expect(again.value.id).toBe(left.computers[0]!.id);
    expect(again.value.spec?.network).toEqual({ allow: [allowed] });
    const now = parts(testOf(s));
    expect(now.computers.map((c) => c.id)).toEqual([left.computers[0]!.id]);
    expect(now.proxies).toEqual([{ ...left.proxies[0]!, state: "running" }]);
    expect(now.volumes).toEqual(left.volumes);
    const read = await docker1.network(again.value);
    expect(read.ok && read.value).toEqual({ allow: [allowed] });
  }, 180_000);

  it.each(["removed", "stopped"])(
    "after run, its proxy %s since: not whole, so computer, proxy and volume are removed and made again",
    async (how) => {
      const s = allowlisted();
      const who = owner();
      await cutAt("after-run", s, who);
      const left = parts(testOf(s));
      expect(left.proxies).toHaveLength(1);
      docker(...(how === "removed" ? ["rm", "--force"] : ["stop", "--time", "1"]), left.proxies[0]!.name);

      const again = await docker1.create(s, { owner: who });
      if (!again.ok) throw new Error(again.error.message);
      expect(again.value.id).not.toBe(left.computers[0]!.id);
      const now = parts(testOf(s));
      expect(now.computers.map((c) => c.name)).toEqual([again.value.name]);
      expect(now.proxies.map((p) => [p.name, p.state])).toEqual([[`${again.value.name}-egress`, "running"]]);
      expect(now.volumes).toEqual([`${again.value.name}-egress`]);
    },
    180_000,
  );

  it("between its volume and its containers: the volume left with no computer is removed", async () => {
    const s = allowlisted();
    const who = owner();
    await cutAt("before-run", s, who);
    const left = parts(testOf(s));
    expect(left.computers).toEqual([]);
    expect(left.proxies).toEqual([]);
    expect(left.volumes).toHaveLength(1);

    const again = await docker1.create(s, { owner: who });
    if (!again.ok) throw new Error(again.error.message);
    const now = parts(testOf(s));
    expect(now.computers.map((c) => c.name)).toEqual([again.value.name]);
    expect(now.volumes).toEqual([`${again.value.name}-egress`]);
  }, 180_000);
});

describe("an allowlisted computer's delete", () => {
  it("leaves no container or volume with its owner's label", async () => {
    const s = allowlisted();
    const who = owner();
    const made = await docker1.create(s, { owner: who });
    if (!made.ok) throw new Error(made.error.message);
    const owned = `${OWNER_LABEL}=${ownerLabel(who)[OWNER_LABEL]}`;
    expect(parts(owned).proxies).toHaveLength(1);
    expect(parts(owned).volumes).toHaveLength(1);
    expect((await docker1.release(made.value, "delete")).ok).toBe(true);
    expect(parts(owned)).toEqual({ computers: [], proxies: [], volumes: [] });
  }, 180_000);

  it("removes, with their proxies and volumes, the owner's earlier computers declared otherwise", async () => {
    const s = allowlisted();
    const who = owner();
    await cutAt("after-run", s, who);
    // The next create, declared otherwise (another list), adopts nothing: the cut one stays beside it.
    const changed: ComputerSpec = { ...s, network: { allow: [allowed, subnet] } };
    const made = await docker1.create(changed, { owner: who });
    if (!made.ok) throw new Error(made.error.message);
    const owned = `${OWNER_LABEL}=${ownerLabel(who)[OWNER_LABEL]}`;
    expect(parts(owned).computers).toHaveLength(2);
    expect(parts(owned).proxies).toHaveLength(2);
    expect(parts(owned).volumes).toHaveLength(2);
    expect((await docker1.release(made.value, "delete")).ok).toBe(true);
    expect(parts(owned)).toEqual({ computers: [], proxies: [], volumes: [] });
  }, 180_000);
});
