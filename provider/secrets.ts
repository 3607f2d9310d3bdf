// Values the engine hands a provider that accepts secrets arrive wrapped; plain outputs are
// stored in clear. So: unwrap on the way in, remembering which fields were secret, and wrap
// on the way out every output derived from one.

// The signature the engine and @pulumi/pulumi's runtime use to mark a secret value.
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

// The engine's placeholder for a value not known during preview.
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export type Props = Record<string, unknown>;

/** Whether a value is an object of fields (not an array, not null). */
export const isObject = (v: unknown): v is Props => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether a value, or anything inside it, is not known yet (a preview). */
export const hasUnknown = (v: unknown): boolean =>
  v === UNKNOWN || (Array.isArray(v) ? v.some(hasUnknown) : typeof v === "object" && v !== null && Object.values(v).some(hasUnknown));

export function isSecret(v: unknown): v is { value: unknown } {
  return typeof v === "object" && v !== null && (v as Props)[SIG_KEY] === SECRET_SIG;
}

export function secret(value: unknown): Props {
  return { [SIG_KEY]: SECRET_SIG, value };
}

/** Deep-unwraps secrets; `secretKeys` names the top-level fields that held one anywhere inside. */
export function unwrap(props: Props): { plain: Props; secretKeys: Set<string> } {
  const secretKeys = new Set<string>();
  const plain: Props = {};
  for (const [k, v] of Object.entries(props ?? {})) {
    let found = false;
    const strip = (x: unknown): unknown => {
      if (isSecret(x)) {
        found = true;
        return strip(x.value);
      }
      if (Array.isArray(x)) return x.map(strip);
      if (typeof x === "object" && x !== null) return Object.fromEntries(Object.entries(x).map(([a, b]) => [a, strip(b)]));
      return x;
    };
    plain[k] = strip(v);
    if (found) secretKeys.add(k);
  }
  return { plain, secretKeys };
}

/**
 * Wraps the outputs that came from a secret. `from` maps an output field to the input fields
 * it is derived from; an output not in the map derives from the input of its own name.
 */
export function wrapDerived(outs: Props, secretKeys: Set<string>, from: Record<string, readonly string[]> = {}): Props {
  if (secretKeys.size === 0) return outs;
  const wrapped: Props = {};
  for (const [k, v] of Object.entries(outs)) {
    const sources = from[k] ?? [k];
    wrapped[k] = sources.some((s) => secretKeys.has(s)) ? secret(v) : v;
  }
  return wrapped;
}

/** The top-level fields of stored state that are wrapped, so a read keeps them secret. */
export function secretFieldsOf(props: Props): Set<string> {
  return unwrap(props).secretKeys;
}
