// A list's name as computerd egress --allow-file logs the list it holds: FNV-1a 64 of its
// normalized entries (checkAllowlist's), one a line, in 16 hex digits. It says which list a
// running proxy holds to a reader who knows the list; it is no secret and no check.
export function listDigest(entries: readonly string[]): string {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(entries.join("\n"))) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  return h.toString(16).padStart(16, "0");
}
