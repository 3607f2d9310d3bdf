// One table, two languages: src/egress/ held to the address table and allowlist verdicts
// computerd's Go code writes (test/vectors/egress.json): the same rows, written forms,
// classes, entry and list verdicts, and test networks.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ADDRESS_CLASSES, ADDRESS_TABLE, classify, parseAddress, parseHost, formatAddress } from "../../src/egress/address.js";
import { judgeTarget } from "../../src/egress/target.js";
import { ALLOW_REFUSAL_KINDS, checkAllowlist, checkTestNetwork, DEFAULT_HINT, EGRESS_PORTS, hintProblem, MAX_EACH, MAX_HINT } from "../../src/egress/list.js";

interface Vectors {
  ports: number[];
  maxEach: number;
  classes: string[];
  table: Array<{ prefix: string; class: string }>;
  written: Array<{ written: string; address: string }>;
  addresses: Array<{ address: string; class: string }>;
  entries: Array<{ entry: string; reachable?: string; ok: boolean; as?: string; kind?: string; class?: string }>;
  lists: Array<{ entries: string[]; ok: boolean; as?: string[]; kinds?: string[] }>;
  targets: Array<{ list: string[]; target: string; class?: string; listed: boolean }>;
  reachable: Array<{ range: string; ok: boolean }>;
  hint: { default: string; max: number };
}

const vectors = JSON.parse(readFileSync(join(import.meta.dirname, "..", "vectors", "egress.json"), "utf8")) as Vectors;

describe("the egress table, held to computerd's", () => {
  it("has the same rows, classes, ports and bound", () => {
    expect(ADDRESS_TABLE.map((r) => ({ prefix: r.prefix, class: r.class }))).toEqual(vectors.table);
    expect([...ADDRESS_CLASSES]).toEqual(vectors.classes);
    expect([...EGRESS_PORTS]).toEqual(vectors.ports);
    expect(MAX_EACH).toBe(vectors.maxEach);
    expect({ default: DEFAULT_HINT, max: MAX_HINT }).toEqual(vectors.hint);
  });

  it.each(vectors.written)("reads $written as $address", ({ written, address }) => {
    const host = parseHost(written);
    if (address === "") expect(host).toBeUndefined();
    else {
      expect(host && "address" in host).toBe(true);
      const a = (host as { address: { bits: 32 | 128; value: bigint } }).address;
      const unmapped = a.bits === 128 && a.value >> 32n === 0xffffn ? { bits: 32 as const, value: a.value & 0xffffffffn } : a;
      expect(formatAddress(unmapped)).toBe(address);
    }
  });

  it.each(vectors.addresses)("classifies $address as $class", ({ address, class: c }) => {
    expect(classify(parseAddress(address)!)).toBe(c);
  });
});

describe("an allowlist, held to computerd's verdicts", () => {
  it.each(vectors.entries)("judges $entry (test network $reachable)", ({ entry, reachable, ok, as, kind, class: c }) => {
    const got = checkAllowlist([entry], reachable === undefined ? {} : { testNetwork: reachable });
    if (ok) expect(got).toEqual({ ok: true, entries: [as] });
    else {
      expect(got.ok).toBe(false);
      const r = (got as { refusals: Array<{ kind: string; class?: string; message: string }> }).refusals;
      expect(r.map((x) => [x.kind, x.class])).toEqual([[kind, c]]);
      expect(r[0]!.message.length).toBeGreaterThan(10);
    }
  });

  it.each(vectors.lists.map((l, i) => ({ ...l, i, n: l.entries.length })))("judges list $i ($n entries)", ({ entries, ok, as, kinds }) => {
    const got = checkAllowlist(entries);
    if (ok) expect(got).toEqual({ ok: true, entries: as });
    else expect((got as { refusals: Array<{ kind: string }> }).refusals.map((r) => r.kind)).toEqual(kinds);
  });

  it.each(vectors.targets)("judges the target $target", ({ list, target, class: c, listed }) => {
    expect(judgeTarget(list, target)).toEqual(c === undefined ? { listed } : { class: c, listed });
  });

  it.each(vectors.reachable)("takes $range as a test network: $ok", ({ range, ok }) => {
    expect(checkTestNetwork(range, { testOnly: true }) === undefined).toBe(ok);
  });

  it("every kind the Go side gives is one the TypeScript side names", () => {
    const kinds = new Set([...vectors.entries.map((e) => e.kind), ...vectors.lists.flatMap((l) => l.kinds ?? [])].filter(Boolean));
    for (const k of kinds) expect(ALLOW_REFUSAL_KINDS).toContain(k);
  });
});

describe("check's words", () => {
  it("refuses a test network unless the test-only setting is on", () => {
    expect(checkTestNetwork("10.213.0.0/24")).toMatch(/test-only setting/);
    expect(checkTestNetwork("10.213.0.0/24", { testOnly: false })).toMatch(/test-only setting/);
    expect(checkTestNetwork("10.213.0.0/24", { testOnly: true })).toBeUndefined();
  });

  it("refuses what is not a list of strings", () => {
    expect(checkAllowlist("pypi.org")).toEqual({ ok: false, refusals: [{ kind: "not-a-list", message: expect.stringMatching(/is a list/) }] });
    expect(checkAllowlist(["pypi.org", 3])).toMatchObject({ ok: false, refusals: [{ kind: "not-a-list" }] });
  });

  it("says every refusal together, each naming its entry", () => {
    const got = checkAllowlist(["https://pypi.org/simple", "pypi.org:443", "10.0.0.0/8", "93.184.215.14", "pypi.org"]);
    expect(got.ok).toBe(false);
    const messages = (got as { refusals: Array<{ message: string }> }).refusals.map((r) => r.message);
    expect(messages).toEqual([
      '"https://pypi.org/simple" is a URL: list its host name alone (the proxy takes ports 80 and 443)',
      '"pypi.org:443" has a port: list the host alone (the proxy takes ports 80 and 443 on every entry)',
      '"10.0.0.0/8" is over 10.0.0.0/8, a private range the proxy never reaches',
      '"93.184.215.14" is an address with no prefix: write it as a CIDR, such as 93.184.215.14/32',
    ]);
  });

  it("takes a hint of printable ASCII up to its bound, and nothing else", () => {
    expect(hintProblem(DEFAULT_HINT)).toBeUndefined();
    expect(hintProblem("x".repeat(MAX_HINT))).toBeUndefined();
    expect(hintProblem("x".repeat(MAX_HINT + 1))).toMatch(/more than 512/);
    expect(hintProblem("ask\nme")).toMatch(/printable ASCII/);
    expect(hintProblem("café")).toMatch(/printable ASCII/);
  });

  it("refuses an empty list, pointing at none", () => {
    expect(checkAllowlist([])).toEqual({ ok: false, refusals: [{ kind: "empty", message: expect.stringMatching(/ask for none/) }] });
  });
});
