// What a vendor's conformance module builds on, below the suite (src/conformance/) that loads it:
// the run's shape it is handed, the run folder it offers a case, and the fixture this package
// builds. The sweep around a live run is beside it (sweep.ts).
import path from "node:path";
import { SETTING_KIND_NAMES, SETTING_KINDS, type SettingKind } from "../../contract/kinds.js";
import type { MountSpec } from "../../contract/mount.js";
import type { Runtime } from "../../contract/runtime.js";
import { packageRoot } from "../../package.js";

/** The run as a conformance module may shape its provider by it: the kind asked for (--kind) and the runtime (--runtime). */
export interface RunShape {
  kind?: string;
  runtime?: Runtime;
}

/** The setting kind a name stands for, or undefined for a name that is neither (a machine kind stands for its setting kind: linux is a sandbox). */
export function settingKindOf(kind: string): SettingKind | undefined {
  if ((SETTING_KIND_NAMES as readonly string[]).includes(kind)) return kind as SettingKind;
  return SETTING_KIND_NAMES.find((name) => (SETTING_KINDS[name].machineKinds as readonly string[]).includes(kind));
}

/** A run folder for a mount kind, with its outside (the host folder for a bind). */
export interface RunFolder {
  mount: MountSpec;
  read(path: string): Promise<Uint8Array>;
  write(path: string, data: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/** The fixture this package builds for an architecture (the set-up's dist/computerd-fixture-linux-<arch>). */
export function packagedFixture(arch: "amd64" | "arm64"): string {
  return path.join(packageRoot(), "dist", `computerd-fixture-linux-${arch}`);
}
