// One browser vendor fake per test file: started before its tests (the browser image built once,
// by its recipe's tag), closed after them, and the file fails if any session of it was left
// running. With a stack, a YAML program pointed at the fake, destroyed before the fake closes.
import { afterAll, beforeAll, expect } from "vitest";
import { FakeBrowserbase } from "./fake-browserbase.js";
import { testStack, type TestStack } from "./stack.js";

export function useBrowserbaseFake(apiKey: string, projectId: string, before?: { close(): Promise<void> }): { readonly fake: FakeBrowserbase } {
  const held: { fake?: FakeBrowserbase } = {};
  beforeAll(async () => {
    held.fake = await FakeBrowserbase.start({ apiKey, projectId, prefix: `agentrun-bbtest-${process.pid}` });
  }, 900_000);
  afterAll(async () => {
    try {
      await before?.close();
    } finally {
      const left = held.fake ? held.fake.live().map((s) => s.id) : [];
      await held.fake?.close();
      expect(left).toEqual([]);
    }
  }, 300_000);
  return {
    get fake() {
      if (!held.fake) throw new Error("the Browserbase fake is not started");
      return held.fake;
    },
  };
}

/** The fake and a stack of these resources whose agentrun:browserbase config (a secret) points the plugin at it. */
export function useBrowserbaseStack(
  name: string,
  keys: { apiKey: string; projectId: string },
  resources: Record<string, unknown>,
  outputs: Record<string, unknown>,
): { readonly fake: FakeBrowserbase; readonly s: TestStack } {
  let stack: TestStack | undefined;
  const held = useBrowserbaseFake(keys.apiKey, keys.projectId, { close: async () => stack?.dispose() });
  beforeAll(async () => {
    stack = await testStack(name, resources, outputs);
    await stack.stack.setConfig("agentrun:browserbase", { value: JSON.stringify({ ...keys, apiUrl: held.fake.apiUrl }), secret: true });
  }, 120_000);
  return {
    get fake() {
      return held.fake;
    },
    get s() {
      if (!stack) throw new Error("the Browserbase stack is not made");
      return stack;
    },
  };
}
