// A ComputerApp's settings checked against the JSON schema it gives (settingsSchema), with ajv:
// every violation named by its place, never its value (a value may be a secret). A field the
// schema marks secret (writeOnly: true, or format: password, as a typed Settings' secret field
// reads in JSON schema) is taken only as a Pulumi secret.
import * as AjvModule from "ajv";
import type { Refusal } from "../../src/daemon/result.js";
import { isSecret, type Props } from "../secrets.js";

// ajv is CommonJS: its class is the default export's own default under NodeNext.
const Ajv = AjvModule.Ajv;

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Props => typeof v === "object" && v !== null && !Array.isArray(v);

/** The top-level properties the schema marks secret. */
export function secretFields(schema: Schema): string[] {
  const props = isObject(schema.properties) ? schema.properties : {};
  return Object.entries(props)
    .filter(([, p]) => isObject(p) && (p.writeOnly === true || p.format === "password"))
    .map(([k]) => k);
}

/**
 * Every refusal of settings (as given: a secret still wrapped) against schema: the schema itself
 * when it is not one, each violation at its place, and each secret field given in clear.
 */
export function checkSettings(schema: unknown, raw: unknown, plain: unknown): Refusal[] {
  if (!isObject(schema))
    return [{ field: "settingsSchema", message: "settingsSchema is a JSON schema: an object such as {type: object, properties: {...}, required: [...]}" }];
  const ajv = new Ajv({ allErrors: true, strict: false });
  // The secret marks are ours: format password is a mark, not a format ajv must know.
  ajv.addFormat("password", true);
  let validate;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    return [
      { field: "settingsSchema", message: `settingsSchema is not a JSON schema ajv can compile: ${error instanceof Error ? error.message : String(error)}` },
    ];
  }
  const refusals: Refusal[] = [];
  if (!validate(plain ?? {})) {
    for (const e of validate.errors ?? []) {
      const at = e.instancePath ? `settings${e.instancePath.replace(/\//g, ".")}` : "settings";
      // The words ajv gives name the rule (must be integer, must have required property 'port'), never the value.
      refusals.push({ field: "settings", message: `${at} ${e.message ?? "is refused by settingsSchema"}` });
    }
  }
  if (!isSecret(raw) && isObject(raw)) {
    for (const field of secretFields(schema)) {
      if (field in raw && !isSecret(raw[field]))
        refusals.push({
          field: "settings",
          message: `settings.${field} is a secret in settingsSchema: give it as a Pulumi secret (fn::secret, or pulumi config set --secret)`,
        });
    }
  }
  return refusals;
}
