// A preview's checks, handler by handler without the engine: every field known at the preview is
// checked whatever else is unknown (a claim's labels, a Mount's path), each refusal naming its
// field and no refusal for a field not known yet; and a Computer on a Mount of the same stack
// waits for the folder that Mount makes, while a folder nobody makes is still refused. The real
// Docker provider's check runs (no Docker call); the Mount's check runs first, as the engine runs it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { computer } from "../../provider/resources/computer.js";
import { egressProxy } from "../../provider/resources/egress-proxy.js";
import { mount } from "../../provider/resources/mount.js";
import { UNKNOWN, type Props } from "../../provider/secrets.js";
import { checkKnown, knownRefusals } from "../../src/contract/checked.js";
import { fail, ok } from "../../src/daemon/result.js";
import { testContext } from "../support/context.js";

// The plugin taken for one on the Docker host (no container sign under an empty folder), so an allowlist needs no host addresses given.
const base = mkdtempSync(join(tmpdir(), "agentrun-preview-check-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
// Modal's settings with its Docker-backed fake for an SDK: the plugin's connection test before
// the first check reads the app (the fake answers it without Docker), as Modal would answer it.
process.env.AGENTRUN_MODAL_FAKE_RUN = "preview-check";
const MODAL = {
  tokenId: "ak-preview",
  tokenSecret: "as-preview",
  app: "agentrun-preview",
  testSdk: join(import.meta.dirname, "../support/fake-modal-docker.ts"),
};
const ctx = testContext({ docker: { user: "1000:1000", testHostRoot: base } });
const image = "agentrun-base:x";
// A fleet example's computer at preview: its labels are its claim's, not known yet.
const fleetShape = { image, lifetimeMs: 600_000, network: "none", labels: UNKNOWN };
const failuresOf = async (news: Props) => (await computer.check(ctx, {}, news)).failures ?? [];

describe("a Computer's check with an input unknown (a preview's)", () => {
  it.each([
    ["a size below Docker's least", { memoryMb: 1 }, "memoryMb", /^memoryMb is a whole number of MiB from 6/],
    ["CPUs past Docker's most", { cpus: 2000 }, "cpus", /^cpus is a number of CPUs from 0.01 to 1024/],
    ["a lifetime below 1 ms", { lifetimeMs: -5 }, "lifetimeMs", /^lifetimeMs is a whole number of milliseconds from 1/],
    ["a lifetime past the cap", { lifetimeMs: 31 * 86_400_000 }, "lifetimeMs", /past this provider's cap/],
    ["a wildcard over a whole top-level domain", { network: "allow", allow: ["*.com"] }, "allow", /^network.allow: "\*\.com"/],
    ["a label in the provider's own namespace", { labels: { "agentrun.computer": "x" }, image: UNKNOWN }, "labels", /agentrun\.computer/],
  ])("refuses %s, naming its field", async (_what, bad, property, words) => {
    const failures = await failuresOf({ ...fleetShape, ...bad });
    expect(failures).toEqual([{ property, reason: expect.stringMatching(words) }]);
  });

  it("refuses every bad field of one computer together, each once", async () => {
    const failures = await failuresOf({ ...fleetShape, cpus: 2000, memoryMb: 1, lifetimeMs: -5, network: "allow", allow: ["*.com"] });
    expect(failures.map((f) => f.property).sort()).toEqual(["allow", "cpus", "lifetimeMs", "memoryMb"]);
  });

  it("refuses no field for being unknown: an image, a lifetime, a mount, a proxy to join", async () => {
    expect(await failuresOf(fleetShape)).toEqual([]);
    expect(await failuresOf({ labels: UNKNOWN, image: UNKNOWN, lifetimeMs: UNKNOWN, mount: UNKNOWN })).toEqual([]);
    expect(await failuresOf({ ...fleetShape, network: undefined, egress: UNKNOWN })).toEqual([]);
    expect(await failuresOf({ ...fleetShape, mount: { kind: "bind", path: UNKNOWN } })).toEqual([]);
  });

  it("holds allow and network to each other only when both are known", async () => {
    // An allowlist another resource gives: there at up.
    expect(await failuresOf({ ...fleetShape, network: "allow", allow: UNKNOWN })).toEqual([]);
    // The same while another field is refused: one rule whatever else fails.
    expect(await failuresOf({ ...fleetShape, network: "allow", allow: UNKNOWN, cpus: -1 })).toEqual([
      { property: "cpus", reason: "cpus must be a number of CPUs above 0, such as 0.5 or 2" },
    ]);
    expect(await failuresOf({ ...fleetShape, network: UNKNOWN, allow: ["pypi.org"] })).toEqual([]);
    expect(await failuresOf({ ...fleetShape, network: "allow" })).toContainEqual({
      property: "allow",
      reason: expect.stringMatching(/^network "allow" needs allow/),
    });
  });
});

describe("a Modal Computer's labels at preview", () => {
  // A resource's computer carries its owner and declaration labels: 2 of Modal's 10 tags, beside the provider's 4.
  const modal = testContext({ modal: MODAL });
  const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, "v"]));
  const failuresOn = async (n: number) =>
    (await computer.check(modal, {}, { provider: "modal", image: "debian:bookworm-slim", lifetimeMs: 600_000, network: "none", labels: labels(n) })).failures ??
    [];

  it("takes 4 labels and refuses 5 in words that name Modal's limit", async () => {
    expect(await failuresOn(4)).toEqual([]);
    expect(await failuresOn(5)).toEqual([
      {
        property: "labels",
        reason:
          "a Modal computer made for a resource takes at most 4 labels of its own (Modal keeps at most 10 tags a sandbox: 4 are the provider's, and 2 tie it to the resource it is made for); this spec has 5",
      },
    ]);
  });
});

describe("a Computer's runtime at preview", () => {
  const modal = testContext({ modal: MODAL });

  it("refuses gvisor where the provider cannot run it, naming the field, and a runtime that is neither", async () => {
    const onModal =
      (await computer.check(modal, {}, { provider: "modal", image: "debian:bookworm-slim", lifetimeMs: 600_000, runtime: "gvisor" })).failures ?? [];
    expect(onModal).toEqual([{ property: "runtime", reason: expect.stringMatching(/gvisor/) }]);
    expect(await failuresOf({ ...fleetShape, runtime: "kata" })).toEqual([{ property: "runtime", reason: expect.stringMatching(/"runc" or "gvisor"/) }]);
    expect(await failuresOf({ ...fleetShape, runtime: "runc" })).toEqual([]);
  });

  it("holds gvisor on Docker to a network and a kind init can keep under it", async () => {
    const failures = await failuresOf({ ...fleetShape, runtime: "gvisor", network: "open" });
    expect(failures.map((f) => f.property)).toContain("network");
  });
});

describe("a Computer on a Mount of the same stack", () => {
  // The engine checks (and previews) the Mount before the Computer that takes its mount output.
  const onMount = async (path: string, computerProps: Props = {}, mountProps: Props = {}) => {
    const m = await mount.check(ctx, {}, { path, user: "1000:1000", ...mountProps });
    expect(m.failures).toBeUndefined();
    return failuresOf({ image, lifetimeMs: 600_000, user: "1000:1000", mount: { kind: "bind", path }, ...computerProps });
  };

  it("is checked before its folder is made: the Mount makes it first", async () => {
    expect(await onMount(join(base, "runs/r1/work"))).toEqual([]);
  });

  it("still refuses a folder nobody makes", async () => {
    const failures = await failuresOf({ image, lifetimeMs: 600_000, mount: { kind: "bind", path: join(base, "nobody/makes/this") } });
    expect(failures).toEqual([{ property: "mount", reason: `the run folder ${join(base, "nobody/makes/this")} does not exist on the host; make it first` }]);
  });

  it("still refuses what the path itself is, whoever makes it", async () => {
    const failures = await failuresOf({ image, lifetimeMs: 600_000, mount: { kind: "bind", path: `${base}/runs/../r2` } });
    expect(failures).toEqual([{ property: "mount", reason: expect.stringMatching(/not canonical/) }]);
  });

  it("says a bad label once, with no second refusal of the mount", async () => {
    const failures = await onMount(join(base, "runs/r3/work"), { labels: { team: "a\u0000b" } });
    expect(failures).toEqual([{ property: "labels", reason: expect.stringMatching(/the label team is a string with no NUL/) }]);
  });

  it("refuses a computer whose user could not write the folder its Mount makes for another", async () => {
    const failures = await onMount(join(base, "runs/r4/work"), { user: "2000:2000" });
    expect(failures).toEqual([
      {
        property: "mount",
        reason: `the run folder ${join(base, "runs/r4/work")} is made by its Mount for 1000:1000 with mode 0700, so the computer's user 2000:2000 could not write it: declare the same user on the Mount and its computers`,
      },
    ]);
  });
});

describe("the other resources' checks with an input unknown", () => {
  it("an EgressProxy refuses a bad entry of its list while its lifetime is unknown", async () => {
    const r = await egressProxy.check(ctx, {}, { allow: ["*.com"], lifetimeMs: UNKNOWN });
    expect(r.failures).toEqual([{ property: "allow", reason: expect.stringMatching(/^allow: "\*\.com"/) }]);
  });

  it("a Mount takes retainOnDelete unknown", async () => {
    expect((await mount.check(ctx, {}, { path: join(base, "runs/r5"), retainOnDelete: UNKNOWN })).failures).toBeUndefined();
  });
});

describe("checkKnown", () => {
  it("hands the check the known fields alone and drops the refusals of the unknown ones", () => {
    const seen: unknown[] = [];
    const check = (spec: Partial<{ image: string; lifetimeMs: number }>) => {
      seen.push(spec);
      return fail("invalid", "x", {
        refusals: [
          { field: "image", message: "image is required" },
          { field: "lifetimeMs", message: "lifetimeMs is required" },
        ],
      });
    };
    expect(checkKnown(check, { lifetimeMs: 5 }, new Set(["image"]))).toEqual([{ field: "lifetimeMs", message: "lifetimeMs is required" }]);
    expect(seen).toEqual([{ lifetimeMs: 5 }]);
  });
});

describe("knownRefusals", () => {
  it("drops the refusals of fields left out, and keeps the rest whatever their depth", () => {
    const refused = fail("invalid", "x", {
      refusals: [
        { field: "image", message: "image is required" },
        { field: "mount.path", message: "bad path" },
        { field: "host", message: "no seccomp" },
      ],
    });
    expect(knownRefusals(refused, new Set(["image"]))).toEqual([
      { field: "mount.path", message: "bad path" },
      { field: "host", message: "no seccomp" },
    ]);
    expect(knownRefusals(fail("invalid", "one", { field: "mount" }), new Set(["mount"]))).toEqual([]);
    expect(knownRefusals(ok(undefined), new Set())).toEqual([]);
  });
});
