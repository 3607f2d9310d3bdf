// Each provider's settings as a host takes them from its user (a Pulumi stack's agentrun:<id>
// config, the agentrun CLI's --set), by registry id: each vendor's strict schema, read from its
// registry entry, so every host refuses the same keys in the same words and holds no list of its
// own. Loading this loads no provider and no vendor SDK.
import type { z } from "zod";
import { isSecretSetting, testSettingDoes } from "../contract/setting-marks.js";
import { userKeys } from "../contract/settings.js";
import { type ProviderId, VENDORS, type VendorOf } from "../providers.js";

/** Each vendor's settings schema, by registry id. */
export const PROVIDER_SETTINGS = Object.fromEntries(VENDORS.map((vendor) => [vendor.id, vendor.settings])) as {
  [I in ProviderId]: VendorOf<I>["settings"];
};

/** Each provider's settings as its schema parses them, by registry id. */
export type ProviderSettings = { [Id in keyof typeof PROVIDER_SETTINGS]?: z.infer<(typeof PROVIDER_SETTINGS)[Id]> };

const SCHEMAS: Readonly<Record<string, z.ZodObject>> = PROVIDER_SETTINGS;

/** Every setting its schema marks as a test's seam (testSetting), as <id>.<key>, with what it does: offered to no user. */
export const TEST_SETTINGS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(SCHEMAS).flatMap(([id, schema]) =>
    Object.entries(schema.shape).flatMap(([key, field]) => {
      const does = testSettingDoes(field as z.ZodType);
      return does === undefined ? [] : [[`${id}.${key}`, does]];
    }),
  ),
);

/** Every setting its provider's schema marks secret (secretSetting), as <id>.<key>. */
export function secretSettings(): string[] {
  return Object.entries(SCHEMAS).flatMap(([id, schema]) =>
    Object.entries(schema.shape)
      .filter(([, field]) => isSecretSetting(field as z.ZodType))
      .map(([key]) => `${id}.${key}`),
  );
}

/** The values given for the settings their schemas mark secret: the words no message may hold. */
export function secretValues(settings: Readonly<Record<string, unknown>>): string[] {
  return secretSettings().flatMap((setting) => {
    const [id, key] = setting.split(".") as [string, string];
    const value = (settings[id] as Record<string, unknown> | undefined)?.[key];
    return typeof value === "string" && value !== "" ? [value] : [];
  });
}

/** Each provider's settings keys, as its user writes them, test keys left out. */
export function settingsKeys(): Record<string, string[]> {
  return Object.fromEntries(Object.entries(SCHEMAS).map(([id, schema]) => [id, userKeys(schema)]));
}
