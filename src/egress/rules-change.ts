// What a change of an egress list's rules opens and closes, host by host, in words a preview
// shows: a host's allowance is the union of its rules' methods on their path prefixes; a host
// with no rules is tunnelled whole. What one side allows that the other does not cover is opened
// (allowed now, not before) or closed.
import type { EgressRule } from "./rules.js";

/** A method ("*" for any) on a path prefix. */
type Grant = { method: string; path: string };

/** A host's grants, or undefined for a host with no rules (every method on every path). */
function grantsOf(rules: readonly EgressRule[], host: string): Grant[] | undefined {
  const own = rules.filter((r) => r.host === host);
  if (own.length === 0) return undefined;
  return own.flatMap((r) => (r.methods ?? ["*"]).flatMap((method) => (r.paths ?? ["/"]).map((path) => ({ method, path }))));
}

/** Whether grants let method (any, for "*") on every path under path. */
const covers = (grants: Grant[], method: string, path: string) => grants.some((g) => (g.method === "*" || g.method === method) && path.startsWith(g.path));
/** Whether grants let some method on some path under path. */
const touches = (grants: Grant[], path: string) => grants.some((g) => path.startsWith(g.path) || g.path.startsWith(path));

/** What a allows that b does not cover, in words ("other" names methods b leaves out of a wildcard). */
function beyond(a: Grant[], b: Grant[], other: string): string[] {
  return a.flatMap(({ method, path }) => {
    if (covers(b, method, path)) return [];
    if (method === "*") return [touches(b, path) ? `${other} on ${path}` : `any method on ${path}`];
    return [`${method} ${path}`];
  });
}

const listed = (grants: Grant[]) => grants.map((g) => `${g.method === "*" ? "any method" : g.method} ${g.path}`).join(", ");

/** A sentence per host whose allowance changed, sorted by host: what the new rules open and close. */
export function rulesChange(before: readonly EgressRule[] = [], after: readonly EgressRule[] = []): string[] {
  const hosts = [...new Set([...before, ...after].map((r) => r.host))].sort();
  return hosts.flatMap((host) => {
    const was = grantsOf(before, host);
    const now = grantsOf(after, host);
    let said: string;
    if (was === undefined && now !== undefined) said = `closes every method and path but ${listed(now)}`;
    else if (was !== undefined && now === undefined) said = `opens every method and path (no rule is left: the host is tunnelled whole)`;
    else {
      const opens = beyond(now!, was!, "every other method");
      const closes = beyond(was!, now!, "every other method");
      if (opens.length === 0 && closes.length === 0) return [];
      said = [opens.length > 0 ? `opens ${opens.join(", ")}` : "", closes.length > 0 ? `closes ${closes.join(", ")}` : ""].filter(Boolean).join("; ");
    }
    return [`rules for ${host}: ${said}`];
  });
}
