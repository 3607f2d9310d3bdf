// One browser vendor fake per test file: started before its tests (the browser image built once,
// by its recipe's tag), closed after them, and the file fails if any session of it was left running.
import { afterAll, beforeAll, expect } from "vitest";
import { FakeBrowserbase } from "./fake-browserbase.js";

export function useBrowserbaseFake(apiKey: string, projectId: string): { readonly fake: FakeBrowserbase } {
  const held: { fake?: FakeBrowserbase } = {};
  beforeAll(async () => {
    held.fake = await FakeBrowserbase.start({ apiKey, projectId, prefix: `agentrun-bbtest-${process.pid}` });
  }, 900_000);
  afterAll(async () => {
    const left = held.fake ? held.fake.live().map((s) => s.id) : [];
    await held.fake?.close();
    expect(left).toEqual([]);
  }, 120_000);
  return {
    get fake() {
      if (!held.fake) throw new Error("the Browserbase fake is not started");
      return held.fake;
    },
  };
}
