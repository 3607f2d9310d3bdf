// Rules finer than a host, and credentials bound to hosts, on an egress proxy's list: what a
// declaration may hold, refused field by field as computerd's proxy refuses its --rule argv
// (daemon/internal/egress/allow/rules.go; test/vectors/egress-rules.json holds both to the
// same verdicts), and the argv and environment the proxy is given.
import { z } from "zod";
import type { Refusal } from "../daemon/result.js";

/** The methods a rule may name. */
export const RULE_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
/** Headers a credential never sets: the proxy frames the request and ends every hop-by-hop header itself. */
export const FORBIDDEN_HEADERS = [
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "proxy-connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "upgrade",
] as const;
export const RULE_BOUNDS = { rules: 256, paths: 32, path: 1024, credentials: 64, value: 4096, header: 128 } as const;
/** The variable the proxy reads its credentials from: never its argv, which the read-back shows. */
export const CREDENTIALS_ENV = "AGENTRUN_EGRESS_CREDENTIALS";

/** One host's allowance: methods (default any) on path prefixes (default every path). */
export const EGRESS_RULE = z.strictObject({
  host: z.string(),
  methods: z.array(z.string()).optional(),
  paths: z.array(z.string()).optional(),
});
export type EgressRule = z.infer<typeof EGRESS_RULE>;
/** A header the proxy sets on every request to host, replacing the computer's own; value is a secret. */
export const EGRESS_CREDENTIAL = z.strictObject({ host: z.string(), header: z.string(), value: z.string() });
export type EgressCredential = z.infer<typeof EGRESS_CREDENTIAL>;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Why a rule's or credential's host cannot be judged: it must be a name or *.suffix of the normalized list. */
export function hostProblem(host: string, list: readonly string[]): string | undefined {
  if (list.includes(host) && !host.includes("/")) return undefined;
  return `host ${JSON.stringify(host)} is not a name or *.suffix on the list as written (lower case)`;
}

export function methodProblem(method: string): string | undefined {
  return (RULE_METHODS as readonly string[]).includes(method) ? undefined : `method ${JSON.stringify(method)} is not one of ${RULE_METHODS.join(", ")}`;
}

const dotSegment = (p: string) => p.split("/").some((s) => s === "." || s === "..");

export function pathProblem(path: string): string | undefined {
  const p = JSON.stringify(path);
  if (!path.startsWith("/")) return `path ${p} does not start with /`;
  if (path.length > RULE_BOUNDS.path) return `path is ${path.length} bytes, more than ${RULE_BOUNDS.path}`;
  if (/[?#%\\]/.test(path)) return `path ${p} holds ?, #, % or \\: give the path alone, as sent, unescaped`;
  if (dotSegment(path)) return `path ${p} holds a . or .. segment`;
  if (!/^[\x21-\x7e]*$/.test(path)) return `path ${p} is printable ASCII with no space alone`;
  return undefined;
}

export function headerProblem(header: string): string | undefined {
  if (header.length === 0 || header.length > RULE_BOUNDS.header || !TOKEN.test(header))
    return `header ${JSON.stringify(header)} is not a header name (a token of at most ${RULE_BOUNDS.header} bytes)`;
  if ((FORBIDDEN_HEADERS as readonly string[]).includes(header.toLowerCase()))
    return `header ${JSON.stringify(header)} is one the proxy sets or ends itself (${FORBIDDEN_HEADERS.join(", ")}), never a credential`;
  return undefined;
}

/** Never the value's own bytes in its words. */
export function valueProblem(value: string): string | undefined {
  if (value.length === 0 || value.length > RULE_BOUNDS.value) return `the value is 1 to ${RULE_BOUNDS.value} bytes`;
  if (!/^[\x20-\x7e]*$/.test(value)) return "the value is printable ASCII alone";
  if (value.startsWith(" ") || value.endsWith(" ")) return "the value neither starts nor ends with a space";
  return undefined;
}

/**
 * Every refusal of a proxy's rules and credentials, each naming its field (rules[0].methods[1],
 * credentials[2].header); list is the allowlist as checkAllowlist normalized it.
 */
export function checkRules(rules: unknown, credentials: unknown, list: readonly string[]): Refusal[] {
  const out: Refusal[] = [];
  const push = (field: string, words: string | undefined) => {
    if (words) out.push({ field, message: `${field}: ${words}` });
  };
  if (rules !== undefined) {
    const parsed = z.array(EGRESS_RULE).max(RULE_BOUNDS.rules).safeParse(rules);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        push(["rules", ...issue.path].map((p, i) => (typeof p === "number" ? `[${p}]` : i ? `.${String(p)}` : String(p))).join(""), issue.message);
    } else
      parsed.data.forEach((r, i) => {
        push(`rules[${i}].host`, hostProblem(r.host, list));
        r.methods?.forEach((m, j) => push(`rules[${i}].methods[${j}]`, methodProblem(m)));
        if (r.methods?.length === 0) push(`rules[${i}].methods`, "an empty list allows no method: leave methods out for any");
        if ((r.paths?.length ?? 1) === 0) push(`rules[${i}].paths`, "an empty list allows no path: leave paths out for every path");
        if ((r.paths?.length ?? 0) > RULE_BOUNDS.paths) push(`rules[${i}].paths`, `at most ${RULE_BOUNDS.paths} paths`);
        r.paths?.forEach((p, j) => push(`rules[${i}].paths[${j}]`, pathProblem(p)));
      });
  }
  if (credentials !== undefined) {
    const parsed = z.array(z.unknown()).max(RULE_BOUNDS.credentials).safeParse(credentials);
    if (!parsed.success) push("credentials", `a list of at most ${RULE_BOUNDS.credentials} {host, header, value}`);
    else {
      const seen = new Set<string>();
      parsed.data.forEach((c, i) => {
        const one = EGRESS_CREDENTIAL.safeParse(c);
        // zod's words on a bad credential name its fields, never their values.
        if (!one.success) return push(`credentials[${i}]`, "a credential is {host, header, value}, each a string");
        push(`credentials[${i}].host`, hostProblem(one.data.host, list));
        push(`credentials[${i}].header`, headerProblem(one.data.header));
        push(`credentials[${i}].value`, valueProblem(one.data.value));
        const key = `${one.data.host}\0${one.data.header.toLowerCase()}`;
        if (seen.has(key)) push(`credentials[${i}].header`, `a second ${one.data.header} for ${one.data.host}`);
        seen.add(key);
      });
    }
  }
  return out;
}

/** A checked rule in the proxy's argv form: "<host> <methods|*> <path>...". */
export function ruleArg(rule: EgressRule): string {
  return `${rule.host} ${rule.methods ? rule.methods.join(",") : "*"} ${(rule.paths ?? ["/"]).join(" ")}`;
}

/** A rule read back from its argv form (ruleArg's inverse), or undefined. */
export function ruleOf(arg: string): EgressRule | undefined {
  const [host, methods, ...paths] = arg.split(" ");
  if (host === undefined || methods === undefined || paths.length === 0) return undefined;
  return { host, ...(methods === "*" ? {} : { methods: methods.split(",") }), paths };
}

/** Whether a rule's or credential's host (a name, or *.suffix) takes a request's host. */
export function covers(ruleHost: string, host: string): boolean {
  return ruleHost.startsWith("*.") ? host.endsWith(ruleHost.slice(1)) : ruleHost === host;
}

/** Whether a rule takes a request's method and path (origin-form), as the proxy judges it. */
export function ruleAllows(rule: EgressRule, method: string, path: string): boolean {
  if (rule.methods && !rule.methods.includes(method)) return false;
  const p = path.split("?")[0]!;
  if (/[%\\#]/.test(p) || dotSegment(p)) return false;
  return (rule.paths ?? ["/"]).some((prefix) => p === prefix || (p.startsWith(prefix) && (prefix.endsWith("/") || p[prefix.length] === "/")));
}

/** The hosts whose rules differ between two sets of rule args: each host named once, sorted. */
export function rulesChangedHosts(a: readonly string[], b: readonly string[]): string[] {
  const byHost = (args: readonly string[]) => {
    const m = new Map<string, string[]>();
    for (const arg of args) {
      const host = arg.split(" ")[0]!;
      m.set(host, [...(m.get(host) ?? []), arg].sort());
    }
    return m;
  };
  const ma = byHost(a);
  const mb = byHost(b);
  const hosts = new Set([...ma.keys(), ...mb.keys()]);
  return [...hosts].filter((h) => JSON.stringify(ma.get(h)) !== JSON.stringify(mb.get(h))).sort();
}

/** The credentials a proxy's environment holds (a container's Env), or [] when none can be read. */
export function credentialsOf(env: unknown): EgressCredential[] {
  const line = Array.isArray(env) ? env.find((e): e is string => typeof e === "string" && e.startsWith(`${CREDENTIALS_ENV}=`)) : undefined;
  if (line === undefined) return [];
  try {
    const parsed = z.array(EGRESS_CREDENTIAL).safeParse(JSON.parse(line.slice(CREDENTIALS_ENV.length + 1)));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/** The hosts whose credentials differ between two sets, each named once, sorted; never a value. */
export function credentialsChangedHosts(a: readonly EgressCredential[], b: readonly EgressCredential[]): string[] {
  const of = (cs: readonly EgressCredential[], host: string) =>
    JSON.stringify(
      cs
        .filter((c) => c.host === host)
        .map((c) => [c.header.toLowerCase(), c.value])
        .sort(),
    );
  const hosts = new Set([...a, ...b].map((c) => c.host));
  return [...hosts].filter((h) => of(a, h) !== of(b, h)).sort();
}

/** The credentials as the proxy reads them from CREDENTIALS_ENV. */
export function credentialsEnv(credentials: readonly EgressCredential[]): string {
  return JSON.stringify(credentials.map(({ host, header, value }) => ({ host, header, value })));
}
