// A Kubernetes EgressProxy's credentials: a Secret beside its ConfigMap, <proxy>-credentials, its
// one key the JSON computerd-egress reads from AGENTRUN_EGRESS_CREDENTIALS, given to each joined
// computer's sidecar alone as that variable (a secretKeyRef, so the Pod spec holds its name, never
// a key): never the computer's container, a ConfigMap, an argv, a label or a message. Read back
// values and all, compared with the declaration and never shown.
import { CREDENTIALS_ENV, credentialsEnv, credentialsOf, type EgressCredential } from "../egress/rules.js";
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

export function secretManifest(proxy: string, namespace: string, credentials: readonly EgressCredential[], labels: Record<string, string>) {
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: { name: secretName(proxy), namespace, labels: { [SECRET_LABEL]: proxy, ...encodeLabels(labels) } },
    stringData: { [SECRET_KEY]: credentialsEnv(credentials) },
  };
}

/** The sidecar's one variable: the proxy's Secret's key, by reference. */
export const credentialsEnvVar = (proxy: string) => ({ name: CREDENTIALS_ENV, valueFrom: { secretKeyRef: { name: secretName(proxy), key: SECRET_KEY } } });

/** The credentials a Secret holds (its data is base64), or [] when it holds none that parse. */
export function secretCredentials(secret: ProxySecret | undefined): EgressCredential[] {
  const b64 = secret?.data?.[SECRET_KEY];
  return b64 === undefined ? [] : credentialsOf([`${CREDENTIALS_ENV}=${Buffer.from(b64, "base64").toString("utf8")}`]);
}
