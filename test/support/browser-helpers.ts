// One browser vendor fake per test file: started before its tests (the browser image built once,
// by its recipe's tag), closed after them, and the file fails if any session of it was left
// running. With a stack, a YAML program pointed at the fake, destroyed before the fake closes.
import { afterAll, beforeAll, expect } from "vitest";
import { FakeBrowserbase } from "./fake-browserbase.js";
import { FakeKernel } from "./fake-kernel.js";
import { testStack, type TestStack } from "./stack.js";

/** A fake started before the file's tests and closed after them; the file fails if it still runs a browser. */
function useFake<F extends { close(): Promise<void>; live(): unknown[] }>(start: () => Promise<F>, before?: { close(): Promise<void> }): { readonly fake: F } {
  const held: { fake?: F } = {};
  beforeAll(async () => {
    held.fake = await start();
  }, 900_000);
  afterAll(async () => {
    try {
      await before?.close();
    } finally {
      const left = held.fake ? held.fake.live() : [];
      await held.fake?.close();
      expect(left).toEqual([]);
    }
  }, 300_000);
  return {
    get fake() {
      if (!held.fake) throw new Error("the browser fake is not started");
      return held.fake;
    },
  };
}

export function useBrowserbaseFake(apiKey: string, projectId: string, before?: { close(): Promise<void> }): { readonly fake: FakeBrowserbase } {
  return useFake(() => FakeBrowserbase.start({ apiKey, projectId, prefix: `agentrun-bbtest-${process.pid}` }), before);
}

export function useKernelFake(apiKey: string, before?: { close(): Promise<void> }): { readonly fake: FakeKernel } {
  return useFake(() => FakeKernel.start({ apiKey, prefix: `agentrun-ktest-${process.pid}` }), before);
}

/** A fake and a stack of these resources whose agentrun:<vendor> config (a secret) points the plugin at it. */
function useStack<F extends { apiUrl: string }>(
  vendor: string,
  name: string,
  keys: Record<string, string>,
  useIt: (before: { close(): Promise<void> }) => { readonly fake: F },
  resources: Record<string, unknown>,
  outputs: Record<string, unknown>,
): { readonly fake: F; readonly s: TestStack } {
  let stack: TestStack | undefined;
  const held = useIt({ close: async () => stack?.dispose() });
  beforeAll(async () => {
    stack = await testStack(name, resources, outputs);
    await stack.stack.setConfig(`agentrun:${vendor}`, { value: JSON.stringify({ ...keys, apiUrl: held.fake.apiUrl }), secret: true });
  }, 120_000);
  return {
    get fake() {
      return held.fake;
    },
    get s() {
      if (!stack) throw new Error(`the ${vendor} stack is not made`);
      return stack;
    },
  };
}

export function useBrowserbaseStack(
  name: string,
  keys: { apiKey: string; projectId: string },
  resources: Record<string, unknown>,
  outputs: Record<string, unknown>,
): { readonly fake: FakeBrowserbase; readonly s: TestStack } {
  return useStack("browserbase", name, keys, (before) => useBrowserbaseFake(keys.apiKey, keys.projectId, before), resources, outputs);
}

export function useKernelStack(
  name: string,
  keys: { apiKey: string },
  resources: Record<string, unknown>,
  outputs: Record<string, unknown>,
): { readonly fake: FakeKernel; readonly s: TestStack } {
  return useStack("kernel", name, keys, (before) => useKernelFake(keys.apiKey, before), resources, outputs);
}
