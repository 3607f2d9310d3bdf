// A vendor's key made wrong in a stack's config: `pulumi preview` fails before anything is made,
// naming the setting and the vendor's answer class, and the planted key is in no output and not in
// the state. The config is put back as it was, pass or fail.
import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import type { TestStack } from "./stack.js";

export interface WrongKey {
  /** The vendor's id, as the stack's config names it (agentrun:<vendor>). */
  vendor: string;
  /** The setting that holds the key. */
  field: string;
  /** How many computers the vendor holds, before and after: the preview makes none. */
  made(): number | Promise<number>;
  /** The setting's value with the planted key in it (default: the planted key itself). */
  wrong?(current: unknown, planted: string): unknown;
}

export async function previewRefusesWrongKey(s: TestStack, key: WrongKey): Promise<string> {
  const name = `agentrun:${key.vendor}`;
  const original = await s.stack.getConfig(name);
  const settings = JSON.parse(original.value) as Record<string, unknown>;
  const planted = `planted${randomBytes(12).toString("hex")}`;
  const wrong = key.wrong ? key.wrong(settings[key.field], planted) : planted;
  await s.stack.setConfig(name, { value: JSON.stringify({ ...settings, [key.field]: wrong }), secret: true });
  try {
    const before = await key.made();
    const preview = await s.cli("preview", "--diff");
    const out = `${preview.stdout}\n${preview.stderr}`;
    expect(preview.exitCode, out).not.toBe(0);
    expect(out).toContain(`${key.vendor} did not pass its connection test (unauthorized), so nothing was made or read`);
    expect(out).toContain(`${name}.${key.field}`);
    expect(out).not.toContain(planted);
    expect(await key.made()).toBe(before);
    const exported = await s.cli("stack", "export", "--show-secrets");
    expect(exported.stdout).not.toContain(planted);
    return out;
  } finally {
    await s.stack.setConfig(name, original);
  }
}
