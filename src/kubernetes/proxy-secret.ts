// A Kubernetes EgressProxy's credentials: a Secret beside its ConfigMap, <proxy>-credentials, its
// one key the file computerd-egress reads with --credentials-file ({ version, credentials }),
// projected into each joined computer's sidecar alone beside its list (egress.ts): never the
// computer's container, a ConfigMap, an argv, a variable, a label or a message. Each write names
// the credentials by a fresh version, which the sidecar's log says it holds (never a value), so an
// update knows when each sidecar holds the new ones. Read back values and all, compared with the
// declaration and never shown.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { EGRESS_CREDENTIAL, type EgressCredential } from "../egress/rules.js";
import { encodeLabels } from "./labels.js";

/** The Secret's one key. */
export const SECRET_KEY = "credentials";
/** Its label: which proxy's credentials it holds. */
export const SECRET_LABEL = "agentrun.computer/egress-credentials";

export const secretName = (proxy: string) => `${proxy}-credentials`;

/** A Secret as the API server gives it back, the slice read here. */
export interface ProxySecret {
  metadata?: { name?: string; uid?: string };
  data?: Record<string, string>;
}

/** The key's JSON, as the sidecar reads it. */
const CREDENTIALS_FILE = z.object({ version: z.string(), credentials: z.array(EGRESS_CREDENTIAL) });

/** A fresh version for a write of the credentials: 16 hex digits, no secret. */
export const freshVersion = () => randomBytes(8).toString("hex");

/** The Secret's data: the credentials under a version (base64, as a Secret's data is). */
export function secretData(credentials: readonly EgressCredential[], version: string): Record<string, string> {
  const file = { version, credentials: credentials.map(({ host, header, value }) => ({ host, header, value })) };
  return { [SECRET_KEY]: Buffer.from(JSON.stringify(file)).toString("base64") };
}

export function secretManifest(proxy: string, namespace: string, credentials: readonly EgressCredential[], labels: Record<string, string>, version: string) {
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: { name: secretName(proxy), namespace, labels: { [SECRET_LABEL]: proxy, ...encodeLabels(labels) } },
    data: secretData(credentials, version),
  };
}

/** What a Secret holds: its credentials ([] when none parse) and their version ("" when none). */
export function secretHeld(secret: ProxySecret | undefined): { credentials: EgressCredential[]; version: string } {
  const b64 = secret?.data?.[SECRET_KEY];
  if (b64 === undefined) return { credentials: [], version: "" };
  try {
    const parsed = CREDENTIALS_FILE.safeParse(JSON.parse(Buffer.from(b64, "base64").toString("utf8")));
    return parsed.success ? parsed.data : { credentials: [], version: "" };
  } catch {
    return { credentials: [], version: "" };
  }
}
