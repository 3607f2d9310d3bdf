// A browser on Docker without an engine: check refuses at preview, naming the field, what a
// browser does not take; its flags by network; the read-back's drift sentences by field.
import { describe, expect, it } from "vitest";
import { create } from "../../src/docker/create.js";
import type { NetworkPolicy } from "../../src/egress/network.js";
import { browserFlags as flagsOf } from "../../src/kits/browser/computer.js";
import { BROWSER_PROFILE } from "../../src/docker/constants.js";

const browserFlags = (network: NetworkPolicy) => flagsOf(network, BROWSER_PROFILE);
import { browserDrift, mainProcess, procRecords } from "../../src/kits/browser/chromium.js";

const docker = create({ daemonPath: "/nonexistent/computerd", engine: "unix:///nonexistent.sock", egress: { hostAddresses: ["203.0.113.7"] } });
const browser = { image: "chromium", lifetimeMs: 60_000, network: "none" as const, kind: "browser" as const };

describe("a Docker browser's check", () => {
  it("takes chromium with network none, open or an allowlist", () => {
    const networks: NetworkPolicy[] = ["none", "open", { allow: ["example.com", "*.example.org", "93.184.216.0/24"] }];
    for (const network of networks) expect(docker.check({ ...browser, network }).ok).toBe(true);
  });

  it.each([
    ["http://example.com", 'network.allow: "http://example.com" is a URL: list its host name alone'],
    ["0.0.0.0/0", 'network.allow: "0.0.0.0/0" is over 0.0.0.0/8, a reserved range the proxy never reaches'],
    ["*", 'network.allow: "*" has a * that is not a leading "*."'],
  ])("refuses the allowlist entry %s the proxy refuses, naming network", (entry, words) => {
    const checked = docker.check({ ...browser, network: { allow: [entry] } });
    expect(checked).toMatchObject({ ok: false, error: { field: "network", message: expect.stringContaining(words) } });
  });

  it.each([
    ["image", { image: "debian" }, "a Docker browser's image is chromium: Debian's Chromium, built by the provider (ask for image \"chromium\")"],
    ["memoryMb", { memoryMb: 256 }, "a browser needs memoryMb of at least 512: Chromium does not start in less"],
    ["pids", { pids: 64 }, "a browser needs pids of at least 128: Chromium runs a process per renderer"],
    ["user", { user: "root" }, "a browser runs as a user of its own, never root: ask for a uid (uid or uid:gid)"],
    ["user", { user: "0:0" }, "a browser runs as a user of its own, never root: ask for a uid (uid or uid:gid)"],
    ["mount", { mount: { kind: "bind", path: "/tmp/x" } }, "a browser takes no run folder: leave mount out"],
    ["workdir", { workdir: "/work" }, "a browser has no workdir: leave it out"],
    ["runtime", { runtime: "gvisor" }, "a Docker browser runs under runc alone: leave runtime out"],
  ] as const)("refuses %s in words naming it", (field, extra, words) => {
    const checked = docker.check({ ...browser, ...extra } as never);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.field).toBe(field);
    expect(checked.error.message).toContain(words);
  });

  it("refuses chromium for a linux computer's image no more than any name", () => {
    expect(docker.check({ ...browser, kind: "linux", image: "chromium" }).ok).toBe(true);
  });
});

describe("a Docker browser's flags and read-back", () => {
  it("sends every request of none to a closed port, an allowlist's to init's relay, and open's direct", () => {
    expect(browserFlags("none")).toEqual(expect.arrayContaining(["--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"]));
    expect(browserFlags({ allow: ["example.com"] })).toEqual(
      expect.arrayContaining(["--proxy-server=http://127.0.0.1:3128", "--proxy-bypass-list=<-loopback>"]),
    );
    expect(browserFlags("open").some((f) => f.startsWith("--proxy"))).toBe(false);
  });

  it("finds Chromium's main process in /proc's records, not its children", () => {
    const out = [
      "1\x01/opt/agentrun/computerd\0init\0",
      "7\x01/usr/lib/chromium/chromium\0--type=renderer\0",
      "5\x01/usr/lib/chromium/chromium\0--headless\0--proxy-server=127.0.0.1:9\0about:blank\0",
    ].join("\x02");
    expect(mainProcess(procRecords(out))).toEqual({ pid: 5, argv: ["/usr/lib/chromium/chromium", "--headless", "--proxy-server=127.0.0.1:9", "about:blank"] });
  });

  it("names each held flag that differs, one the browser runs with but was not given, and a browser that ended or does not answer", () => {
    const declared = browserFlags("none");
    expect(browserDrift(declared, { argv: ["/usr/lib/chromium/chromium", ...declared], browserPath: "/devtools/browser/x" })).toEqual([]);
    const opened = declared.filter((f) => !f.startsWith("--proxy")).concat("--host-resolver-rules=MAP * 10.0.0.1");
    expect(browserDrift(declared, { argv: ["chromium", ...opened] })).toEqual([
      'browser --proxy-server: not given, declared "127.0.0.1:9"',
      'browser --proxy-bypass-list: not given, declared "<-loopback>"',
      'browser --host-resolver-rules: "MAP * 10.0.0.1", declared not given',
      "the browser runs but its CDP does not answer on port 9222",
    ]);
    expect(browserDrift(declared, { ended: "Chromium was killed (SIGKILL: the kernel's out-of-memory killer, or a kill by hand)" })).toEqual([
      "the browser has ended: Chromium was killed (SIGKILL: the kernel's out-of-memory killer, or a kill by hand)",
    ]);
  });
});
