// A computer's user by name: the image's /etc/passwd and /etc/group get a line for the computer's
// uid and gid when they name neither, and are left as they are when they do; what an image's /etc
// holds is read once per image id, in one archive call of /etc whole (against an engine stand-in on
// a unix socket).
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DockerEngine } from "../../src/docker/api.js";
import { TRUST_PATHS, trustFiles } from "../../src/docker/system-trust.js";
import { IMAGE_ROOTS, SYSTEM_BUNDLES, TRUST_BUNDLE } from "../../src/egress/trust-store.js";
import { entriesAt, firstEntryOf, tarOf } from "../../src/kits/image/tar.js";
import { groupWith, ImageEtcCache, nameUser, passwdWith } from "../../src/docker/user-name.js";

const PASSWD = "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";

describe("a computer's user by name", () => {
  it("adds agent for a uid the image does not name, its home /work", () => {
    expect(passwdWith(PASSWD, 1000, 1000)).toBe(`${PASSWD}agent:x:1000:1000:agent:/work:/bin/sh\n`);
    expect(groupWith("root:x:0:\n", 1000)).toBe("root:x:0:\nagent:x:1000:\n");
  });

  it("leaves a uid and a gid the image names as they are", () => {
    expect(passwdWith(PASSWD, 0, 0)).toBeUndefined();
    expect(groupWith("root:x:0:\n", 0)).toBeUndefined();
  });

  it("names it agent<uid> when agent is another's, and ends a file with no last newline first", () => {
    expect(passwdWith("agent:x:1000:1000::/home/agent:/bin/sh", 1234, 1234)).toBe(
      "agent:x:1000:1000::/home/agent:/bin/sh\nagent1234:x:1234:1234:agent1234:/work:/bin/sh\n",
    );
  });

  it("writes and reads back a ustar archive's file", () => {
    const tar = tarOf([{ path: "passwd", mode: 0o644, bytes: Buffer.from(PASSWD) }]);
    expect(tar.length % 512).toBe(0);
    expect(firstEntryOf(tar)).toEqual({ bytes: Buffer.from(PASSWD) });
  });

  it("finds the entries at given paths of a folder's archive, its links as links, a long name never taken for a short one", () => {
    const long = `ssl/${"x".repeat(120)}/passwd`;
    // A pax header naming the next entry, whose own 100-byte name field holds the name cut short.
    const pax = (name: string) => {
      const record = (n: number) => `${n} path=${name}\n`;
      let length = record(0).length;
      while (record(length).length !== length) length = record(length).length;
      return { path: "./PaxHeaders/x", mode: 0o644, bytes: Buffer.from(record(length)) };
    };
    const paxed = tarOf([pax(long), { path: long.slice(0, 100), mode: 0o644, bytes: Buffer.from("long") }]);
    paxed[156 + 512 * 0] = "x".charCodeAt(0);
    const tar = Buffer.concat([
      paxed.subarray(0, paxed.length - 1024),
      tarOf([
        { path: "./", mode: 0o755, bytes: new Uint8Array(), dir: true },
        { path: "./passwd", mode: 0o644, bytes: Buffer.from(PASSWD) },
        { path: "./ssl/cert.pem", mode: 0o777, bytes: new Uint8Array(), link: TRUST_BUNDLE },
      ]),
    ]);
    expect(entriesAt(tar, ["passwd", "ssl/cert.pem", "group", long.slice(0, 100), long])).toEqual(
      new Map<string, unknown>([
        [long, { bytes: Buffer.from("long") }],
        ["passwd", { bytes: Buffer.from(PASSWD) }],
        ["ssl/cert.pem", { link: TRUST_BUNDLE }],
      ]),
    );
  });

  it("reads every path of the trust store below /etc, the folder create reads whole", () => {
    expect([IMAGE_ROOTS, ...SYSTEM_BUNDLES].every((p) => p.startsWith("/etc/"))).toBe(true);
    expect(TRUST_PATHS).toEqual([IMAGE_ROOTS, ...SYSTEM_BUNDLES].map((p) => p.slice(5)));
  });
});

describe("naming a computer's user, once per image", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agentrun-user-name-"));
  const servers: Server[] = [];
  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** An engine whose containers c1 and c2 are of image sha256:a, c3 of sha256:b and c4 of sha256:c, each with the same /etc. */
  async function standIn(): Promise<{ engine: DockerEngine; asked: string[]; put: Buffer[] }> {
    const socket = path.join(dir, `engine-${servers.length}.sock`);
    const asked: string[] = [];
    const put: Buffer[] = [];
    const images: Record<string, string> = { c1: "sha256:a", c2: "sha256:a", c3: "sha256:b", c4: "sha256:c" };
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://engine");
      asked.push(`${request.method} ${url.pathname}${url.searchParams.get("path") ? ` ${url.searchParams.get("path")}` : ""}`);
      if (url.pathname === "/_ping") return void response.writeHead(200, { "API-Version": "1.41" }).end("OK");
      const [, , , id, what] = url.pathname.split("/");
      if (what === "json") return void response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ Id: id, Image: images[id!] }));
      if (request.method === "PUT") {
        const chunks: Buffer[] = [];
        request.on("data", (c: Buffer) => chunks.push(c));
        return void request.on("end", () => {
          put.push(Buffer.concat(chunks));
          response.writeHead(200).end();
        });
      }
      const wanted = url.searchParams.get("path")!;
      // /etc as the engine archives it; image sha256:b's ssl folder is a link, whose files are then asked for alone.
      const etc = [
        { path: "./", mode: 0o755, bytes: new Uint8Array(), dir: true as const },
        { path: "./passwd", mode: 0o644, bytes: Buffer.from(PASSWD) },
        { path: "./group", mode: 0o644, bytes: Buffer.from("root:x:0:\n") },
        ...(images[id!] === "sha256:b" ? [{ path: "./ssl", mode: 0o777, bytes: new Uint8Array(), link: "/usr/share/ssl" }] : []),
      ];
      // Image sha256:c's /etc is cut off mid-reply (as a reply past the client's bound is): its files are then asked for one by one.
      if (images[id!] === "sha256:c" && wanted === "/etc/.") return void response.socket?.destroy();
      if (images[id!] === "sha256:c" && (wanted === "/etc/passwd" || wanted === "/etc/group"))
        return void response.writeHead(200).end(tarOf([etc.find((e) => e.path === `./${path.basename(wanted)}`)!]));
      if (wanted !== "/etc/.") return void response.writeHead(404).end(JSON.stringify({ message: `no ${wanted}` }));
      response.writeHead(200, { "Content-Type": "application/x-tar" }).end(tarOf(etc));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    return { engine: new DockerEngine(`unix://${socket}`), asked, put };
  }

  /** An archive's entries by path, with their modes. */
  const entries = (tar: Buffer): string[] => {
    const out: string[] = [];
    for (let at = 0; at + 512 <= tar.length && tar[at] !== 0;) {
      const name = tar
        .subarray(at, at + 100)
        .toString("ascii")
        .replace(/\0.*$/s, "");
      const mode = tar.subarray(at + 100, at + 107).toString("ascii");
      const size = parseInt(
        tar
          .subarray(at + 124, at + 136)
          .toString("ascii")
          .replace(/\0.*$/s, "")
          .trim(),
        8,
      );
      out.push(`${name} ${mode}`);
      at += 512 + Math.ceil(size / 512) * 512;
    }
    return out;
  };

  it("reads an image's /etc from its first container alone, and writes each container's own", async () => {
    const { engine, asked } = await standIn();
    const etc = new ImageEtcCache();
    const user = { uid: 1000, gid: 1000 };
    for (const id of ["c1", "c2", "c3"]) expect(await nameUser(engine, etc, id, user)).toEqual({ ok: true, value: undefined });
    await engine.close();
    const calls = asked.filter((a) => a !== "GET /_ping").map((a) => a.replace(/^(\w+) \/v1\.41/, "$1 "));
    // An image's /etc in one archive call; a path below a folder that is a link (sha256:b's ssl) read alone, as the engine follows it.
    const underLink = SYSTEM_BUNDLES.filter((f) => f.startsWith("/etc/ssl/")).map((f) => `GET /containers/c3/archive ${f}`);
    expect(calls.filter((a) => a.startsWith("GET") && a.includes("/archive")).sort()).toEqual(
      ["GET /containers/c1/archive /etc/.", "GET /containers/c3/archive /etc/.", ...underLink].sort(),
    );
    expect(calls.filter((a) => a.startsWith("PUT"))).toEqual(["PUT /containers/c1/archive /", "PUT /containers/c2/archive /", "PUT /containers/c3/archive /"]);
  });

  it("reads each file alone when the archive of /etc is cut off, and names the user all the same", async () => {
    const { engine, asked, put } = await standIn();
    expect(await nameUser(engine, new ImageEtcCache(), "c4", { uid: 1000, gid: 1000 })).toEqual({ ok: true, value: undefined });
    await engine.close();
    const reads = asked.filter((a) => a.startsWith("GET") && a.includes("/archive")).map((a) => a.replace(/^GET \/v1\.41\/containers\/c4\/archive /, ""));
    expect(reads.sort()).toEqual(["/etc/.", "/etc/group", "/etc/passwd", IMAGE_ROOTS, ...SYSTEM_BUNDLES].sort());
    expect(entries(put[0]!)).toEqual(["etc/passwd 0000644", "etc/group 0000644"]);
    expect(entriesAt(put[0]!, ["etc/passwd"]).get("etc/passwd")).toEqual({ bytes: Buffer.from(`${PASSWD}agent:x:1000:1000:agent:/work:/bin/sh\n`) });
  });

  // Each archive put is an extraction by the engine, the longest call of a remote create.
  it("puts the files it is given (a remote engine's daemon) in the same archive: one put per computer", async () => {
    const { engine, asked, put } = await standIn();
    const daemon = { path: "opt/agentrun/computerd", mode: 0o755, bytes: Buffer.from("binary") };
    expect(await nameUser(engine, new ImageEtcCache(), "c1", { uid: 1000, gid: 1000 }, { with: [daemon] })).toEqual({ ok: true, value: undefined });
    expect(await nameUser(engine, new ImageEtcCache(), "c2", { uid: 0, gid: 0 }, { with: [daemon] })).toEqual({ ok: true, value: undefined });
    await engine.close();
    expect(asked.filter((a) => a.startsWith("PUT")).map((a) => a.replace(/\/v1\.41/, ""))).toEqual([
      "PUT /containers/c1/archive /",
      "PUT /containers/c2/archive /",
    ]);
    expect(put.map(entries)).toEqual([
      ["etc/passwd 0000644", "etc/group 0000644", "opt/agentrun/computerd 0000755"],
      // A user the image names: the daemon alone.
      ["opt/agentrun/computerd 0000755"],
    ]);
  });
});

describe("an allowlisted computer's system trust store, in the archive before its start", () => {
  const roots = Buffer.from("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");

  it("moves the image's bundle to IMAGE_ROOTS and links its place to init's bundle, as a link the engine reads back", () => {
    const files = trustFiles({ path: "/etc/ssl/certs/ca-certificates.crt", roots, linked: false }, true);
    expect(files.map((f) => [f.path, f.link ?? (f.dir ? "dir" : Buffer.from(f.bytes).toString())])).toEqual([
      ["etc/agentrun", "dir"],
      ["etc/agentrun/image-roots.pem", roots.toString()],
      ["etc/ssl/certs/ca-certificates.crt", TRUST_BUNDLE],
    ]);
    expect(firstEntryOf(tarOf([files[2]!]))).toEqual({ link: TRUST_BUNDLE });
    expect(firstEntryOf(tarOf([files[1]!]))).toEqual({ bytes: roots });
  });

  it("puts a snapshot's linked store back as the image's roots for a computer with no allowlist, and leaves a plain one alone", () => {
    const linked = { path: "/etc/ssl/certs/ca-certificates.crt", roots, linked: true };
    expect(trustFiles(linked, false)).toEqual([{ path: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, bytes: roots }]);
    expect(trustFiles({ ...linked, linked: false }, false)).toEqual([]);
    expect(trustFiles(undefined, true)).toEqual([]);
  });
});
