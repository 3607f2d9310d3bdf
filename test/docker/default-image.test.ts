// The provider's own image wherever the package is installed: its recipe stands on the pinned
// base, pulled once from a registry that answers (here the test's own on 127.0.0.1, holding a
// base the test pushed under the pinned name's path), and on the set-up's local base where no
// registry answers; the provider says which. A registry that answers without the image is said,
// not routed around. Every image the test pulls or builds is removed by its exact name.
import { mkdtempSync, realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "../../src/docker/create.js";
import type { BaseChoice } from "../../src/docker/default-image.js";
import { dockerRecipe, recipeTag } from "../../src/docker/image.js";
import { packagedDaemon } from "../../src/docker/settings.js";
import { freePort } from "../support/second-engine.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { toolchain } from "../support/toolchain.js";

const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "agentrun-registry-")));
const provider = (base: string) => create({ daemonPath: packagedDaemon(), daemonCache: path.join(dir, "cache"), base });
const layers = async (image: string): Promise<string[]> =>
  JSON.parse((await execa("docker", ["image", "inspect", "--format", "{{json .RootFS.Layers}}", image])).stdout) as string[];
/** Images made here, removed by exact name after. */
const made: string[] = [];

let registry: TestRegistry | undefined;
beforeAll(async () => {
  registry = await startRegistry(path.join(dir, "registry"));
}, 120_000);

afterAll(async () => {
  if (made.length) await execa("docker", ["rmi", "--force", ...made], { reject: false });
  await registry?.stop();
  await rm(dir, { recursive: true, force: true });
}, 120_000);

describe("the provider's own image", () => {
  it("stands on the pinned base, pulled once from the registry that answers, and says so", async () => {
    // The set-up's default image as the test's pinned base: it holds the recipe's packages, so
    // the recipe's install is quick; the pull and the build on it are the provider's.
    const local = recipeTag(dockerRecipe(toolchain().baseImage));
    const pinned = await registry!.push(local, "library/python", "3.12-slim");
    made.push(pinned);
    const tag = recipeTag(dockerRecipe(pinned, true));
    made.push(tag);

    const waits: string[] = [];
    const bases: BaseChoice[] = [];
    const first = await provider(pinned).image({ onWait: (making, t) => waits.push(`${making} ${t}`), onBase: (b) => bases.push(b) });
    expect(first).toEqual({ ok: true, value: tag });
    expect(bases).toEqual([{ image: pinned, from: "pinned", words: `the pinned base ${pinned}` }]);
    expect(waits).toEqual([`pull ${pinned}`, `build ${tag}`]);
    const [base, built] = await Promise.all([layers(pinned), layers(tag)]);
    expect(built.slice(0, base.length)).toEqual(base);

    // Another provider (a later process's) finds both: nothing pulled or built again.
    const again: string[] = [];
    const second = await provider(pinned).image({ onWait: (making, t) => again.push(`${making} ${t}`) });
    expect(second).toEqual({ ok: true, value: tag });
    expect(again).toEqual([]);
  }, 900_000);

  it("stands on the set-up's local base where no registry answers, and says why", async () => {
    const nowhere = `127.0.0.1:${await freePort()}/library/python:3.12-slim@sha256:${"0".repeat(64)}`;
    const bases: BaseChoice[] = [];
    const image = await provider(nowhere).image({ onBase: (b) => bases.push(b) });
    expect(image).toEqual({ ok: true, value: recipeTag(dockerRecipe(toolchain().baseImage)) });
    expect(bases).toHaveLength(1);
    expect(bases[0]).toMatchObject({ image: toolchain().baseImage, from: "local" });
    expect(bases[0]!.words).toBe(
      `the set-up's local base ${toolchain().baseImage}, as the pinned base ${nowhere} could not be pulled (the registry could not be reached)`,
    );
  }, 300_000);

  it("is refused in words when the registry answers without the pinned base: no fallback", async () => {
    const missing = `${registry!.host}/library/python:3.12-slim@sha256:${"1".repeat(64)}`;
    const bases: BaseChoice[] = [];
    const image = await provider(missing).image({ onBase: (b) => bases.push(b) });
    expect(image.ok).toBe(false);
    if (!image.ok) {
      expect(image.error.message).toBe(
        `the image ${missing} is not on this Docker host and could not be pulled: the registry has no such image; check its name`,
      );
      expect(image.error.detail).toMatchObject({ kind: "image-unpulled", provider: "docker", setting: "image" });
    }
    expect(bases).toEqual([]);
  }, 300_000);

  it("refuses a base option not pinned by its digest, at construction", () => {
    expect(() => provider("python:3.12-slim")).toThrow(/base option is an image by name pinned by its digest/);
  });
});
