// Browserbase's settings as a host takes them from its user (a stack's agentrun:browserbase
// config): the key and the project, both secret, and the API's URL.
import { z } from "zod";
import { keySetting, secretSetting } from "../contract/setting-marks.js";

export const BROWSERBASE_SETTINGS = z.strictObject({
  apiKey: keySetting("BROWSERBASE_API_KEY", secretSetting(z.string().min(1).optional())),
  projectId: keySetting("BROWSERBASE_PROJECT_ID", secretSetting(z.string().min(1).optional())),
  apiUrl: z.string().optional(),
});

export type BrowserbaseSettings = z.infer<typeof BROWSERBASE_SETTINGS>;
