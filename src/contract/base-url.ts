// Where a vendor's key may be sent: https, or http to this machine's loopback alone (a fake).

/** Why a base URL may not carry the key: https, or http to this machine's loopback alone. */
export function baseProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a URL";
  }
  if (parsed.username || parsed.password) return "holds a user or password";
  if (parsed.protocol === "https:") return undefined;
  const loopback = parsed.hostname === "localhost" || parsed.hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(parsed.hostname);
  if (parsed.protocol === "http:" && loopback) return undefined;
  return "is neither https nor http to this machine's loopback, so the key is never sent to it";
}
