// The library's side of "Network none, read from inside": readNetworkNone run over a client that
// answers exec.run with lines computerd probe printed (test/vectors/probe-lines.json, recorded by
// daemon/internal/probe's vectors test, in a namespace of its own and against loopback stand-ins).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CallError, type ComputerClient } from "../../src/daemon/client.js";
import { DEFAULT_PROBE_TARGETS, MAX_PROBE_TARGETS, PROBE_TIMEOUT_MS, parseProbeLine, readNetworkNone } from "../../src/contract/probe.js";
import type { ExecRunResult } from "../../src/daemon/protocol.js";

interface Vector {
  name: string;
  args: string[];
  line: string;
}
const vectors = (JSON.parse(readFileSync(join(import.meta.dirname, "..", "vectors", "probe-lines.json"), "utf8")) as { lines: Vector[] }).lines;
const vector = (name: string) => {
  const v = vectors.find((x) => x.name.startsWith(name));
  if (!v) throw new Error(`no recorded line named ${name}`);
  return { ...v, targets: v.args.filter((_, i) => v.args[i - 1] === "--connect") };
};

const b64 = (s: string) => Buffer.from(s).toString("base64");
const exit = (code: number | null, stdout: string, stderr = "", more: Partial<ExecRunResult> = {}): ExecRunResult => ({
  exitCode: code,
  signal: null,
  stdout: b64(stdout),
  stderr: b64(stderr),
  timedOut: false,
  truncated: false,
  ...more,
});

/** A client whose exec.run answers with reply, recording what it was asked. */
function fakeClient(reply: (params: { argv: string[] }, signal?: AbortSignal) => Promise<ExecRunResult> | ExecRunResult) {
  const calls: Array<{ method: string; params: Record<string, unknown> }> = [];
  const client = {
    async call(method: string, params: Record<string, unknown>, options?: { signal?: AbortSignal }) {
      calls.push({ method, params });
      return reply(params as { argv: string[] }, options?.signal);
    },
    request: async () => ({}),
    close: async () => {},
  } as unknown as ComputerClient;
  return { client, calls };
}

const DAEMON = "/opt/agentrun/computerd";

describe("readNetworkNone", () => {
  it("runs computerd probe through exec.run for the default targets, as the user given, bounded at 30 s", async () => {
    const v = vector("own network: the default targets");
    const { client, calls } = fakeClient(() => exit(0, v.line + "\n"));
    const r = await readNetworkNone(client, { daemonPath: DAEMON, user: "2510:2510" });
    expect(r.ok).toBe(true);
    expect(calls).toEqual([
      {
        method: "exec.run",
        params: { argv: [DAEMON, "probe", ...DEFAULT_PROBE_TARGETS.flatMap((t) => ["--connect", t])], timeoutMs: PROBE_TIMEOUT_MS, user: "2510:2510" },
      },
    ]);
    expect(v.targets).toEqual(DEFAULT_PROBE_TARGETS);
  });

  it("keeps a computer none of whose targets answered, with no notes, its interfaces lo alone", async () => {
    for (const name of ["own network: the default targets", "own network: the vendor agent's ports"]) {
      const v = vector(name);
      const { client } = fakeClient(() => exit(0, v.line));
      const r = await readNetworkNone(client, { daemonPath: DAEMON, targets: v.targets, interfaces: ["lo"] });
      expect(r).toMatchObject({ ok: true, value: { notes: [], probe: { interfaces: ["lo"], reached: [], accepted: [] } } });
    }
  });

  it("refuses network none in words when a target answered, naming it and what came back", async () => {
    const v = vector("loopback: an HTTP answer and a DNS answer");
    const { client } = fakeClient(() => exit(0, v.line));
    const r = await readNetworkNone(client, { daemonPath: DAEMON, targets: v.targets });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("refused");
    expect(r.error.message).toContain("network none does not hold");
    expect(r.error.message).toContain(`${v.targets[0]} (an HTTP status line: HTTP/1.1 403 Forbidden, 26 bytes)`);
    expect(r.error.message).toContain(`${v.targets[1]} (a DNS response with the query's id`);
    expect(r.error.message).not.toContain(v.targets[2]);
  });

  it("keeps a computer whose targets only accepted and sent nothing back, and names them in its notes", async () => {
    const v = vector("loopback: accepted and closed");
    const { client } = fakeClient(() => exit(0, v.line));
    const r = await readNetworkNone(client, { daemonPath: DAEMON, targets: v.targets });
    expect(r).toEqual({
      ok: true,
      value: {
        probe: expect.objectContaining({ accepted: [v.targets[0]] }),
        notes: [`network: none; accepted with no answer (no bytes came back): ${v.targets[0]}`],
      },
    });
  });

  it("refuses interfaces other than those asked for, as drift", async () => {
    const v = vector("loopback: accepted and closed");
    const { client } = fakeClient(() => exit(0, v.line));
    const r = await readNetworkNone(client, { daemonPath: DAEMON, targets: v.targets, interfaces: ["lo"] });
    expect(r).toMatchObject({ ok: false, error: { code: "refused" } });
    if (!r.ok) expect(r.error.message).toMatch(/see the interfaces .*eth0.*, not lo alone/);
  });

  it("refuses what is not a read-back: a timeout, the daemon's refusal, another exit, no line, a short line", async () => {
    const v = vector("own network: the default targets");
    const cases: Array<{ result: ExecRunResult; code: string; words: RegExp; targets?: string[] }> = [
      { result: exit(null, "", "", { timedOut: true, signal: "KILL" }), code: "timeout", words: /did not finish within 30 s/ },
      {
        result: exit(2, "", 'computerd probe: --connect "x": it is not host:port\nusage: ...'),
        code: "invalid",
        words: /refused its targets: computerd probe: --connect "x": it is not host:port/,
      },
      {
        result: exit(1, "", "computerd probe: reading the network interfaces: EPERM"),
        code: "refused",
        words: /exited 1, so network none is not read back: .*EPERM/,
      },
      { result: exit(null, "", "", { signal: "KILL" }), code: "refused", words: /was ended by KILL/ },
      { result: exit(0, "Segmentation fault"), code: "protocol", words: /printed no JSON line: Segmentation fault/ },
      { result: exit(0, JSON.stringify({ ...JSON.parse(v.line), results: "none" })), code: "protocol", words: /results: / },
      { result: exit(0, v.line), code: "protocol", words: /reported 5 results for 1 targets/, targets: ["10.0.0.1:443"] },
    ];
    for (const { result, code, words, targets } of cases) {
      const { client } = fakeClient(() => result);
      const r = await readNetworkNone(client, { daemonPath: DAEMON, ...(targets ? { targets } : {}) });
      expect(r, words.source).toMatchObject({ ok: false, error: { code } });
      if (!r.ok) expect(r.error.message).toMatch(words);
    }
  });

  it("refuses no targets and more than the probe takes before any call", async () => {
    const { client, calls } = fakeClient(() => exit(0, "{}"));
    const many = Array.from({ length: MAX_PROBE_TARGETS + 1 }, (_, i) => `10.0.0.1:${i + 1}`);
    expect(await readNetworkNone(client, { daemonPath: DAEMON, targets: [] })).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(await readNetworkNone(client, { daemonPath: DAEMON, targets: many })).toMatchObject({
      ok: false,
      error: { code: "invalid", message: expect.stringContaining("at most 16") },
    });
    expect(calls).toEqual([]);
  });

  it("gives a failed call back as a result with its kind: the caller's abort, a closed connection", async () => {
    const controller = new AbortController();
    const hangs = fakeClient(
      (_, signal) => new Promise((_, reject) => signal?.addEventListener("abort", () => reject(new CallError("aborted", "exec.run was aborted", "exec.run")))),
    );
    const pending = readNetworkNone(hangs.client, { daemonPath: DAEMON, signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, error: { code: "aborted" } });
    const closed = fakeClient(() => Promise.reject(new CallError("closed", "exec.run was not sent: the connection ended", "exec.run")));
    expect(await readNetworkNone(closed.client, { daemonPath: DAEMON })).toMatchObject({
      ok: false,
      error: { code: "closed", message: expect.stringContaining("the connection ended") },
    });
  });
});

describe("parseProbeLine", () => {
  it("reads every recorded line, --diagnose's verdict among them", () => {
    for (const v of vectors) expect(parseProbeLine(v.line).ok, v.name).toBe(true);
    const d = parseProbeLine(vector("own network: --diagnose").line);
    expect(d).toMatchObject({ ok: true, value: { verdict: "none", interfaces: ["lo"] } });
    if (d.ok) expect(d.value.results.map((r) => r.target)).toHaveLength(12);
  });
});
