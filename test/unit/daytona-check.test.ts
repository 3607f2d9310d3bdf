// Daytona's check and options: every refusal in words, with no request, never the key.
import { describe, expect, it } from "vitest";
import { create } from "../../src/daytona/create.js";
import { installCommand, readInstall, startCommand } from "../../src/kits/agent-child/install.js";

const KEY = "dtn_secret_key_do_not_show";
const fetchNever = (() => {
  throw new Error("check made a request");
}) as unknown as typeof fetch;
const provider = create({ apiKey: KEY, daemonPath: "/nonexistent/computerd", fetch: fetchNever });
const good = { image: "default", lifetimeMs: 60_000, network: "none" as const };

function refusal(spec: object): { fields: string[]; message: string } {
  const checked = provider.check(spec as never);
  if (checked.ok) return { fields: [], message: "" };
  return { fields: (checked.error.refusals ?? [{ field: checked.error.field ?? "" }]).map((r) => r.field), message: checked.error.message };
}

describe("DaytonaProvider.create with a daemon that cannot be read", () => {
  it("is refused on daemonPath in words, with no request, and reads again on the next call", async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const made = await provider.create(good);
      expect(made).toMatchObject({ ok: false, error: { code: "invalid", field: "daemonPath" } });
      if (!made.ok)
        expect(made.error.message).toBe("the daemon at /nonexistent/computerd could not be read (ENOENT); build it with npm run setup, or give daemonPath");
    }
  });
});

describe("DaytonaProvider.check", () => {
  it("takes a snapshot, a lifetime and network none", () => {
    expect(provider.check(good)).toMatchObject({ ok: true, value: { spec: good } });
    expect(provider.check({ ...good, image: "my-snapshot", labels: { "agentrun.run": "r" }, kind: "linux" })).toMatchObject({
      ok: true,
      value: { spec: { ...good, image: "my-snapshot", labels: { "agentrun.run": "r" }, kind: "linux" } },
    });
    // The daemon's own user and workdir, as a host that fills in the defaults passes them back.
    expect(provider.check({ ...good, user: "2510", workdir: "/work", cpus: undefined })).toMatchObject({
      ok: true,
      value: { spec: { ...good, user: "2510", workdir: "/work", cpus: undefined } },
    });
  });

  it.each([
    [{ ...good, image: "" }, "image", /snapshot/],
    [{ ...good, lifetimeMs: 0 }, "lifetimeMs", /1 to/],
    [{ ...good, lifetimeMs: 30 * 86_400_000 + 1 }, "lifetimeMs", /30 days/],
    [{ ...good, network: "open" }, "network", /known gap/],
    [{ ...good, network: { allow: ["example.com"] } }, "network", /proxy/],
    [{ ...good, labels: { "agentrun.computer.deadline": "x" } }, "labels", /own namespace/],
    [
      { ...good, labels: { "agentrun.declaration": "x" } },
      "labels",
      /^the label agentrun.declaration is the provider's own \(it ties a computer to the resource it was made for\)/,
    ],
    [{ ...good, cpus: 2 }, "cpus", /snapshot's own/],
    [{ ...good, memoryMb: 2048 }, "memoryMb", /snapshot's own/],
    [{ ...good, pids: 10 }, "pids", /snapshot's own/],
    [{ ...good, user: "1000" }, "user", /daemonUser/],
    [{ ...good, workdir: "/tmp" }, "workdir", /\/work/],
    [{ ...good, mount: { kind: "bind", path: "/tmp/x" } }, "mount", /kind bind/],
    [{ ...good, kind: "desktop" }, "kind", /linux/],
    [{ ...good, colour: "red" }, "colour", /not a field/],
  ])("refuses %j on %s", (spec, field, words) => {
    const r = refusal(spec);
    expect(r.fields).toContain(field);
    expect(r.message).toMatch(words);
  });

  it("refuses without a key, a bad apiUrl or a root daemon user, never echoing the key", () => {
    expect(() => create({ apiKey: "", daemonPath: "x" })).toThrow(/apiKey/);
    expect(() => create({ apiKey: KEY, daemonPath: "x", apiUrl: "http://example.com/api" })).toThrow(/neither https nor http to this machine's loopback/);
    expect(() => create({ apiKey: KEY, daemonPath: "x", daemonUser: "0:0" })).toThrow(/root/);
    expect(() => create({ apiKey: KEY, daemonPath: "x", autoStopMinutes: -1 })).toThrow(/whole number/);
    // Each is refused (a create that takes it fails here), and its words hold no key.
    for (const bad of [{ apiUrl: "http://example.com/api" }, { daemonUser: "0" }, { arch: "x86" }]) {
      const refusal = (() => {
        try {
          create({ apiKey: KEY, daemonPath: "x", ...(bad as object) });
        } catch (error) {
          return (error as Error).message;
        }
        return undefined;
      })();
      expect(refusal, JSON.stringify(bad)).toMatch(/\w/);
      expect(refusal).not.toContain(KEY);
    }
  });

  it("declares the toolbox's port and a child daemon; a stop deletes with autoDeleteMinutes 0", () => {
    expect(provider.capabilities()).toMatchObject({ daemon: "child", vendorAgentPorts: [2280], network: ["none"], lifetime: "vendor", stopDeletes: false });
    expect(create({ apiKey: KEY, daemonPath: "x", autoDeleteMinutes: 0 }).capabilities().stopDeletes).toBe(true);
  });
});

describe("src/kits/agent-child/install.ts", () => {
  it("starts init with its deadline, user, own network and maximum", () => {
    const command = startCommand({ deadline: "2026-12-01T04:00:00.000Z", maxDeadline: "2026-12-01T04:00:00.000Z", user: "2510:2510" });
    // The root script is itself one quoted word of sh -c: unquote its quotes to read its argv.
    const script = command.replaceAll(`'\\''`, "'");
    expect(script).toContain(
      "'/opt/agentrun/computerd' 'init' '--deadline' '2026-12-01T04:00:00.000Z' '--user' '2510:2510' '--own-network' '--max-deadline' '2026-12-01T04:00:00.000Z'",
    );
    expect(command).toContain("env -i");
    expect(command).toContain("sudo -n");
  });

  it("reads the installed sha256, and refuses another or a refusal in the script's words", () => {
    const sha = "a".repeat(64);
    expect(readInstall(0, `agentrun-installed-sha256 ${sha}\n`, sha)).toEqual({ ok: true, value: { sha256: sha } });
    expect(readInstall(0, `agentrun-installed-sha256 ${"b".repeat(64)}\n`, sha)).toMatchObject({ ok: false, error: { code: "refused" } });
    expect(readInstall(5, "agentrun-refused: /opt reads drwxrwxr-x: a link, an ACL, or writable by a group or another user\n", sha)).toMatchObject({
      ok: false,
      error: { code: "refused", message: expect.stringMatching(/\/opt reads drwxrwxr-x/) },
    });
    expect(installCommand("/tmp/agentrun-computerd-x")).toContain("'/tmp/agentrun-computerd-x'");
  });
});
