// Idempotent create on Daytona, against the fake of its REST API and toolbox on the loopback: the
// labels are those the create request's body gave the fake, and Daytona's createdAt orders a
// delete's removal of the owner's earlier sandboxes.
import { beforeAll } from "vitest";
import { create } from "../../src/daytona/create.js";
import type { DaytonaProvider } from "../../src/daytona/provider.js";
import { useDaytonaFake } from "../support/daytona-helpers.js";
import { toolchain } from "../support/toolchain.js";
import { adoptionStory } from "../support/adoption-story.js";

const KEY = `fake-key-${process.pid}`;
const held = useDaytonaFake(KEY);
let provider: DaytonaProvider;

beforeAll(() => {
  provider = create({ apiKey: KEY, apiUrl: held.fake.apiUrl, daemonPath: toolchain().daemon.amd64, pollMs: 100 });
});

adoptionStory("Daytona", {
  provider: () => provider,
  spec: { image: "default", lifetimeMs: 600_000, network: "none", labels: { "agentrun.test": "vendor-adopt" } },
  labelsMade: async (id) => ({ ...held.fake.sandboxes.get(id)!.labels }),
  held: async (id) => held.fake.sandboxes.has(id),
  broken: {
    how: "stopped",
    make: async (p, ref) => {
      const stopped = await p.release(ref, "stop");
      if (!stopped.ok) throw new Error(stopped.error.message);
    },
  },
  readsCreated: true,
});
