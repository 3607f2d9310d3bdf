// One E2B fake per test file: its stand-in envd built first, and every container and network of
// its run removed after the tests; the file fails if any container of it was left.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect } from "vitest";
import { E2BDockerFake } from "./fake-e2b-docker.js";
import { standinBinary } from "./standin.js";

export function useE2BFake(apiKey: string, templates?: Record<string, string>): E2BDockerFake {
  const fake = new E2BDockerFake({ run: `test-${randomBytes(6).toString("hex")}`, apiKey, ...(templates ? { templates } : {}) });
  beforeAll(async () => {
    await standinBinary();
  }, 120_000);
  afterAll(async () => {
    const left = await fake.containers();
    await fake.remove();
    expect(left).toEqual([]);
  }, 60_000);
  return fake;
}
