// The paths of an allowlisted computer's system trust store, held to init's own
// (test/vectors/trust-bundles.json, written by daemon/internal/egress/trust's vectors_test.go).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RUN_DIR } from "../../src/docker/constants.js";
import { IMAGE_ROOTS, SYSTEM_BUNDLES, TRUST_BUNDLE } from "../../src/egress/trust-store.js";

const vectors = JSON.parse(readFileSync(join(import.meta.dirname, "..", "vectors", "trust-bundles.json"), "utf8")) as {
  imageRoots: string;
  systemBundles: string[];
  bundle: string;
};

describe("the system trust store's paths", () => {
  it("are init's: where the image's roots go, where systems keep them, and init's bundle", () => {
    expect({ imageRoots: IMAGE_ROOTS, systemBundles: [...SYSTEM_BUNDLES], bundle: TRUST_BUNDLE }).toEqual({
      ...vectors,
      bundle: `${RUN_DIR}/${vectors.bundle}`,
    });
  });
});
