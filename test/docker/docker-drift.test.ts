// Drift on the real engine: computers changed by hand are refused by attach, naming each
// mismatch, and left as they are; a daemon of another version is refused at create, and the
// computer is gone.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driftedProvider, ensureImage, recipeTag } from "../../src/docker/index.js";
import { cleanup, DAEMON, docker, IMAGE, provider, spec, testLabel, toolchain, withLabel } from "../support/docker-helpers.js";

const made = cleanup();

async function running(labels: Record<string, string>) {
  const docker_ = provider();
  const result = await docker_.create(spec({ labels }));
  if (!result.ok) throw new Error(result.error.message);
  made.track(result.value.name);
  return { docker_, ref: result.value };
}

describe("a computer changed by hand", () => {
  it("with its memory updated is refused by attach, naming each mismatch, and left running", async () => {
    const { docker_, ref } = await running(testLabel());
    docker("update", "--memory", "1g", "--memory-swap", "1g", ref.name);
    const attached = await docker_.attach({ id: ref.name });
    expect(attached).toMatchObject({ ok: false, error: { code: "refused" } });
    if (attached.ok) return;
    expect(attached.error.message).toMatch(new RegExp(`^${ref.name} is not what was declared \\(left as it is\\): `));
    // The memory the update changed, never /work's size that follows it.
    expect(attached.error.message).toContain("HostConfig.Memory is 1024 MiB, not the 4096 MiB the computer was made with (/work's tmpfs is sized for it)");
    expect(attached.error.message).not.toContain("HostConfig.Tmpfs");
    expect(docker("inspect", "--format", "{{.State.Running}}", ref.name)).toBe("true");
    // read() hands back what attach refused: the spec as read back, field by field, and each mismatch.
    const read = await docker_.read({ id: ref.name });
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.ref.spec).toMatchObject({ memoryMb: 1024, cpus: 2, pids: 1024, network: "none", user: "1000:1000" });
    expect(read.value.state).toBe("running");
    expect(attached.error.message).toBe(`${ref.name} is not what was declared (left as it is): ${read.value.drift.join("; ")}`);
  });

  it("with a restart policy added is refused by attach and left running", async () => {
    const { docker_, ref } = await running(testLabel());
    docker("update", "--restart", "always", ref.name);
    const attached = await docker_.attach({ id: ref.name });
    expect(attached).toMatchObject({ ok: false, error: { code: "refused" } });
    if (!attached.ok) {
      expect(attached.error.message).toContain('HostConfig.RestartPolicy is {"Name":"always","MaximumRetryCount":0}, not {"Name":"no"}');
    }
    expect(docker("inspect", "--format", "{{.State.Running}}", ref.name)).toBe("true");
  });

  it("with network none cannot be put on the bridge by hand on this engine, and still reads back none", async () => {
    // Engine 20.10 refuses the connect outright; the drift check's sentence for a none computer on
    // the bridge is held in test/unit/docker-drift-recorded.test.ts on a recorded inspect.
    const { docker_, ref } = await running(testLabel());
    expect(() => execFileSync("docker", ["network", "connect", "bridge", ref.name], { stdio: "pipe" })).toThrow(/private \(none\) mode/);
    expect(await docker_.network(ref)).toEqual({ ok: true, value: "none" });
    expect((await docker_.attach({ id: ref.name })).ok).toBe(true);
  });

  it("whose /work was opened to others is refused by attach, read from inside", async () => {
    const { docker_, ref } = await running(testLabel());
    docker("exec", ref.name, "chmod", "0755", "/work");
    const attached = await docker_.attach({ id: ref.name });
    expect(attached).toMatchObject({ ok: false, error: { code: "refused" } });
    if (!attached.ok) expect(attached.error.message).toContain("/work reads mode 0755 from inside, not 0700: it is the user's alone");
  });
});

describe("a daemon of another version (the drifted provider)", () => {
  let dir: string;
  let drifted: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "agentrun-drifted-"));
    drifted = path.join(dir, "computerd-drifted");
    execFileSync(
      "go",
      ["build", "-trimpath", "-ldflags", "-s -w -X agentrun.dev/computerd/internal/version.Version=0.0.0-drifted", "-o", drifted, "./cmd/computerd"],
      {
        cwd: path.join(toolchain.root, "daemon"),
        env: { ...process.env, CGO_ENABLED: "0", GOOS: "linux", GOARCH: "amd64" },
        stdio: "pipe",
      },
    );
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is refused at create, and the computer is gone", async () => {
    const labels = testLabel();
    const result = await provider({ daemonPath: drifted }).create(spec({ labels }));
    if (result.ok) made.track(result.value.name);
    expect(result).toMatchObject({ ok: false, error: { code: "refused" } });
    if (!result.ok)
      expect(result.error.message).toMatch(/is not what was declared, so it was deleted: the daemon is version 0\.0\.0-drifted, not the provider's 0\.1\.0/);
    expect(withLabel(labels)).toEqual([]);
  });
});

describe("driftedProvider, as the conformance module builds it", () => {
  it("has every computer refused and deleted at create, and connect refuses a computer of the provider's daemon", async () => {
    const labels = testLabel();
    const drifted = driftedProvider({ daemonPath: DAEMON });
    const made_ = await drifted.create(spec({ labels }));
    if (made_.ok) made.track(made_.value.name);
    expect(made_).toMatchObject({ ok: false, error: { code: "refused" } });
    if (!made_.ok) expect(made_.error.message).toMatch(/the daemon is version 0\.1\.0, not the provider's 0\.1\.0-drifted/);
    expect(withLabel(labels)).toEqual([]);

    const { ref } = await running(labels);
    const connected = await drifted.connect(ref);
    expect(connected).toMatchObject({ ok: false, error: { code: "refused" } });
    if (!connected.ok)
      expect(connected.error.message).toBe(
        `the daemon in ${ref.name} is not the provider's: version 0.1.0, not the provider's 0.1.0-drifted; make a new computer with this provider`,
      );
  });
});

describe("images that would make a computer wider than declared", () => {
  const recipes = [`FROM ${IMAGE}\nVOLUME /data\n`, `FROM ${IMAGE}\nRUN mkdir -m 0755 /work\n`];
  afterAll(() => {
    for (const recipe of recipes) execFileSync("docker", ["rmi", "--force", recipeTag(recipe)], { stdio: "ignore" });
  });

  it("the provider's own image (its default recipe) makes a computer that attaches as declared", async () => {
    const docker_ = provider();
    const image = await docker_.image();
    if (!image.ok) throw new Error(image.error.message);
    const result = await docker_.create(spec({ image: image.value }));
    if (result.ok) made.track(result.value.name);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (result.ok) expect(await docker_.attach({ id: result.value.name })).toEqual({ ok: true, value: result.value });
  }, 600_000);

  it("an image that declares a VOLUME is refused at create, and nothing is left", async () => {
    const image = await ensureImage({ recipe: recipes[0]! });
    if (!image.ok) throw new Error(image.error.message);
    const labels = testLabel();
    const result = await provider().create(spec({ labels, image: image.value }));
    if (result.ok) made.track(result.value.name);
    expect(result).toMatchObject({ ok: false, error: { code: "refused" } });
    if (!result.ok) {
      expect(result.error.message).toContain("Mounts holds another mount: a volume at /data (an image's VOLUME is drift too)");
      expect(result.error.message).toContain('Config.Volumes is {"/data":{}}, and must be empty');
    }
    expect(withLabel(labels)).toEqual([]);
  }, 60_000);

  it("an image with its own 0755 /work still gives a home of 0700, read from inside", async () => {
    const image = await ensureImage({ recipe: recipes[1]! });
    if (!image.ok) throw new Error(image.error.message);
    const docker_ = provider();
    const result = await docker_.create(spec({ image: image.value }));
    if (result.ok) made.track(result.value.name);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    expect(docker("exec", result.value.name, "stat", "-c", "%a %u:%g", "/work")).toBe("700 1000:1000");
    expect((await docker_.attach({ id: result.value.name })).ok).toBe(true);
  }, 60_000);
});
