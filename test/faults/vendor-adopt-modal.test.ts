// Idempotent create on Modal, against the Docker-backed fake of its SDK slice: the tags are the
// container's labels, fixed by its docker run (the create request). Modal's SDK reads back no
// creation time of a sandbox, so a delete leaves the owner's other sandboxes.
import { randomBytes } from "node:crypto";
import { execa } from "execa";
import { afterAll, expect } from "vitest";
import { create } from "../../src/modal/create.js";
import { ModalDockerFake } from "../fakes/modal-docker.js";
import { toolchain } from "../support/toolchain.js";
import { adoptionStory, containerLabels } from "./vendor-adopt.js";

const fake = new ModalDockerFake({ run: `test-${randomBytes(6).toString("hex")}` });
const provider = create({ sdk: fake, app: "agentrun-test", daemonPath: toolchain().daemon.amd64 });

afterAll(async () => {
  const left = await fake.running();
  await fake.remove();
  expect(left, "sandboxes left running after the tests").toEqual([]);
}, 60_000);

adoptionStory("Modal", {
  provider: () => provider,
  spec: { image: toolchain().baseImage, lifetimeMs: 600_000, network: "none", labels: { "agentrun.test": "vendor-adopt" } },
  labelsMade: (id) => containerLabels(id, "modal.tag."),
  held: async (id) => (await fake.running()).includes(id),
  broken: {
    how: "its daemon's binary gone, so no bridge answers",
    make: async (_provider, ref) => void (await execa("docker", ["exec", ref.id, "rm", "-f", "/opt/agentrun/computerd"])),
  },
  readsCreated: false,
});
