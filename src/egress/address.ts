// The egress proxy's address table, as computerd's (daemon/internal/egress/addr) holds it: the
// class of every address the proxy refuses, and the written forms of an address a client can
// send. test/unit/egress-vectors.test.ts holds this file to the Go table row for row.
import { isIPv6 } from "node:net";

export const ADDRESS_CLASSES = ["public", "private", "loopback", "link-local", "metadata", "multicast", "reserved", "this-host"] as const;
export type AddressClass = (typeof ADDRESS_CLASSES)[number];

/** An address: its family's bits (32 or 128) and its value. */
export interface Address {
  bits: 32 | 128;
  value: bigint;
}

/** A range: an address and how many leading bits are fixed. */
export interface Prefix {
  addr: Address;
  length: number;
}

export interface Row {
  prefix: string;
  class: Exclude<AddressClass, "public" | "this-host">;
}

/** Every range an address is refused in, in the Go table's order; an address in none is public. */
export const ADDRESS_TABLE: readonly Row[] = [
  { prefix: "0.0.0.0/8", class: "reserved" },
  { prefix: "0.0.0.0/32", class: "loopback" },
  { prefix: "10.0.0.0/8", class: "private" },
  { prefix: "100.64.0.0/10", class: "private" },
  { prefix: "100.100.100.200/32", class: "metadata" },
  { prefix: "127.0.0.0/8", class: "loopback" },
  { prefix: "168.63.129.16/32", class: "metadata" },
  { prefix: "169.254.0.0/16", class: "link-local" },
  { prefix: "169.254.169.254/32", class: "metadata" },
  { prefix: "169.254.170.2/32", class: "metadata" },
  { prefix: "172.16.0.0/12", class: "private" },
  { prefix: "192.0.0.0/24", class: "reserved" },
  { prefix: "192.0.2.0/24", class: "reserved" },
  { prefix: "192.88.99.0/24", class: "reserved" },
  { prefix: "192.168.0.0/16", class: "private" },
  { prefix: "198.18.0.0/15", class: "reserved" },
  { prefix: "198.51.100.0/24", class: "reserved" },
  { prefix: "203.0.113.0/24", class: "reserved" },
  { prefix: "224.0.0.0/4", class: "multicast" },
  { prefix: "240.0.0.0/4", class: "reserved" },
  { prefix: "::/3", class: "reserved" },
  { prefix: "::/128", class: "loopback" },
  { prefix: "::1/128", class: "loopback" },
  { prefix: "::ffff:0.0.0.0/96", class: "reserved" },
  { prefix: "64:ff9b::/96", class: "reserved" },
  { prefix: "64:ff9b:1::/48", class: "reserved" },
  { prefix: "100::/64", class: "reserved" },
  { prefix: "2001::/23", class: "reserved" },
  { prefix: "2001:db8::/32", class: "reserved" },
  { prefix: "2002::/16", class: "reserved" },
  { prefix: "3fff::/20", class: "reserved" },
  { prefix: "4000::/2", class: "reserved" },
  { prefix: "5f00::/16", class: "reserved" },
  { prefix: "8000::/1", class: "reserved" },
  { prefix: "fc00::/7", class: "private" },
  { prefix: "fd00:ec2::254/128", class: "metadata" },
  { prefix: "fe80::/10", class: "link-local" },
  { prefix: "fec0::/10", class: "reserved" },
  { prefix: "ff00::/8", class: "multicast" },
];

const V4 = /^(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})$/;

/** An address in its canonical form alone (dotted decimal with no leading zeros, or IPv6 with no zone), as Go's netip.ParseAddr takes it. */
export function parseAddress(s: string): Address | undefined {
  const m = V4.exec(s);
  if (m) {
    const parts = m.slice(1).map(Number);
    if (parts.some((p) => p > 255)) return undefined;
    return { bits: 32, value: parts.reduce((a, p) => (a << 8n) | BigInt(p), 0n) };
  }
  if (s.includes("%") || !isIPv6(s)) return undefined;
  let text = s;
  let tail: bigint | undefined;
  const lastColon = s.lastIndexOf(":");
  if (s.slice(lastColon + 1).includes(".")) {
    const v4 = parseAddress(s.slice(lastColon + 1));
    if (!v4 || v4.bits !== 32) return undefined;
    tail = v4.value;
    text = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const [left, right] = text.includes("::") ? text.split("::") : [text, undefined];
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const l = groups(left!);
  const r = right === undefined ? [] : groups(right);
  const fill = right === undefined ? 0 : 8 - l.length - r.length;
  const all = [...l, ...Array<string>(fill).fill("0"), ...r];
  if (all.length !== 8) return undefined;
  let value = all.reduce((a, g) => (a << 16n) | BigInt(parseInt(g, 16)), 0n);
  if (tail !== undefined) value = (value & ~0xffffffffn) | tail;
  return { bits: 128, value };
}

/** A CIDR as Go's netip.ParsePrefix takes it: a canonical address, then / and a length with no leading zero. */
export function parsePrefix(s: string): Prefix | undefined {
  const slash = s.indexOf("/");
  if (slash < 0) return undefined;
  const addr = parseAddress(s.slice(0, slash));
  const lengthText = s.slice(slash + 1);
  if (!addr || !/^(0|[1-9][0-9]*)$/.test(lengthText) || lengthText.length > 3) return undefined;
  const length = Number(lengthText);
  if (length > addr.bits) return undefined;
  return { addr, length };
}

const mask = (bits: number, length: number): bigint => (length === 0 ? 0n : ((1n << BigInt(length)) - 1n) << BigInt(bits - length));

export function masked(p: Prefix): Prefix {
  return { addr: { bits: p.addr.bits, value: p.addr.value & mask(p.addr.bits, p.length) }, length: p.length };
}

export function contains(p: Prefix, a: Address): boolean {
  return p.addr.bits === a.bits && (a.value & mask(a.bits, p.length)) === masked(p).addr.value;
}

export function overlaps(p: Prefix, q: Prefix): boolean {
  if (p.addr.bits !== q.addr.bits) return false;
  const shorter = p.length <= q.length ? p : q;
  const other = shorter === p ? q : p;
  return contains(shorter, other.addr);
}

/** An address written as Go's netip writes it: dotted decimal, or RFC 5952's compressed IPv6 (IPv4-mapped with a dotted tail). */
export function formatAddress(a: Address): string {
  const v4 = (v: bigint) => [24n, 16n, 8n, 0n].map((s) => Number((v >> s) & 0xffn)).join(".");
  if (a.bits === 32) return v4(a.value);
  const groups = Array.from({ length: 8 }, (_, i) => Number((a.value >> BigInt(112 - 16 * i)) & 0xffffn));
  if (a.value >> 32n === 0xffffn) return `::ffff:${v4(a.value & 0xffffffffn)}`;
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j;
  }
  const hex = (g: number[]) => g.map((x) => x.toString(16)).join(":");
  return best < 0 ? hex(groups) : `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLength))}`;
}

export function formatPrefix(p: Prefix): string {
  return `${formatAddress(p.addr)}/${p.length}`;
}

type Ranged = Row & { range: Prefix };
let parsed: { rows: Ranged[]; mapped: Prefix; nat64: Prefix[]; sixToFour: Prefix } | undefined;
/**
 * The table's rows and the ranges a class reads, parsed at first use: that runs Node's IPv6
 * pattern some fifty times (a tenth of a preview's first Check), which a check that classifies no
 * address never needs.
 */
const ranges = () =>
  (parsed ??= {
    rows: ADDRESS_TABLE.map((row) => ({ ...row, range: parsePrefix(row.prefix)! })),
    mapped: parsePrefix("::ffff:0.0.0.0/96")!,
    nat64: [parsePrefix("64:ff9b::/96")!, parsePrefix("64:ff9b:1::/48")!],
    sixToFour: parsePrefix("2002::/16")!,
  });

/** An IPv4-mapped address as its IPv4 address; any other as it is. */
export function unmap(a: Address): Address {
  return contains(ranges().mapped, a) ? { bits: 32, value: a.value & 0xffffffffn } : a;
}

/** The IPv4 address a NAT64 (its last 32 bits) or 6to4 (bits 16 to 47) address carries. */
function embedded(a: Address): Address | undefined {
  const { nat64, sixToFour } = ranges();
  if (nat64.some((p) => contains(p, a))) return { bits: 32, value: a.value & 0xffffffffn };
  if (contains(sixToFour, a)) return { bits: 32, value: (a.value >> 80n) & 0xffffffffn };
  return undefined;
}

/** An address's class by the table: the longest row holding it; NAT64 and 6to4 take their embedded address's class when that is refused. */
export function classify(address: Address): AddressClass {
  const a = unmap(address);
  let best: Ranged | undefined;
  for (const row of ranges().rows) {
    if (contains(row.range, a) && (!best || row.range.length > best.range.length)) best = row;
  }
  if (!best) return "public";
  const inner = embedded(a);
  if (inner) {
    const c = classify(inner);
    if (c !== "public") return c;
  }
  return best.class;
}

/** The row a range shares an address with: the longest row holding it whole, else the first row inside it. */
export function overlapOf(p: Prefix): Row | undefined {
  const q = masked(p);
  let holder: Ranged | undefined;
  let inside: Ranged | undefined;
  for (const row of ranges().rows) {
    if (!overlaps(row.range, q)) continue;
    if (row.range.length <= q.length) {
      if (!holder || row.range.length > holder.range.length) holder = row;
    } else inside ??= row;
  }
  const row = holder ?? inside;
  return row && { prefix: formatPrefix(row.range), class: row.class };
}

export type Host = { address: Address } | { name: string };

/** A part inet_aton would read as a number: digits, or 0x and hex digits. */
const numeric = (p: string) => /^(0[xX][0-9a-fA-F]*|[0-9]+)$/.test(p);
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

function numberOf(p: string): bigint | undefined {
  const hex = /^0[xX]/.test(p);
  const digits = hex ? p.slice(2) : p.length > 1 && p.startsWith("0") ? p.slice(1) : p;
  if (hex && digits === "") return 0n;
  if (!hex && p.length > 1 && p.startsWith("0") && !/^[0-7]+$/.test(digits)) return undefined;
  const n = BigInt(hex ? `0x${digits}` : p.length > 1 && p.startsWith("0") ? `0o${digits}` : digits);
  return n <= 0xffffffffn ? n : undefined;
}

/**
 * A host as the proxy reads it (Go's addr.ParseHost): [v6] or a v6 address; an IPv4 address in
 * any form inet_aton takes (2130706433, 0177.0.0.1, 0x7f.1); else a name in lower case. A name
 * whose last label is a number is malformed unless it is such an address.
 */
export function parseHost(s: string): Host | undefined {
  if (s.startsWith("[") && s.endsWith("]")) {
    const a = parseAddress(s.slice(1, -1));
    return a?.bits === 128 ? { address: a } : undefined;
  }
  if (s.includes(":")) {
    const a = parseAddress(s);
    return a?.bits === 128 ? { address: a } : undefined;
  }
  const t = s.endsWith(".") ? s.slice(0, -1) : s;
  if (t === "" || t.length > 253) return undefined;
  const labels = t.split(".");
  if (numeric(labels[labels.length - 1]!)) {
    if (labels.length > 4 || !labels.every(numeric)) return undefined;
    const values = labels.map(numberOf);
    if (values.some((v) => v === undefined)) return undefined;
    const last = labels.length - 1;
    if (values.slice(0, last).some((v) => v! > 255n)) return undefined;
    if (values[last]! >= 1n << BigInt(8 * (4 - last))) return undefined;
    let value = values[last]!;
    values.slice(0, last).forEach((v, i) => (value |= v! << BigInt(24 - 8 * i)));
    return { address: { bits: 32, value } };
  }
  if (!labels.every((l) => LABEL.test(l))) return undefined;
  return { name: t.toLowerCase() };
}
