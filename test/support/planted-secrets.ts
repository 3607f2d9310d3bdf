// The planted-secret search every fault test ends with: a vendor key in config, a secret label
// and a secret file content, looked for in the state files, the engine's event log, the CLI's
// output (the plugin's stderr reaches it) and every computer's labels and environment.
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { docker } from "./docker.js";

export interface Planted {
  /** A vendor key, set as a secret in the stack's config. */
  vendorKey: string;
  /** A label's value, declared as a secret. A container's labels hold it, as declared. */
  label: string;
  /** A file's content, pushed into a computer. */
  file: string;
}

export function plant(): Planted {
  const mark = () => `planted-${randomBytes(12).toString("hex")}`;
  return { vendorKey: mark(), label: mark(), file: mark() };
}

async function filesUnder(dir: string): Promise<string[]> {
  const there = await stat(dir).catch(() => undefined);
  if (!there) return [];
  if (!there.isDirectory()) return [dir];
  const out: string[] = [];
  for (const entry of await readdir(dir)) out.push(...(await filesUnder(join(dir, entry))));
  return out;
}

/**
 * Where a planted secret was found in clear: "<place>: <which>" for each. files are state
 * folders and event logs; texts are outputs by name; containers are inspected for their labels
 * (except the secret label, which a computer carries as declared) and environment.
 */
export async function leaks(planted: Planted, where: { files: string[]; texts: Record<string, string>; containers: string[] }): Promise<string[]> {
  const found: string[] = [];
  const secrets = Object.entries(planted) as Array<[keyof Planted, string]>;
  const look = (place: string, text: string, skip: Array<keyof Planted> = []) => {
    for (const [which, value] of secrets) if (!skip.includes(which) && text.includes(value)) found.push(`${place}: ${which}`);
  };
  for (const root of where.files) for (const file of await filesUnder(root)) look(file, await readFile(file, "utf8").catch(() => ""));
  for (const [name, text] of Object.entries(where.texts)) look(name, text);
  for (const name of where.containers) {
    const read = await docker("inspect", "--format", "{{json .Config.Labels}} {{json .Config.Env}}", name);
    if (read.exitCode === 0) look(`container ${name}`, read.stdout, ["label"]);
  }
  return found;
}
