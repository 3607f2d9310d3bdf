// Modal's state at the wire: no pause (terminate is a sandbox's only end), and its filesystem
// snapshot through the real SDK (TaskSnapshotFilesystem on the command router, ImageFromId and
// ImageDelete on the control plane) as snapshot://modal/<image id>; forks made from one hold its
// files and are independent. Each sandbox is terminated by its exact id and each image removed,
// pass or fail; the wire's fake removes what its run made after the test.
import { describe, expect, it } from "vitest";
import type { ComputerProvider, ComputerRef, Connection } from "../../src/contract/provider.js";
import { orThrow } from "../../src/daemon/result.js";
import type { ModalProvider } from "../../src/modal/provider.js";
import { spec, wires } from "../support/modal-helpers.js";

const wire = wires();
const text = (b64: string) => Buffer.from(b64, "base64").toString();

async function sh(provider: ModalProvider, ref: ComputerRef, script: string): Promise<string> {
  const conn: Connection = orThrow(await provider.connect(ref));
  try {
    const ran = await conn.client.call("exec.run", { argv: ["sh", "-c", script], timeoutMs: 20_000 });
    return text(ran.stdout);
  } finally {
    await conn.close();
  }
}

describe("Modal's snapshots at the wire", () => {
  it("has no pause, and takes snapshots; its forks hold the files with owner and mode, apart from each other; remove deletes the image", async () => {
    const { provider, server } = await wire();
    expect(provider.capabilities().pause).toBeUndefined();
    expect(provider.capabilities().snapshot).toBe(true);
    expect((provider as ComputerProvider).pause).toBeUndefined();
    const parent = orThrow(await provider.create(spec()));
    const forks: ComputerRef[] = [];
    let image: string | undefined;
    try {
      const stat = "stat -c '%u:%g %a' /work/task/data.txt; cat /work/task/data.txt";
      const inParent = await sh(provider, parent, `mkdir -p /work/task && echo prepared > /work/task/data.txt && chmod 640 /work/task/data.txt; ${stat}`);
      expect(inParent).toBe("2510:2510 640\nprepared\n");
      const taken = orThrow(await provider.snapshots!.take(parent));
      image = taken.image;
      expect(taken).toMatchObject({ computer: parent.name, labels: { "agentrun.snapshot": "1" } });
      expect(taken.image).toMatch(/^snapshot:\/\/modal\/im-[0-9a-f]{24}$/);
      expect(server.methods()).toContain("TaskSnapshotFilesystem");
      expect(orThrow(await provider.snapshots!.read(taken.image)).image).toBe(taken.image);

      for (let i = 0; i < 2; i += 1) forks.push(orThrow(await provider.create(spec({ image: taken.image }))));
      for (const fork of forks) {
        const read = orThrow(await provider.read({ id: fork.id }));
        expect(read.drift).toEqual([]);
        expect(read.ref.spec?.image).toBe(taken.image);
        expect(await sh(provider, fork, stat)).toBe(inParent);
      }
      await sh(provider, forks[0]!, "echo mine > /work/task/only-in-first.txt");
      expect(await sh(provider, forks[1]!, "ls /work/task")).toBe("data.txt\n");

      expect(await provider.snapshots!.remove(taken.image)).toEqual({ ok: true, value: undefined });
      expect(server.methods()).toContain("ImageDelete");
      expect(await provider.snapshots!.read(taken.image)).toMatchObject({ ok: false, error: { code: "not_found" } });
      expect(await provider.snapshots!.remove(taken.image)).toEqual({ ok: true, value: undefined });
      image = undefined;
      // A fork of a removed snapshot is refused in Modal's words, and nothing is left.
      const late = await provider.create(spec({ image: taken.image }));
      expect(late).toMatchObject({ ok: false, error: { code: "not_found" } });
    } finally {
      if (image) await provider.snapshots!.remove(image);
      for (const ref of [...forks, parent]) expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    }
  }, 300_000);

  it("refuses another provider's snapshot at check, a snapshot of a computer that is gone, and labels Modal cannot keep", async () => {
    const { provider, fake } = await wire();
    const checked = provider.check(spec({ image: "snapshot://daytona/computer-000000000000-snapshot-000000000000" }));
    expect(checked.ok).toBe(false);
    if (!checked.ok)
      expect(checked.error.message).toMatch(
        /is a snapshot taken on daytona, which a computer on modal cannot start from: fork it on daytona, or take a snapshot on modal/,
      );
    expect(provider.check(spec({ image: "snapshot://modal/im-0123456789abcdef01234567" })).ok).toBe(true);

    const ref = orThrow(await provider.create(spec()));
    try {
      expect(await provider.snapshots!.take(ref, { labels: { team: "a" } })).toMatchObject({ ok: false, error: { code: "unsupported", field: "labels" } });
    } finally {
      expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    }
    const gone = await provider.snapshots!.take(ref);
    expect(gone).toMatchObject({ ok: false, error: { code: "not_found", field: "computer" } });
    const images = await fake.docker(["image", "ls", "--quiet", "--filter", `label=agentrun.test.modal-fake.snapshot=${fake.run}`]);
    expect(images.stdout.trim()).toBe("");
  }, 300_000);
});
