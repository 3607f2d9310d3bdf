// The names, paths and numbers a Kubernetes computer is made with, in one place.

/** Every Pod of this provider carries agentrun.computer=1; only such Pods count as computers. */
export const COMPUTER_LABEL = "agentrun.computer";
/** The annotations (values a label cannot hold): the deadline, the spec recorded, the caller's labels exactly. */
export const DEADLINE_ANNOTATION = "agentrun.computer/deadline";
export const SPEC_ANNOTATION = "agentrun.computer/spec";
export const LABELS_ANNOTATION = "agentrun.computer/labels";
/** The computer's container, and the field manager every write names. */
export const CONTAINER = "computer";
export const FIELD_MANAGER = "agentrun";
/** Every container's: one that ends in error leaves its log's tail as its terminated message, which a refusal quotes. */
export const LAST_WORDS = { terminationMessagePolicy: "FallbackToLogsOnError" } as const;

export const NAME_PATTERN = /^computer-[0-9a-f]{12}$/;
/** A shared egress proxy is a ConfigMap of this name (proxies.ts), carrying PROXY_LABEL=1. */
export const PROXY_PATTERN = /^proxy-[0-9a-f]{12}$/;

/**
 * The id of an object we make (a computer's Pod, a proxy's ConfigMap): its name and uid
 * ("<name>/<uid>"), so what a stack recorded proves which object it made whatever its labels now
 * say, and a delete by it never touches an object of the same name made since; the name alone is
 * taken too.
 */
export const idOf = (name: string, uid: string | undefined) => (uid ? `${name}/${uid}` : name);

const UID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/** The reader of ids whose names match `name`: the name and, when the id carries it, the uid; undefined for any other id. */
function idReader(name: RegExp): (id: unknown) => { name: string; uid?: string } | undefined {
  const pattern = new RegExp(`^(${name.source.replace(/^\^|\$$/g, "")})(?:/(${UID}))?$`);
  return (id) => {
    const match = typeof id === "string" ? pattern.exec(id) : null;
    if (!match) return undefined;
    return match[2] ? { name: match[1]!, uid: match[2] } : { name: match[1]! };
  };
}

/** A computer's Pod from its id. */
export const podOfId = idReader(NAME_PATTERN);
/** A shared proxy's ConfigMap from its id. */
export const proxyOfId = idReader(PROXY_PATTERN);

export const PROXY_LABEL = "agentrun.computer/egress-proxy";
/** On a proxy's ConfigMap: the list make or update wrote, by its FNV-1a 64 digest (as the sidecar's log names it). */
export const DIGEST_ANNOTATION = "agentrun.computer/egress-digest";
/**
 * On a joined Pod: the list update last told it of and when ("<digest> at <ISO time>", new at
 * every update, a list changed back included): the write makes the kubelet sync the Pod, its
 * ConfigMap volume with it, at once rather than at its next periodic sync.
 */
export const TOLD_ANNOTATION = "agentrun.computer/egress-told";
/** On a warm pool's Pod: ready once made, claimed once a claim took it (pool.ts). */
export const POOL_ANNOTATION = "agentrun.computer/pool";
export const POOL_READY = "ready";
export const POOL_CLAIMED = "claimed";

/** The computer's home and default workdir. */
export const HOME = "/work";
/** The computer's user when neither the spec nor the user option names one. */
export const DEFAULT_USER = "2510:2510";
export const DEFAULT_NAMESPACE = "default";
/** The nodes' architecture, and the daemon uploaded for it. */
export const DEFAULT_ARCH = "amd64";

/** A week: a Pod is never meant to be a long-lived server. */
export const MAX_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** What a computer's deadline is given on top for init to end it first (activeDeadlineSeconds is the backstop). */
export const DEADLINE_GRACE_S = 30;

/** Init runs as root to enter a network namespace of its own, then drops every capability for the user's programs. */
export const INIT_CAPABILITIES = ["SYS_ADMIN", "NET_ADMIN", "CHOWN", "DAC_OVERRIDE", "FOWNER", "SETPCAP", "SETUID", "SETGID"] as const;

/** The spec's bounds, each overridable by the timeouts option (tests). */
export interface KubernetesTimeouts {
  /** Any one API call. */
  callMs: number;
  /** From the Pod's create to its container running. */
  startMs: number;
  /** The daemon's upload through exec's stdin. */
  uploadMs: number;
  /** A connection, from the exec to hello. */
  helloMs: number;
  /** release's wait until the API server answers 404. */
  releaseMs: number;
  /** The first pause of a wait; each doubles, up to 5 s. */
  pollMs: number;
  /**
   * How long after a shared proxy's ConfigMap changes its computers' sidecars may still hold the
   * list before (the kubelet's volume sync: its sync period, 60 s by default, with up to half
   * again of jitter, then the proxy's 1 s re-read); a digest that differs past it is drift.
   */
  listSyncMs: number;
}

export const TIMEOUTS: KubernetesTimeouts = {
  callMs: 30_000,
  startMs: 180_000,
  uploadMs: 120_000,
  helloMs: 30_000,
  releaseMs: 120_000,
  pollMs: 100,
  listSyncMs: 120_000,
};
