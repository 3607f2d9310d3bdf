// Browserbase's settings as a host takes them from its user (a stack's agentrun:browserbase
// config): the key and the project, both secret, and the API's URL.
import { z } from "zod";
import { secretSetting } from "../contract/setting-marks.js";

export const BROWSERBASE_SETTINGS = z.strictObject({
  apiKey: secretSetting(z.string().min(1).optional()),
  projectId: secretSetting(z.string().min(1).optional()),
  apiUrl: z.string().optional(),
});

export type BrowserbaseSettings = z.infer<typeof BROWSERBASE_SETTINGS>;
