// ComputerFiles without a computer: every check refusal in its words (naming the path), the
// assets and folders it plans, its batches, the tar it streams (read back by the conformance
// suite's own reader), and the drift it names.
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { plan, toLoad } from "../../provider/resources/computer-files-assets.js";
import { computerFiles } from "../../provider/resources/computer-files.js";
import { isSecret, secret } from "../../provider/secrets.js";
import { entriesOf } from "../../src/conformance/tar.js";
import { batchesOf, driftOf, fileToLoad } from "../../src/inside/load.js";
import { homeRelative } from "../../src/inside/paths.js";
import { tarStream } from "../../src/inside/tar-stream.js";
import { testContext } from "../support/context.js";

const SIG = "4dabf18193072939515e22adb298388d";
const text = (t: string) => ({ [SIG]: "c44067f5952c0a294b673a41bacd8c17", text: t });
const file = (path: string) => ({ [SIG]: "c44067f5952c0a294b673a41bacd8c17", path });
const remote = (uri: string) => ({ [SIG]: "c44067f5952c0a294b673a41bacd8c17", uri });
const folder = (path: string) => ({ [SIG]: "0def7320c3a5731c473e5ecbe6d01bc7", path });
const archive = (assets: Record<string, unknown>) => ({ [SIG]: "0def7320c3a5731c473e5ecbe6d01bc7", assets });

const ctx = testContext();
let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "agentrun-unit-files-"));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const reasons = async (news: Record<string, unknown>) =>
  ((await computerFiles.check(ctx, {}, { computer: "computer-0123456789ab", ...news })).failures ?? []).map((f) => `${f.property}: ${f.reason}`);

describe("ComputerFiles check", () => {
  test.each([
    [
      "an absolute path",
      { files: { "/etc/passwd": text("x") } },
      "files: files' destination \"/etc/passwd\" is absolute: give it relative to the computer's home (Downloads/report.csv)",
    ],
    [
      "a path that leaves the home",
      { files: { "../../etc/x": text("x") } },
      'files: files\' destination "../../etc/x" under Downloads leaves the home: a step writes and reads only inside it',
    ],
    ["a NUL", { files: { "a\0b": text("x") } }, 'files: files\' destination "a\\0b" holds a NUL: a path inside the computer cannot'],
    [
      "an absolute destination",
      { files: { a: text("x") }, destination: "/tmp" },
      'destination: destination "/tmp" is absolute: give it relative to the computer\'s home (Downloads/report.csv)',
    ],
    [
      "a destination that leaves the home",
      { files: { a: text("x") }, destination: ".." },
      'destination: destination ".." leaves the home: a step writes and reads only inside it',
    ],
    ["a remote asset", { files: { a: remote("https://example.com/a") } }, "files: files.a: a remote asset (uri) is not fetched: give a local file or a string"],
    [
      "a value that is no asset",
      { files: { a: "just text" } },
      "files: files.a must be an asset or an archive (fn::stringAsset, fn::fileAsset, fn::fileArchive, fn::assetArchive)",
    ],
    ["no files", {}, "files: files is required: a map of home-relative paths to assets or archives (fn::stringAsset, fn::fileAsset, fn::fileArchive)"],
    [
      "an unknown field",
      { files: { a: text("x") }, mode: "0644" },
      'mode: agentrun:index:ComputerFiles has no field "mode"; it takes computer, provider, files, destination',
    ],
    ["an unknown provider", { files: { a: text("x") }, provider: "nowhere" }, expect.stringMatching(/^provider: .*nowhere/)],
  ])("refuses %s in words", async (_name, news, words) => {
    expect(await reasons(news)).toContainEqual(words);
  });

  test("refuses a computer left out", async () => {
    const failures = (await computerFiles.check(ctx, {}, { files: { a: text("x") } })).failures ?? [];
    expect(failures.map((f) => f.property)).toEqual(["computer"]);
  });

  test("refuses a local file that is not there, naming it", async () => {
    expect(await reasons({ files: { a: file(join(base, "missing.csv")) } })).toEqual([
      `files: files.a: the local file ${join(base, "missing.csv")} is not there (or is not a file)`,
    ]);
  });

  test("refuses a tar archive: only folders are taken", async () => {
    await writeFile(join(base, "a.tar"), "x");
    expect((await reasons({ files: { a: folder(join(base, "a.tar")) } }))[0]).toMatch(/is not a local folder \(a tar or zip archive is not unpacked/);
  });

  test("takes a .. that stays inside the home", async () => {
    expect(await reasons({ files: { "../Documents/a.csv": text("x") } })).toEqual([]);
  });

  test("reports every bad path together", async () => {
    expect(await reasons({ files: { "/a": text("x"), "../../b": text("y"), ok: text("z") } })).toHaveLength(2);
  });

  test("takes good files, with the destination in its normal form and the provider filled in", async () => {
    const checked = await computerFiles.check(ctx, {}, { computer: "c", files: { "a.csv": text("1") }, destination: "Documents/" });
    expect(checked.failures).toBeUndefined();
    expect(checked.inputs).toMatchObject({ computer: "c", provider: "docker", destination: "Documents" });
  });

  test("keeps secret files secret", async () => {
    const checked = await computerFiles.check(ctx, {}, { computer: "c", files: secret({ "a.csv": text("token") }) });
    expect(isSecret(checked.inputs?.files)).toBe(true);
  });
});

describe("home-relative paths", () => {
  test.each([
    ["Downloads/a.csv", "Downloads/a.csv"],
    ["./a//b/", "a/b"],
    ["a/../b", "b"],
  ])("%s is %s", (given, normal) => {
    expect(homeRelative(given)).toEqual({ ok: true, value: normal });
  });

  test.each(["", ".", "a/..", "~/x", "/x", "..", "a/../../b"])("%j is refused", (given) => {
    expect(homeRelative(given).ok).toBe(false);
  });
});

describe("what ComputerFiles plans to send", () => {
  test("a folder's files under its key, with their modes; an asset archive's named assets", async () => {
    await mkdir(join(base, "app/lib"), { recursive: true });
    await writeFile(join(base, "app/run.sh"), "#!/bin/sh\n");
    await chmod(join(base, "app/run.sh"), 0o755);
    await writeFile(join(base, "app/lib/x.txt"), "x");
    const planned = await plan({ app: folder(join(base, "app")), more: archive({ "n.txt": text("n"), sub: archive({ "m.txt": text("m") }) }) }, "Documents");
    expect(planned.ok && planned.value.map((p) => [p.path, p.mode.toString(8)])).toEqual([
      ["Documents/app/lib/x.txt", "644"],
      ["Documents/app/run.sh", "755"],
      ["Documents/more/n.txt", "644"],
      ["Documents/more/sub/m.txt", "644"],
    ]);
  });

  test("two entries on one path are refused", async () => {
    const planned = await plan({ "a/b": text("1"), a: archive({ b: text("2") }) }, "Downloads");
    expect(!planned.ok && planned.error.message).toBe("two entries of files land on Downloads/a/b");
  });

  test("a relative local path is read from the program's folder", async () => {
    await writeFile(join(base, "t.csv"), "a,b\n");
    const planned = await plan({ "t.csv": file("t.csv") }, "Downloads", base);
    expect(planned.ok && planned.value[0]?.source).toEqual({ file: join(base, "t.csv") });
  });
});

describe("batches", () => {
  const MiB = 2 ** 20;
  test("at most 64 MiB each, in order; a bigger file alone", () => {
    const sizes = [30, 30, 10, 100, 1, 64].map((n) => ({ size: n * MiB }));
    expect(batchesOf(sizes).map((b) => b.map((f) => f.size / MiB))).toEqual([[30, 30], [10], [100], [1], [64]]);
  });

  test("none for no files", () => {
    expect(batchesOf([])).toEqual([]);
  });
});

describe("a file's sha256", () => {
  const bytes = Buffer.from("id,score\n1,0.5\n");
  const want = createHash("sha256").update(bytes).digest("hex");
  const counted = () => {
    const reads = { n: 0 };
    const file = fileToLoad("Downloads/s.csv", 0o644, bytes.length, async function* () {
      reads.n++;
      yield bytes.subarray(0, 3);
      yield bytes.subarray(3);
    });
    return { file, reads };
  };
  const send = async (file: ReturnType<typeof fileToLoad>) => {
    for await (const chunk of tarStream([file])) void chunk;
  };

  test("is taken as the file is sent: its source is read once in all", async () => {
    const { file, reads } = counted();
    await send(file);
    expect(await file.sha256()).toBe(want);
    expect(reads.n).toBe(1);
  });

  test("asked before any send, is read for on its own, once; the send reads again", async () => {
    const { file, reads } = counted();
    expect(await Promise.all([file.sha256(), file.sha256()])).toEqual([want, want]);
    expect(reads.n).toBe(1);
    await send(file);
    expect(await file.sha256()).toBe(want);
    expect(reads.n).toBe(2);
  });

  test("is not taken from a send cut short", async () => {
    const { file, reads } = counted();
    for await (const chunk of file.bytes()) {
      void chunk;
      break;
    }
    expect(await file.sha256()).toBe(want);
    expect(reads.n).toBe(2);
  });
});

describe("the tar a batch streams", () => {
  test("holds each file whole with its mode; a long or non-ASCII name goes in a pax record", async () => {
    const long = `${"d/".repeat(60)}naïve.csv`;
    const files = await toLoad([
      { path: "Downloads/a.csv", source: { text: "a,b\n1,2\n" }, mode: 0o640 },
      { path: long, source: { text: "x".repeat(1000) }, mode: 0o644 },
    ]);
    const parts: Uint8Array[] = [];
    for await (const chunk of tarStream(files)) parts.push(chunk);
    const entries = entriesOf(Buffer.concat(parts));
    expect(entries.map((e) => [e.name, e.mode.toString(8), Buffer.from(e.data ?? []).length])).toEqual([
      ["Downloads/a.csv", "640", 8],
      [long, "644", 1000],
    ]);
  });

  test("a source that gives fewer bytes than its size fails the stream", async () => {
    const short = {
      name: "a",
      mode: 0o644,
      size: 10,
      bytes: async function* () {
        yield Buffer.from("abc");
      },
    };
    await expect(async () => {
      for await (const _ of tarStream([short])) void _;
    }).rejects.toThrow("a shrank while it was sent (3 of its 10 bytes)");
  });
});

describe("ComputerFiles drift", () => {
  const h = (c: string) => c.repeat(64);
  test("names each file removed, changed or with another mode", () => {
    const written = {
      a: { sha256: h("a"), mode: "644" },
      b: { sha256: h("b"), mode: "644" },
      c: { sha256: h("c"), mode: "644" },
      d: { sha256: h("d"), mode: "600" },
    };
    const read = { b: { sha256: h("e"), mode: "644" }, c: { sha256: h("c"), mode: "600" }, d: { sha256: h("d"), mode: "600" } };
    expect(driftOf(written, read)).toEqual([
      "a was removed inside the computer",
      `b was changed inside the computer (sha256 eeeeeeeeeeee…, not bbbbbbbbbbbb…)`,
      "c has mode 600 inside the computer, not 644",
    ]);
  });
});

describe("ComputerFiles diff and preview: what an up will do, no more", () => {
  const news = { computer: "computer-0123456789ab", provider: "docker", destination: "Documents", files: { "a.csv": { ...text("x"), hash: "1".repeat(64) } } };
  const olds = { ...news, sources: { "a.csv": "1".repeat(64) }, written: {}, drift: [] as string[] };

  test("a file changed inside is an update naming drift alone", async () => {
    const d = await computerFiles.diff(ctx, "files-1", { ...olds, drift: ["Documents/a.csv was changed inside the computer"] }, news);
    expect(d).toMatchObject({ changes: true, replaces: [], detailedDiff: { drift: "update" } });
  });

  test("a new file is an update naming files; nothing changed is no change", async () => {
    const changed = { ...news, files: { "a.csv": { ...text("y"), hash: "2".repeat(64) } } };
    expect(await computerFiles.diff(ctx, "files-1", olds, changed)).toMatchObject({ changes: true, detailedDiff: { files: "update" } });
    expect(await computerFiles.diff(ctx, "files-1", olds, news)).toMatchObject({ changes: false, detailedDiff: {} });
  });

  test("a preview of the update gives the sources it will hold, known, so a command triggered by them is not planned again", async () => {
    const outs = await computerFiles.preview!(ctx, news, olds);
    expect(outs.sources).toEqual({ "a.csv": "1".repeat(64) });
    expect(outs.drift).toEqual([]);
  });
});
