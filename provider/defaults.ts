// Defaults that follow the spec's Docker rules, shared by the resources.
import { processUser } from "../src/user.js";
import type { Settings } from "./config.js";

/** The computer's user when none is declared: the docker settings' user, else the process rule. */
export function defaultUser(settings: Settings): string {
  return settings.docker?.user ?? processUser();
}
