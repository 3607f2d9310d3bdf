// files: the files.* and tar.* methods as the spec words them, under the case's own directory; a
// HOME the computer's user owns and writes while / refuses it.
import { createHash, randomBytes } from "node:crypto";
import { pullTar, pushTar, readFile, writeFile } from "../../daemon/files.js";
import { b64, call, callFails, check, must, shown, unb64 } from "../assert.js";
import { conformanceCase } from "../case.js";
import { entriesOf, tarOf } from "../tar.js";

const FILES = { groups: ["files" as const] };
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

export const filesCases = [
  conformanceCase("files.read-write", "core", FILES, async (t) => {
    const path = `${t.dir}/a.txt`;
    const written = await call("files.write", t.client.call("files.write", { path, data: b64("hello world") }, { signal: t.signal }));
    check(written.size === 11, `files.write reported size ${written.size}, not 11`);
    await call("files.write at an offset", t.client.call("files.write", { path, data: b64("WORLD"), offset: 6 }, { signal: t.signal }));
    await call("files.write append", t.client.call("files.write", { path, data: b64("!"), append: true }, { signal: t.signal }));
    const whole = await call("files.read", t.client.call("files.read", { path }, { signal: t.signal }));
    check(unb64(whole.data) === "hello WORLD!" && whole.eof && whole.size === 12, `the file reads ${shown(whole)}, not "hello WORLD!" whole`);
    const part = await call("files.read of a range", t.client.call("files.read", { path, offset: 6, length: 3 }, { signal: t.signal }));
    check(unb64(part.data) === "WOR" && !part.eof, `bytes 6 to 9 read ${shown(part)}`);
    await callFails("files.read of a missing file", t.client.call("files.read", { path: `${t.dir}/missing` }, { signal: t.signal }), ["not_found"]);
    await callFails("files.read of a directory", t.client.call("files.read", { path: t.dir }, { signal: t.signal }), ["is_dir"]);
  }),

  conformanceCase("files.large", "core", FILES, async (t) => {
    const bytes = new Uint8Array(randomBytes(1_300_000));
    must(await writeFile(t.client, `${t.dir}/large.bin`, bytes, { signal: t.signal }), "writing 1.3 MB in 512 KiB chunks");
    const back = must(await readFile(t.client, `${t.dir}/large.bin`, { signal: t.signal }), "reading it back");
    check(back.length === bytes.length && sha(back) === sha(bytes), `1.3 MB written read back as ${back.length} bytes of another sum`);
    // Sent unchecked, so the daemon itself must refuse it.
    await callFails(
      "files.read of more than 512 KiB at once",
      t.client.request("files.read", { path: `${t.dir}/large.bin`, length: 512 * 1024 + 1 }, { signal: t.signal }),
      ["limit"],
    );
  }),

  conformanceCase("files.stat", "core", FILES, async (t) => {
    const path = `${t.dir}/s.txt`;
    await call("files.write", t.client.call("files.write", { path, data: b64("12345") }, { signal: t.signal }));
    const stat = await call("files.stat", t.client.call("files.stat", { path }, { signal: t.signal }));
    check(stat.type === "file" && stat.size === 5 && (stat.mode & 0o777) === 0o644, `a new 5-byte file stats as ${shown(stat)}; a new file is 0644`);
    await call("files.write with a mode", t.client.call("files.write", { path, data: b64("x"), mode: 0o600 }, { signal: t.signal }));
    const moded = await call("files.stat", t.client.call("files.stat", { path }, { signal: t.signal }));
    check((moded.mode & 0o777) === 0o600, `files.write with mode 0600 left mode ${(moded.mode & 0o777).toString(8)}`);
    const dir = await call("files.stat of a directory", t.client.call("files.stat", { path: t.dir }, { signal: t.signal }));
    check(dir.type === "dir", `the case's directory stats as ${dir.type}`);
    await callFails("files.stat of a missing path", t.client.call("files.stat", { path: `${t.dir}/missing` }, { signal: t.signal }), ["not_found"]);
  }),

  conformanceCase("files.list", "core", FILES, async (t) => {
    for (const name of ["b/2.txt", "a/1.txt", "c.txt"]) {
      await call("files.write", t.client.call("files.write", { path: `${t.dir}/tree/${name}`, data: b64(name), parents: true }, { signal: t.signal }));
    }
    const one = await call("files.list", t.client.call("files.list", { path: `${t.dir}/tree` }, { signal: t.signal }));
    const names = (entries: { path: string }[]) => entries.map((e) => e.path.replace(`${t.dir}/tree/`, ""));
    check(shown(names(one.entries)) === shown(["a", "b", "c.txt"]) && !one.truncated, `depth 1 listed ${shown(names(one.entries))}, not a, b, c.txt by name`);
    const two = await call("files.list depth 2", t.client.call("files.list", { path: `${t.dir}/tree`, depth: 2 }, { signal: t.signal }));
    const expected = ["a", "a/1.txt", "b", "b/2.txt", "c.txt"];
    check(
      shown(names(two.entries)) === shown(expected),
      `depth 2 listed ${shown(names(two.entries))}, not ${shown(expected)} (a directory before its contents)`,
    );
    const file = two.entries.find((e) => e.path.endsWith("/c.txt"));
    check(file?.type === "file" && file.size === 5, `c.txt is listed as ${shown(file)}`);
  }),

  conformanceCase("files.mkdir", "core", FILES, async (t) => {
    const path = `${t.dir}/made`;
    await call("files.mkdir", t.client.call("files.mkdir", { path, mode: 0o750 }, { signal: t.signal }));
    const stat = await call("files.stat", t.client.call("files.stat", { path }, { signal: t.signal }));
    check(stat.type === "dir" && (stat.mode & 0o777) === 0o750, `files.mkdir with mode 0750 made ${shown(stat)}`);
    await callFails("files.mkdir of a directory already there", t.client.call("files.mkdir", { path }, { signal: t.signal }), ["exists"]);
    await call("files.mkdir with parents of one already there", t.client.call("files.mkdir", { path, parents: true }, { signal: t.signal }));
    await callFails("files.mkdir under a missing parent", t.client.call("files.mkdir", { path: `${t.dir}/no/such/dir` }, { signal: t.signal }), ["not_found"]);
    await call("files.mkdir with parents", t.client.call("files.mkdir", { path: `${t.dir}/deep/er/dir`, parents: true }, { signal: t.signal }));
  }),

  conformanceCase("files.move", "core", FILES, async (t) => {
    const [from, to] = [`${t.dir}/from.txt`, `${t.dir}/to.txt`];
    await call("files.write", t.client.call("files.write", { path: from, data: b64("moved") }, { signal: t.signal }));
    await call("files.write", t.client.call("files.write", { path: to, data: b64("kept") }, { signal: t.signal }));
    await callFails("files.move onto a file without overwrite", t.client.call("files.move", { from, to }, { signal: t.signal }), ["exists"]);
    const kept = await call("files.read", t.client.call("files.read", { path: to }, { signal: t.signal }));
    check(unb64(kept.data) === "kept", `a refused move changed its target to ${shown(unb64(kept.data))}`);
    await call("files.move with overwrite", t.client.call("files.move", { from, to, overwrite: true }, { signal: t.signal }));
    const moved = await call("files.read", t.client.call("files.read", { path: to }, { signal: t.signal }));
    check(unb64(moved.data) === "moved", `after the move the target reads ${shown(unb64(moved.data))}`);
    await callFails("files.stat of the moved source", t.client.call("files.stat", { path: from }, { signal: t.signal }), ["not_found"]);
  }),

  conformanceCase("files.remove", "core", FILES, async (t) => {
    await call("files.write", t.client.call("files.write", { path: `${t.dir}/full/x.txt`, data: b64("x"), parents: true }, { signal: t.signal }));
    await callFails("files.remove of a directory with entries", t.client.call("files.remove", { path: `${t.dir}/full` }, { signal: t.signal }), ["is_dir"]);
    await call("files.remove recursive", t.client.call("files.remove", { path: `${t.dir}/full`, recursive: true }, { signal: t.signal }));
    await callFails("files.stat of what was removed", t.client.call("files.stat", { path: `${t.dir}/full` }, { signal: t.signal }), ["not_found"]);
    await callFails("files.remove of /", t.client.call("files.remove", { path: "/", recursive: true }, { signal: t.signal }), ["denied"]);
  }),

  conformanceCase("files.relative-path", "core", FILES, async (t) => {
    // Sent unchecked, so the daemon itself must refuse it.
    await callFails("files.read of a relative path", t.client.request("files.read", { path: "relative/path" }, { signal: t.signal }), ["invalid"]);
    await callFails("files.write of a relative path", t.client.request("files.write", { path: "relative", data: b64("x") }, { signal: t.signal }), ["invalid"]);
  }),

  conformanceCase("files.home", "core", FILES, async (t) => {
    const home = await call("files.stat of HOME", t.client.call("files.stat", { path: t.home }, { signal: t.signal }));
    check(home.type === "dir", `HOME (${t.home}) is a ${home.type}, not a directory`);
    // The case's directory was made in HOME by the computer's user: what it writes is that user's.
    const mine = `${t.dir}/mine.txt`;
    await call(`files.write under HOME (${t.home})`, t.client.call("files.write", { path: mine, data: b64("mine") }, { signal: t.signal }));
    const written = await call("files.stat", t.client.call("files.stat", { path: mine }, { signal: t.signal }));
    check(home.uid === written.uid, `HOME is owned by uid ${home.uid}, not by the computer's user (uid ${written.uid}, who writes there)`);
    check((home.mode & 0o200) !== 0, `HOME's mode ${(home.mode & 0o777).toString(8)} does not let its owner write`);
    await callFails("files.write at /", t.client.call("files.write", { path: `/agentrun-conformance-${t.runId}`, data: b64("x") }, { signal: t.signal }), [
      "denied",
    ]);
  }),

  conformanceCase("files.tar", "core", FILES, async (t) => {
    const payload = new Uint8Array(randomBytes(70_000));
    const archive = tarOf([
      { name: "a.txt", type: "file", mode: 0o640, data: Buffer.from("alpha") },
      { name: "sub", type: "dir", mode: 0o750 },
      { name: "sub/b.bin", type: "file", mode: 0o600, data: payload },
      { name: "link", type: "symlink", mode: 0o777, linkname: "a.txt" },
    ]);
    const into = `${t.dir}/in`;
    const pushed = must(await pushTar(t.client, into, archive, { signal: t.signal }), "tar.push of 4 entries");
    check(pushed.entries === 4, `tar.push.end counted ${pushed.entries} entries, not 4`);
    const sub = await call("files.stat", t.client.call("files.stat", { path: `${into}/sub` }, { signal: t.signal }));
    check(sub.type === "dir" && (sub.mode & 0o777) === 0o750, `the pushed directory reads ${shown(sub)}, not a 0750 directory`);
    const link = await call("files.stat", t.client.call("files.stat", { path: `${into}/link` }, { signal: t.signal }));
    check(link.type === "symlink" && link.target === "a.txt", `the pushed symlink reads ${shown(link)}`);
    const pulled = entriesOf(must(await pullTar(t.client, into, { signal: t.signal }), "tar.pull of what was pushed"));
    const byName = new Map(pulled.map((e) => [e.name.replace(/^\.\//, ""), e]));
    check(
      byName.get("a.txt")?.type === "file" && Buffer.from(byName.get("a.txt")?.data ?? []).toString() === "alpha",
      `the pull holds a.txt as ${shown(byName.get("a.txt"))}`,
    );
    const b = byName.get("sub/b.bin");
    check(
      b?.data !== undefined && sha(b.data) === sha(payload) && (b.mode & 0o777) === 0o600,
      `the pull holds sub/b.bin as ${b ? `${b.data?.length} bytes, mode ${(b.mode & 0o777).toString(8)}` : "nothing"}`,
    );
    check(byName.get("link")?.type === "symlink" && byName.get("link")?.linkname === "a.txt", `the pull holds link as ${shown(byName.get("link"))}`);
    const escape = await pushTar(t.client, `${t.dir}/in2`, tarOf([{ name: "../escape.txt", type: "file", mode: 0o644, data: Buffer.from("x") }]), {
      signal: t.signal,
    });
    check(!escape.ok && escape.error.code === "denied", `a push of ../escape.txt ended ${shown(escape)}, not denied`);
    await callFails("files.stat of the escape", t.client.call("files.stat", { path: `${t.dir}/escape.txt` }, { signal: t.signal }), ["not_found"]);
  }),
];
