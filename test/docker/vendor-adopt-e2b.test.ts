// Idempotent create on E2B, against the Docker-backed fake of its SDK slice: the metadata is the
// container's labels, fixed by its docker run (the create request), and E2B's startedAt orders a
// delete's removal of the owner's earlier sandboxes.
import { execa } from "execa";
import { create } from "../../src/e2b/create.js";
import { useE2BFake } from "../support/e2b-helpers.js";
import { toolchain } from "../support/toolchain.js";
import { adoptionStory, containerLabels } from "../support/adoption-story.js";

const KEY = `e2b_test_${process.pid}`;
const fake = useE2BFake(KEY);
const provider = create({ sdk: fake, apiKey: KEY, daemonPath: toolchain().daemon.amd64, timeouts: { pollMs: 100 } });

// computerd init, found by its command line (the image has no pkill), killed as root.
const KILL_INIT = `for p in /proc/[0-9]*; do case "$(tr '\\0' ' ' < "$p/cmdline" 2>/dev/null)" in "/opt/agentrun/computerd init "*) kill -9 "\${p#/proc/}";; esac; done`;

adoptionStory("E2B", {
  provider: () => provider,
  spec: { image: "base", kind: "linux", lifetimeMs: 600_000, network: "none", labels: { "agentrun.test": "vendor-adopt" } },
  labelsMade: (id) => containerLabels(id, "e2b.meta."),
  // A killed sandbox's container is removed.
  held: async (id) => (await execa("docker", ["inspect", "--type", "container", id], { reject: false })).exitCode === 0,
  broken: {
    how: "its daemon killed",
    make: async (_provider, ref) => void (await execa("docker", ["exec", ref.id, "sh", "-c", KILL_INIT])),
  },
  readsCreated: true,
});
