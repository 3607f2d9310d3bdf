// The drift check of a sandbox as Daytona reads it back against what was declared (its daemon's is
// src/kits/agent-child/drift.ts, shared with E2B). One sentence per mismatch; none when it is what was declared.
import type { NetworkPolicy } from "../contract/provider.js";
import { parseSnapshotImage } from "../contract/state.js";
import { COMPUTER_LABEL, DEADLINE_LABEL, DEFAULT_SNAPSHOT, DESTROY_SLACK_MS, IMAGE_LABEL } from "./constants.js";
import { networkOf } from "./readback.js";
import type { Sandbox } from "./schemas.js";

export interface SandboxExpected {
  /** The image create was asked for ("default": any snapshot Daytona names). */
  image: string;
  /** Whether the image label must read image (absent on a computer made before create wrote it). */
  imageLabel: boolean;
  labels: Record<string, string>;
  deadline: string;
  network: NetworkPolicy;
  autoStopInterval: number;
  autoDeleteInterval: number;
  /** The provider's class: container or linux-vm; undefined takes whichever Daytona reports. */
  sandboxClass: string | undefined;
}

/** The Daytona snapshot an image names: a snapshot image's own name (snapshot://daytona/<name>), else the image itself. */
export function vendorSnapshot(image: string): string {
  return parseSnapshotImage(image)?.id ?? image;
}

const shown = (v: unknown) => (v === undefined || v === null ? "nothing" : JSON.stringify(v));

export function sandboxDrift(sandbox: Sandbox, want: SandboxExpected): string[] {
  const out: string[] = [];
  if (want.image !== DEFAULT_SNAPSHOT && sandbox.snapshot !== vendorSnapshot(want.image))
    out.push(`the snapshot reads ${shown(sandbox.snapshot)}, not ${JSON.stringify(vendorSnapshot(want.image))}`);
  const network = networkOf(sandbox);
  if (JSON.stringify(network) !== JSON.stringify(want.network)) {
    out.push(
      `the network reads ${typeof network === "string" ? network : "other" in network ? `other (${network.other})` : `an allowlist (${network.allow.join(", ")})`}, not ${JSON.stringify(want.network)}`,
    );
  }
  const labels = sandbox.labels;
  if (labels[COMPUTER_LABEL] !== "1") out.push(`the label ${COMPUTER_LABEL} reads ${shown(labels[COMPUTER_LABEL])}, not "1"`);
  if (labels[DEADLINE_LABEL] !== want.deadline) out.push(`the label ${DEADLINE_LABEL} reads ${shown(labels[DEADLINE_LABEL])}, not ${want.deadline}`);
  if (want.imageLabel && labels[IMAGE_LABEL] !== want.image)
    out.push(`the label ${IMAGE_LABEL} reads ${shown(labels[IMAGE_LABEL])}, not ${JSON.stringify(want.image)}`);
  for (const [key, value] of Object.entries(want.labels)) {
    if (labels[key] !== value) out.push(`the label ${key} reads ${shown(labels[key])}, not ${JSON.stringify(value)}`);
  }
  if (sandbox.autoStopInterval !== want.autoStopInterval) out.push(`autoStopInterval reads ${shown(sandbox.autoStopInterval)}, not ${want.autoStopInterval}`);
  if (sandbox.autoDeleteInterval !== want.autoDeleteInterval)
    out.push(`autoDeleteInterval reads ${shown(sandbox.autoDeleteInterval)}, not ${want.autoDeleteInterval}`);
  const destroyAt = sandbox.autoDestroyAt ? Date.parse(sandbox.autoDestroyAt) : NaN;
  const latest = Date.parse(want.deadline) + DESTROY_SLACK_MS;
  if (Number.isNaN(destroyAt)) out.push(`autoDestroyAt reads ${shown(sandbox.autoDestroyAt)}: the sandbox has no end of its own`);
  else if (!(destroyAt <= latest))
    out.push(`autoDestroyAt reads ${sandbox.autoDestroyAt}, past the deadline ${want.deadline} and the TTL's minute and 2 minutes of clock skew`);
  if (want.sandboxClass !== undefined && sandbox.sandboxClass !== want.sandboxClass)
    out.push(`the class reads ${shown(sandbox.sandboxClass)}, not ${want.sandboxClass}`);
  if (sandbox.public !== false) out.push("the sandbox is public");
  if (sandbox.kvm === true) out.push("the sandbox has kvm");
  if (sandbox.gpu !== 0) out.push(`the sandbox has ${sandbox.gpu} GPUs`);
  if ((sandbox.volumes ?? []).length > 0) out.push(`the sandbox has ${sandbox.volumes!.length} volumes`);
  if (sandbox.linkedSandboxId) out.push("the sandbox is linked to another");
  return out;
}
