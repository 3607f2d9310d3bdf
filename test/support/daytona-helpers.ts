// One Daytona fake per test file: started before its tests on the set-up's base image with the
// stand-in toolbox, closed after them, and the file fails if any container of it was left. With a
// stack, a YAML program pointed at the fake, destroyed before the fake closes.
import { afterAll, beforeAll, expect } from "vitest";
import { type Fake, startFake } from "./fake-daytona.js";
import { testStack, type TestStack } from "./stack.js";
import { standinBinary } from "./standin.js";
import { toolchain } from "./toolchain.js";

export function useDaytonaFake(apiKey: string, before?: { close(): Promise<void> }): { readonly fake: Fake } {
  const held: { fake?: Fake } = {};
  beforeAll(async () => {
    held.fake = await startFake({ image: toolchain().baseImage, standin: await standinBinary(), apiKey });
  }, 120_000);
  afterAll(async () => {
    try {
      await before?.close();
    } finally {
      const left = held.fake ? await held.fake.containers() : [];
      await held.fake?.close();
      expect(left).toEqual([]);
    }
  }, 300_000);
  return {
    get fake() {
      if (!held.fake) throw new Error("the Daytona fake is not started");
      return held.fake;
    },
  };
}

/** The fake and a stack of these resources whose agentrun:daytona config (a secret) points the plugin at it. */
export function useDaytonaStack(
  name: string,
  apiKey: string,
  resources: Record<string, unknown>,
  outputs: Record<string, unknown>,
): { readonly fake: Fake; readonly s: TestStack } {
  let stack: TestStack | undefined;
  const held = useDaytonaFake(apiKey, { close: async () => stack?.dispose() });
  beforeAll(async () => {
    stack = await testStack(name, resources, outputs);
    await stack.stack.setConfig("agentrun:daytona", { value: JSON.stringify({ apiKey, apiUrl: held.fake.apiUrl }), secret: true });
  }, 120_000);
  return {
    get fake() {
      return held.fake;
    },
    get s() {
      if (!stack) throw new Error("the Daytona stack is not made");
      return stack;
    },
  };
}
