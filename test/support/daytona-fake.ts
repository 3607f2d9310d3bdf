// One Daytona fake per test file: started before its tests on the set-up's base image with the
// stand-in toolbox, closed after them, and the file fails if any container of it was left.
import { afterAll, beforeAll, expect } from "vitest";
import { type Fake, startFake } from "../fakes/daytona.js";
import { standinBinary } from "./standin.js";
import { toolchain } from "./toolchain.js";

export function useDaytonaFake(apiKey: string): { readonly fake: Fake } {
  const held: { fake?: Fake } = {};
  beforeAll(async () => {
    held.fake = await startFake({ image: toolchain().baseImage, standin: await standinBinary(), apiKey });
  }, 120_000);
  afterAll(async () => {
    const left = held.fake ? await held.fake.containers() : [];
    await held.fake?.close();
    expect(left).toEqual([]);
  }, 60_000);
  return {
    get fake() {
      if (!held.fake) throw new Error("the Daytona fake is not started");
      return held.fake;
    },
  };
}
