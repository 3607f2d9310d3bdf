// The run's folder: one spec field, mount, and one path in every computer, /workspace.
// This module loads nothing else of the library: a caller imports the mount rule alone.

/** Where every computer has the run's folder. */
export const WORKSPACE = "/workspace";

export const MOUNT_KINDS = ["bind", "archil"] as const;
export type MountKind = (typeof MOUNT_KINDS)[number];

export type MountSpec =
  | { kind: "bind"; path: string }
  | { kind: "archil"; disk: string; region: string; folder: string; token: string };

/** What a provider reads back of a mount: its kind and source, never a token. */
export type MountReadBack =
  | { kind: "bind"; path: string }
  | { kind: "archil"; disk: string; region: string; folder: string; exclusive: boolean; epoch: number }
  | { other: string };
