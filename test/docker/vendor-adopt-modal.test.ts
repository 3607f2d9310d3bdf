// Idempotent create on Modal, through the real `modal` SDK at the wire (a loopback server of
// Modal's protocol over root containers): the tags are the container's labels, fixed by its
// docker run (the create request). Modal's SDK reads back no
// creation time of a sandbox, so a delete leaves the owner's other sandboxes.
import { randomBytes } from "node:crypto";
import { execa } from "execa";
import { afterAll, expect, it } from "vitest";
import { DECLARATION_LABEL, OWNER_LABEL } from "../../src/contract/labels.js";
import { MAX_LABELS, MAX_OWNED_LABELS, MAX_TAGS } from "../../src/modal/constants.js";
import { create } from "../../src/modal/create.js";
import { orThrow } from "../../src/daemon/result.js";
import { ModalWireServer, newToken } from "../support/modal-wire/server.js";
import { toolchain } from "../support/toolchain.js";
import { adoptionStory, containerLabels } from "../support/adoption-story.js";

const token = newToken();
const server = await new ModalWireServer({ run: `test-${randomBytes(6).toString("hex")}`, token }).start();
const { fake } = server;
const provider = create({ ...token, serverUrl: server.serverUrl, app: "agentrun-test", daemonPath: toolchain().daemon.amd64 });

afterAll(async () => {
  const left = await fake.running();
  await server.stop();
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

const labelsOf = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`agentrun.test.l${i}`, "v"]));

it.each([
  ["the spec's 6 labels", labelsOf(MAX_LABELS), undefined, false],
  ["an owner's 4 labels, the claims beside them", labelsOf(MAX_OWNED_LABELS), "/work/stack\0urn:most-labels", true],
])(
  "a create with %s fills Modal's 10 tags",
  async (_what, labels, owner, claimed) => {
    expect(Object.keys(labels)).toHaveLength(owner === undefined ? 6 : 4);
    const spec = { image: toolchain().baseImage, lifetimeMs: 600_000, network: "none" as const, labels };
    const ref = orThrow(await provider.create(spec, owner === undefined ? {} : { owner }));
    try {
      const tags = await containerLabels(ref.id, "modal.tag.");
      expect({ count: Object.keys(tags).length, claimed: OWNER_LABEL in tags && DECLARATION_LABEL in tags }).toEqual({ count: MAX_TAGS, claimed });
    } finally {
      expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    }
  },
  120_000,
);
