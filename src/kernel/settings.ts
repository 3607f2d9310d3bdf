// Kernel's settings as a host takes them from its user (a stack's agentrun:kernel config): the
// key, secret, and the API's URL.
import { z } from "zod";
import { keySetting, secretSetting } from "../contract/setting-marks.js";

export const KERNEL_SETTINGS = z.strictObject({
  apiKey: keySetting("KERNEL_API_KEY", secretSetting(z.string().min(1).optional())),
  apiUrl: z.string().optional(),
});

export type KernelSettings = z.infer<typeof KERNEL_SETTINGS>;
