// The run folders the stack's Mounts make, as their checks passed them in this plugin process.
// The engine gives a Computer's check no word of what it depends on: only its inputs. But it
// checks and previews a Mount before any resource that takes its `mount` output, in the same
// plugin process (one per provider and operation), so a Computer's check finds here that the folder
// its mount names is one the stack makes before the computer, and waits for it. A literal path
// no Mount of the stack names is checked as it is: a folder that is not there is refused.
import type { MountSpec } from "../src/contract/mount.js";
import { parseUser, userText, type User } from "../src/contract/user.js";
import { UNKNOWN } from "./secrets.js";

/** A folder the stack makes, and its owner when the Mount's user is known. */
export interface StackFolder {
  owner?: User;
}

const folders = new Map<string, StackFolder>();

/** A Mount's check passed: the stack makes this folder. */
export function stackMakes(path: string, folder: StackFolder): void {
  folders.set(path, folder);
}

/** The folder as a Mount of the stack makes it, or undefined when none does. */
export function madeByStack(path: string): StackFolder | undefined {
  return folders.get(path);
}

/**
 * Why a computer of this user could not write the bind folder a Mount of the stack makes for
 * another (0700, its user's alone), which its create would find only after the folder and the
 * claim were made; undefined when it could, or when no Mount of the stack makes it. mount: as
 * check parsed it (none when refused or not known yet).
 */
export function unwritableFolder(mount: MountSpec | undefined, user: unknown, secretPath: boolean): string | undefined {
  if (mount?.kind !== "bind" || mount.path === UNKNOWN) return undefined;
  const path = mount.path;
  const owner = madeByStack(path)?.owner;
  const computer = typeof user === "string" ? parseUser(user) : undefined;
  if (!owner || !computer?.ok || computer.value.uid === owner.uid) return undefined;
  return `${secretPath ? "the run folder" : `the run folder ${path}`} is made by its Mount for ${userText(owner)} with mode 0700, so the computer's user ${userText(computer.value)} could not write it: declare the same user on the Mount and its computers`;
}
