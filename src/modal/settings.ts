// Modal's settings as a host takes them from its user, and the daemon this package carries for
// Modal: its images are linux/amd64 whatever the host's arch.
import path from "node:path";
import { z } from "zod";
import { packageRoot } from "../package.js";
import { keySetting, secretSetting, testSetting } from "../contract/setting-marks.js";

/** Modal's settings (a stack's agentrun:modal, the CLI's --set): its create's options a host can name. */
export const MODAL_SETTINGS = z.strictObject({
  tokenId: keySetting("MODAL_TOKEN_ID", secretSetting(z.string().min(1).optional())),
  tokenSecret: keySetting("MODAL_TOKEN_SECRET", secretSetting(z.string().min(1).optional())),
  app: z.string().min(1).optional(),
  environment: z.string().min(1).optional(),
  serverUrl: z.string().optional(),
  daemonPath: z.string().optional(),
  daemonImage: z.string().optional(),
  user: z.string().optional(),
  /** Tests only: the Docker-backed fake's module (the Pulumi plugin refuses it unless its test flag is on). */
  testSdk: testSetting(z.string().optional(), "points the plugin at a fake of Modal"),
});

export function packagedDaemon(): string {
  return path.join(packageRoot(), "dist", "computerd-linux-amd64");
}
