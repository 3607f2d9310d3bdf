// Words that may cross a boundary (an error, a log line) with what could be a secret taken out:
// URLs (a signed URL is a key), logins, bearer tokens, secret-named parameters, key and token
// shapes, and host or IPv4 endpoints.

const RULES: Array<[RegExp, string]> = [
  // A URL whole: its query, its login or its path may carry a key.
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, "<url>"],
  // A login in user:password@host form outside a URL.
  [/\b[^\s:@/]+:[^\s:@/]+@[a-z0-9.-]+/gi, "<login>"],
  // A parameter whose name says secret, in key=value, key: value or "key": "value" form.
  [
    /(["']?)\b([a-z0-9_-]*(?:api[_-]?key|apikey|token|secret|password|passwd|pwd|credential|authorization|cookie|signature|session[_-]?id|access[_-]?key|private[_-]?key)[a-z0-9_-]*)\1(\s*[:=]\s*)((?:bearer|basic)\s+[^\s,;&)}\]]+|"[^"]*"|'[^']*'|[^\s,;&)}\]]+)/gi,
    "$1$2$1$3<redacted>",
  ],
  [/\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, "$1 <redacted>"],
  // Known key shapes: vendor prefixes, AWS access keys, JWTs.
  [/\b(?:sk|pk|rk|ak|as|e2b|dtn|kernel|bb|ghp|gho|ghs|ghu|github_pat|xox[abpr]|glpat)[-_][A-Za-z0-9_-]{12,}/g, "<redacted>"],
  [/\bAKIA[0-9A-Z]{16}\b/g, "<redacted>"],
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, "<redacted>"],
  // A long run of letters and digits together: a token's shape whatever its vendor.
  [/\b(?=[A-Za-z0-9_+/=-]*[0-9])(?=[A-Za-z0-9_+/=-]*[A-Za-z])[A-Za-z0-9_+/=-]{32,}/g, "<redacted>"],
  // Endpoints: IPv4 (with a port or not), bracketed IPv6, and host:port.
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g, "<address>"],
  [/\[[0-9a-f:.]+\](?::\d{1,5})?/gi, "<address>"],
  [/\b[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+:\d{1,5}\b/gi, "<endpoint>"],
];

/** The words with every URL, login, bearer, secret-named parameter, key shape and endpoint taken out. */
export function redactWords(words: string): string {
  return RULES.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), words);
}

/** The words with each of values (a configured key, a secret setting) replaced by marker wherever it stands. */
export function withoutValues(words: string, values: readonly string[], marker: string): string {
  return values.reduce((text, value) => (value === "" ? text : text.split(value).join(marker)), words);
}

/** A thrown value in words (its name when it has its own), with anything key-shaped taken out, on one line. */
export function errorWords(error: unknown): string {
  const text = error instanceof Error ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}` : String(error);
  return redactWords(text.replace(/\s+/g, " ").trim()).slice(0, 400);
}
