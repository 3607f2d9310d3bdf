// The TypeScript SDK: generated from schema.json and held to it, and its resources register with
// the type tokens and inputs the plugin serves. The Node.js language host cannot be built on
// these machines, so a TypeScript stack runs here under the SDK's own mocks, not the engine.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, test } from "vitest";
import { ROOT } from "../support/toolchain.js";

describe("the TypeScript SDK", () => {
  test("is what scripts/gen-sdk.mjs makes from schema.json today", async () => {
    const r = await execa("node", [`${ROOT}/scripts/gen-sdk.mjs`, "--check"], { reject: false });
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
  });

  test("the TypeScript example stack type-checks against it", async () => {
    // Against the sources package.json's exports are built from, so no build is needed: each
    // export's dist/ file mapped back to its .ts (./dist/provider/sdk/index.d.ts: provider/sdk/index.ts).
    const exported = JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8")).exports as Record<string, string | { types: string }>;
    const paths = Object.fromEntries(
      Object.entries(exported).map(([key, target]) => {
        const built = typeof target === "string" ? target : target.types;
        return [`@agentrun/computer${key.slice(1)}`, [path.join(ROOT, built.replace(/^\.\/dist\//, "").replace(/(\.d)?\.[jt]s$/, ".ts"))]];
      }),
    );
    const dir = mkdtempSync(path.join(tmpdir(), "agentrun-example-"));
    try {
      const config = path.join(dir, "tsconfig.json");
      writeFileSync(
        config,
        JSON.stringify({
          extends: `${ROOT}/examples/typescript/tsconfig.json`,
          compilerOptions: { paths, typeRoots: [`${ROOT}/node_modules/@types`], rootDir: ROOT },
        }),
      );
      const r = await execa("npx", ["tsc", "-p", config], { reject: false, cwd: ROOT });
      expect(r.stdout + r.stderr).toBe("");
      expect(r.exitCode).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // A whole tsc of the library: ~20 s quiet, past a minute with npm test's Docker suites beside it.
  }, 180_000);

  test("registers each resource with its type token and the inputs given", async () => {
    const registered: Array<{ type: string; name: string; inputs: Record<string, unknown> }> = [];
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          registered.push({ type: args.type, name: args.name, inputs: args.inputs });
          return { id: `${args.name}-id`, state: { ...args.inputs, name: "computer-0123456789ab" } };
        },
        call: () => ({}),
      },
      "project",
      "stack",
      false,
    );
    const sdk = await import("../../provider/sdk/index.js");
    const work = new sdk.Mount("work", { path: "/var/tmp/agentrun/runs/r1/work" });
    const claim = new sdk.RunEpoch("claim", { run: "r1", epoch: 1 });
    const c = new sdk.Computer("c0", { image: "agentrun-base:x", lifetimeMs: 60_000, mount: work.mount, labels: claim.labels });
    const name = await new Promise((resolve) => c.name.apply(resolve));
    expect(name).toBe("computer-0123456789ab");
    expect(registered.map((r) => r.type)).toEqual(["agentrun:index:Mount", "agentrun:index:RunEpoch", "agentrun:index:Computer"]);
    expect(registered[2]!.inputs).toMatchObject({ image: "agentrun-base:x", lifetimeMs: 60_000 });
  });
});
