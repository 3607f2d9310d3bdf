// Each folder's map stays current: every source file of src/ and of each vendor folder is named
// in the README that maps it, and every file a README names is there.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROVIDER_IDS } from "../../src/providers.js";

const SRC = join(import.meta.dirname, "..", "..", "src");

/** A README and the folders (relative to src/) whose .ts files it maps, each named as `folder/file` or by the file alone under its folder's heading. */
const MAPS: Array<[readme: string, folders: string[]]> = [
  [
    "README.md",
    [
      "",
      "daemon",
      "contract",
      "kits/agent-child",
      "kits/browser",
      "egress",
      "fleet",
      "inside",
      "registry",
      "kits/daemon-upload",
      "kits/conformance",
      "kits/image",
    ],
  ],
  // Each vendor's README maps its folder and its subfolders but conformance/.
  ...PROVIDER_IDS.map((id): [string, string[]] => [
    `${id}/README.md`,
    [id, ...readdirSync(join(SRC, id), { withFileTypes: true }).flatMap((e) => (e.isDirectory() && e.name !== "conformance" ? [`${id}/${e.name}`] : []))],
  ]),
];

const files = (folder: string) => readdirSync(join(SRC, folder)).filter((f) => f.endsWith(".ts"));
const named = (text: string) => new Set([...text.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => m[1]!));

describe("the folder READMEs", () => {
  for (const [readme, folders] of MAPS) {
    it(`src/${readme} names every file it maps, and no file that is not there`, () => {
      const names = named(readFileSync(join(SRC, readme), "utf8"));
      const base = readme.includes("/") ? readme.slice(0, readme.indexOf("/")) : "";
      const missing = folders.flatMap((folder) =>
        files(folder)
          .filter((f) => {
            const inFolder = folder === base ? f : folder.slice(base ? base.length + 1 : 0) + "/" + f;
            return !names.has(f) && !names.has(inFolder) && !names.has(`${folder}/${f}`);
          })
          .map((f) => `${folder}/${f}`),
      );
      expect(missing).toEqual([]);
      // A name is a file of a folder it maps (or its conformance/), or a path from src/ or the repository's root.
      const places = [...folders, `${base}/conformance`].map((f) => join(SRC, f));
      const gone = [...names].filter((n) => ![...places, SRC, join(SRC, "..")].some((at) => existsSync(join(at, n))));
      expect(gone).toEqual([]);
    });
  }
});
