// A snapshot's image config as every vendor that writes one writes it (src/kits/image/snapshot-config.ts):
// from the base image's config alone, its labels the base's less a parent snapshot's, then its own;
// and the words a take's labels and note are held to.
import { describe, expect, it } from "vitest";
import { snapshotConfig, takeRefusals } from "../../src/kits/image/snapshot-config.js";

const NS = "agentrun.computer";

describe("a snapshot's config", () => {
  it("refuses a take's labels in the provider's or the snapshot's namespace, the owner's keys, and a note that is not a string", () => {
    expect(takeRefusals({ team: "a" }, "ready", NS)).toEqual([]);
    expect(takeRefusals({ "agentrun.snapshot.note": "x" }, undefined, NS).map((r) => r.message)).toEqual([
      "the label agentrun.snapshot.note is the snapshot's own (agentrun.snapshot); choose another key",
    ]);
    expect(takeRefusals({ "agentrun.computer.deadline": "x" }, undefined, NS)[0]?.field).toBe("labels");
    expect(takeRefusals({ "agentrun.owner": "x" }, undefined, NS)[0]?.message).toMatch(/is the provider's own/);
    expect(takeRefusals(undefined, 3, NS)).toEqual([{ field: "note", message: "note is a string with no NUL" }]);
  });

  it("is written from the image the computer started from: its labels, and nothing of the container's config", () => {
    const source = {
      config: { Env: ["PATH=/bin"], Cmd: ["sh"], Labels: { recipe: "r", "agentrun.snapshot": "1", "agentrun.snapshot.note": "the parent's" } },
      architecture: "amd64",
      os: "linux",
      diffIds: ["sha256:l1"],
    };
    const labels = { "agentrun.snapshot": "1", "agentrun.snapshot.computer": "computer-0123456789ab", team: "a" };
    const written = snapshotConfig(source, ["sha256:l1", "sha256:l2"], {
      created: "2026-12-05T00:00:00.000Z",
      computer: "computer-0123456789ab",
      labels,
      note: "n",
    });
    const config = JSON.parse(written.bytes.toString()) as Record<string, unknown>;
    expect(Object.keys(config).sort()).toEqual(["architecture", "config", "created", "history", "os", "rootfs"]);
    // The parent's snapshot labels give way to this one's.
    expect(config.config).toEqual({ Env: ["PATH=/bin"], Cmd: ["sh"], Labels: { recipe: "r", ...labels } });
    expect(config.rootfs).toEqual({ type: "layers", diff_ids: ["sha256:l1", "sha256:l2"] });
    expect(config.history).toEqual([
      { created: "2026-12-05T00:00:00.000Z", created_by: "a layer of the image computer-0123456789ab started from" },
      { created: "2026-12-05T00:00:00.000Z", created_by: "agentrun snapshot of computer-0123456789ab", comment: "n" },
    ]);
    expect(written.id).toMatch(/^[0-9a-f]{64}$/);
    // A commit that changed nothing adds no layer: the snapshot's entry is an empty one.
    const same = JSON.parse(snapshotConfig(source, ["sha256:l1"], { created: "t", computer: "c", labels }).bytes.toString()) as { history: unknown[] };
    expect(same.history).toEqual([
      { created: "t", created_by: "a layer of the image c started from" },
      { created: "t", created_by: "agentrun snapshot of c", empty_layer: true },
    ]);
  });
  it("appends the home's layer last, with its own history entry", () => {
    const base = { config: { Env: ["PATH=/bin"] }, diffIds: ["sha256:l1", "sha256:l2"] };
    const written = JSON.parse(
      snapshotConfig(base, base.diffIds, { created: "t", computer: "c", labels: { "agentrun.snapshot": "1" }, home: "sha256:h" }).bytes.toString(),
    ) as { rootfs: { diff_ids: string[] }; history: Array<{ empty_layer?: boolean; created_by: string }> };
    expect(written.rootfs.diff_ids).toEqual(["sha256:l1", "sha256:l2", "sha256:h"]);
    // A layer per diff id, as a runtime counts them: the history entries that are not empty.
    expect(written.history.filter((h) => !h.empty_layer).length).toBe(3);
    expect(written.history.at(-1)?.created_by).toBe("agentrun snapshot of c's home");
  });
});
