// ComputerFiles against a real Docker computer: the resource's create, read, update and delete as
// the plugin calls them, checked from inside with docker exec; batches of at most 64 MiB; and the
// seed's chaos case: the connection cut during a batch leaves no part file, and a retry writes
// every file whole.
import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { computerFiles } from "../../provider/resources/computer-files.js";
import { fileToLoad, loadFiles, syncFiles } from "../../src/inside/load.js";
import { openSession } from "../../src/inside/session.js";
import type { ComputerClient } from "../../src/daemon/client.js";
import { bridgedProvider, docker, inside, cuttingClient, makeComputer, stepContext } from "../support/inside-helpers.js";

const SIG = "4dabf18193072939515e22adb298388d";
// As the engine sends them: each with its hash.
const text = (t: string) => ({ [SIG]: "c44067f5952c0a294b673a41bacd8c17", text: t, hash: sha(t) });
const folder = (path: string) => ({ [SIG]: "0def7320c3a5731c473e5ecbe6d01bc7", path, hash: sha(path) });
const sha = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

let computer: { name: string; remove(): Promise<void> };
let local: string;
beforeAll(async () => {
  computer = await makeComputer();
  local = await mkdtemp(join(tmpdir(), "agentrun-files-"));
}, 120_000);
afterAll(async () => {
  await computer?.remove();
  await rm(local, { recursive: true, force: true });
}, 60_000);

describe("ComputerFiles on a real computer", () => {
  const csv = "id,score\n1,0.5\n2,0.75\n";
  let outs: Record<string, unknown>;
  let inputs: Record<string, unknown>;

  test("create writes each file under the destination with its mode, read back by sha256", async () => {
    await mkdir(join(local, "app"));
    await writeFile(join(local, "app/run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
    const checked = await computerFiles.check(
      stepContext(),
      {},
      { computer: computer.name, files: { "scores.csv": text(csv), tools: folder(join(local, "app")) }, destination: "Documents" },
    );
    expect(checked.failures ?? []).toEqual([]);
    inputs = checked.inputs!;
    const created = await computerFiles.create(stepContext(), inputs);
    outs = created.outs!;
    expect(outs.written).toEqual({
      "Documents/scores.csv": { sha256: sha(csv), mode: "644" },
      "Documents/tools/run.sh": { sha256: sha("#!/bin/sh\necho hi\n"), mode: "755" },
    });
    expect((await inside(computer.name, "cat ~/Documents/scores.csv")).stdout).toBe(csv.trim());
    expect((await inside(computer.name, "stat -c %a ~/Documents/tools/run.sh")).stdout).toBe("755");
  }, 120_000);

  test("read finds no drift while every file is as written", async () => {
    const read = await computerFiles.read(stepContext(), "files-x", outs);
    expect((read.props as { drift: string[] }).drift).toEqual([]);
  }, 60_000);

  test("a file changed and one removed inside are drift; diff asks for an update; update writes them again", async () => {
    await inside(computer.name, "echo 3,1 >> ~/Documents/scores.csv; rm ~/Documents/tools/run.sh");
    const read = await computerFiles.read(stepContext(), "files-x", outs);
    const drifted = read.props as Record<string, unknown>;
    expect(drifted.drift).toEqual([
      expect.stringMatching(/^Documents\/scores\.csv was changed inside the computer \(sha256 [0-9a-f]{12}…, not [0-9a-f]{12}…\)$/),
      "Documents/tools/run.sh was removed inside the computer",
    ]);
    expect(await computerFiles.diff(stepContext(), "files-x", drifted, inputs)).toMatchObject({ changes: true, replaces: [] });
    const updated = await computerFiles.update(stepContext(), "files-x", drifted, inputs);
    expect((updated.outs as { drift: string[] }).drift).toEqual([]);
    expect((await inside(computer.name, "sha256sum < ~/Documents/scores.csv")).stdout).toBe(`${sha(csv)}  -`);
    const again = await computerFiles.read(stepContext(), "files-x", updated.outs!);
    expect((again.props as { drift: string[] }).drift).toEqual([]);
    outs = updated.outs!;
  }, 120_000);

  test("diff sees no change when nothing changed, an update when an entry's hash changes, and a replace when the computer changes", async () => {
    // diff is given hashes alone, as the engine sends them.
    const elided = (files: Record<string, { hash: string }>) =>
      Object.fromEntries(Object.entries(files).map(([k, v]) => [k, { [SIG]: (v as Record<string, string>)[SIG], hash: v.hash }]));
    const files = inputs.files as Record<string, { hash: string }>;
    expect(await computerFiles.diff(stepContext(), "files-x", outs, { ...inputs, files: elided(files) })).toMatchObject({ changes: false });
    expect(
      await computerFiles.diff(stepContext(), "files-x", outs, { ...inputs, files: elided({ ...files, "scores.csv": { hash: sha("other") } }) }),
    ).toMatchObject({ changes: true, replaces: [] });
    expect(await computerFiles.diff(stepContext(), "files-x", outs, { ...inputs, computer: "computer-000000000000" })).toMatchObject({
      changes: true,
      replaces: ["computer"],
    });
  }, 60_000);

  test("delete removes the files it wrote and never others", async () => {
    await inside(computer.name, "echo mine > ~/Documents/notes.txt");
    await computerFiles.delete(stepContext(), "files-x", outs);
    expect((await inside(computer.name, "cd ~/Documents && find . | sort")).stdout).toBe(".\n./notes.txt\n./tools");
  }, 60_000);

  test("read of files whose computer is gone drops the resource; delete is fine", async () => {
    const gone = { ...outs, computer: "computer-000000000000" };
    expect(await computerFiles.read(stepContext(), "files-x", gone)).toEqual({});
    await expect(computerFiles.delete(stepContext(), "files-x", gone)).resolves.toBeUndefined();
  }, 60_000);
});

describe("batches on a real computer", () => {
  test("90 MiB in three files goes in two batches of at most 64 MiB and lands whole", async () => {
    const MiB = 2 ** 20;
    const sizes = [40, 40, 10];
    const blobs = sizes.map((n) => randomBytes(n * MiB));
    await Promise.all(blobs.map((b, i) => writeFile(join(local, `big${i}.bin`), b)));
    const said: string[] = [];
    const files = Object.fromEntries(blobs.map((_, i) => [`big${i}.bin`, { [SIG]: "c44067f5952c0a294b673a41bacd8c17", path: join(local, `big${i}.bin`) }]));
    const created = await computerFiles.create(stepContext(said), { computer: computer.name, provider: "docker", files, destination: "Downloads/big" });
    expect(said.filter((l) => l.includes("batch"))).toEqual([
      `loading files into ${computer.name}: batch 1 of 2 (40.0 MiB)`,
      `loading files into ${computer.name}: batch 2 of 2 (50.0 MiB)`,
    ]);
    expect(Object.values((created.outs as { written: Record<string, { sha256: string }> }).written).map((w) => w.sha256)).toEqual(blobs.map(sha));
    await computerFiles.delete(stepContext(), "files-big", created.outs!);
  }, 300_000);
});

/** The client with each call's method put in order as it is made, and "exec.run answered" as each exec.run answers. */
function recording(inner: ComputerClient, order: string[]): ComputerClient {
  return {
    call: async (m: string, params: unknown, options?: unknown) => {
      order.push(m);
      try {
        return await (inner.call as (m: string, p: unknown, o?: unknown) => Promise<unknown>)(m, params, options);
      } finally {
        if (m === "exec.run") order.push("exec.run answered");
      }
    },
    request: inner.request.bind(inner),
    close: inner.close.bind(inner),
  } as unknown as ComputerClient;
}

describe("a sync's reads of its sources", () => {
  test("a new file's source is read once, by its push; one already there as wanted is read once to compare, and not sent", async () => {
    const blob = randomBytes(2 * 2 ** 20);
    let reads = 0;
    const file = () =>
      fileToLoad("Downloads/once/f.bin", 0o644, blob.length, async function* () {
        reads++;
        yield blob;
      });
    const opened = await openSession(docker, computer.name);
    if (!opened.ok) throw new Error(opened.error.message);
    try {
      const first = await syncFiles(opened.value, [file()], []);
      expect(first.ok && first.value).toEqual({ "Downloads/once/f.bin": { sha256: sha(blob), mode: "644" } });
      expect(reads).toBe(1);
      const calls: string[] = [];
      const again = await syncFiles({ ...opened.value, client: recording(opened.value.client, calls) }, [file()], []);
      expect(again.ok && again.value).toEqual({ "Downloads/once/f.bin": { sha256: sha(blob), mode: "644" } });
      expect(reads).toBe(2);
      expect(calls.filter((m) => m.startsWith("tar.push"))).toEqual([]);
    } finally {
      await opened.value.close();
    }
  }, 120_000);
});

describe("a batch's read-back beside the next push", () => {
  test("the second batch's push begins before the first batch's read-back (computerd sums) has answered", async () => {
    const blobs = [randomBytes(40 * 2 ** 20), randomBytes(40 * 2 ** 20)];
    const load = blobs.map((b, i) =>
      fileToLoad(`Downloads/beside/f${i}.bin`, 0o644, b.length, async function* () {
        yield b;
      }),
    );
    const opened = await openSession(docker, computer.name);
    if (!opened.ok) throw new Error(opened.error.message);
    const inner = opened.value.client;
    const order: string[] = [];
    const client = recording(inner, order);
    const loaded = await loadFiles({ ...opened.value, client }, load);
    await opened.value.close();
    expect(loaded.ok && Object.values(loaded.value).map((r) => r.sha256)).toEqual(blobs.map(sha));
    const begins = order.flatMap((m, i) => (m === "tar.push.begin" ? [i] : []));
    expect(begins).toHaveLength(2);
    expect(begins[1]).toBeLessThan(order.indexOf("exec.run answered"));
  }, 120_000);
});

describe("chaos: the connection cut during a batch", () => {
  test("fails naming the computer, the call and the cause; leaves no part file; a retry writes every file whole", async () => {
    const blobs = [randomBytes(3 * 2 ** 20), randomBytes(3 * 2 ** 20)];
    const load = blobs.map((b, i) =>
      fileToLoad(`Downloads/cut/f${i}.bin`, 0o644, b.length, async function* () {
        yield b;
      }),
    );
    // Through the bridge, which the cut kills from inside.
    const bridged = bridgedProvider();
    onTestFinished(() => bridged.close());
    const opened = await openSession(bridged.docker, computer.name);
    if (!opened.ok) throw new Error(opened.error.message);
    // The third write of the push: the first file is on its way, none is whole.
    const client = cuttingClient(opened.value.client, computer.name, "tar.push.write", 3);
    const cut = await loadFiles({ ...opened.value, client }, load);
    await opened.value.close();
    expect(client.cut).toBe(true);
    expect(cut.ok).toBe(false);
    expect(!cut.ok && cut.error.message).toMatch(
      new RegExp(
        `^${computer.name}: the connection to its daemon broke during tar\\.push of batch 1 of 1 \\(2 files, 6291456 bytes\\) \\(.*\\); each file is written whole or not at all, and a retry writes every file whole$`,
      ),
    );
    // The daemon ends the push when the connection ends, removing the part it was writing.
    let left = "";
    for (let i = 0; i < 50; i++) {
      left = (await inside(computer.name, "find ~ -name '.computerd-push-*'")).stdout;
      if (left === "") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(left).toBe("");
    expect((await inside(computer.name, "ls -A ~/Downloads/cut 2>/dev/null")).stdout).toBe("");

    const again = await openSession(docker, computer.name);
    if (!again.ok) throw new Error(again.error.message);
    const retried = await loadFiles(again.value, load);
    await again.value.close();
    expect(retried.ok).toBe(true);
    expect((await inside(computer.name, "cd ~/Downloads/cut && sha256sum f0.bin f1.bin")).stdout).toBe(`${sha(blobs[0]!)}  f0.bin\n${sha(blobs[1]!)}  f1.bin`);
  }, 120_000);
});
