// The Docker-backed E2B fake's snapshots: a sandbox's files committed as an image of the run's
// (docker commit pauses the container while it copies, as E2B pauses a sandbox for its snapshot).
// E2B's snapshot keeps a sandbox's files and memory; the fake keeps its files alone, never more:
// none of the sandbox's metadata (E2B's SnapshotInfo carries none), which the commit would copy
// from the container's labels, so each is overwritten with UNSET. Ids are E2B's shapes: the
// template's id and tag (snap<hex>:default), or the team's namespace and the name given
// (wire/<name>:default). Each image carries the run's label, so remove() ends them with the run.
import { randomBytes } from "node:crypto";
import type { E2BPages, E2BSnapshotInfo } from "../../src/e2b/sdk.js";

/** What a blanked label reads: the fake's info leaves it out. */
export const UNSET = "e2b.unset";
const ID = "e2b.snapshot";
const NAMES = "e2b.snapshot.names";
const SANDBOX = "e2b.snapshot.sandbox";
/** E2B's namespace of a named snapshot (its team's slug). */
const TEAM = "wire";
const NAME = /^[a-z0-9][a-z0-9._-]{0,127}$/;

type Docker = (args: string[]) => Promise<{ exitCode: number; stdout: string; stderr: string }>;

interface Held {
  image: string;
  info: E2BSnapshotInfo;
  sandboxId: string;
}

/** A snapshot id or name with its tag and namespace taken off. */
const bare = (id: string) => id.replace(/:[^:/]*$/, "").replace(/^[^/]*\//, "");

export class FakeSnapshots {
  readonly #docker: Docker;
  readonly #key: string;
  readonly #run: string;
  readonly #repo: string;

  /** key: the run's label every image carries, with run its value. */
  constructor(docker: Docker, key: string, run: string) {
    this.#docker = docker;
    this.#key = key;
    this.#run = run;
    this.#repo = `agentrun-e2b-fake-snapshot-${run.toLowerCase()}`;
  }

  /** The container's files committed; its metadata labels (keys with this prefix) blanked. */
  async take(sandboxId: string, labels: Record<string, string>, metaPrefix: string, name?: string): Promise<E2BSnapshotInfo> {
    if (name !== undefined && !NAME.test(name))
      throw Object.assign(new Error(`400: the snapshot's name ${JSON.stringify(name)} is not a template name`), { name: "SandboxError", statusCode: 400 });
    const id = name ? `${TEAM}/${name}:default` : `snap${randomBytes(8).toString("hex")}:default`;
    const info: E2BSnapshotInfo = { snapshotId: id, names: name ? [id] : [] };
    const blank = Object.keys(labels)
      .filter((k) => k.startsWith(metaPrefix))
      .map((k) => `LABEL ${JSON.stringify(k)}=${JSON.stringify(UNSET)}`);
    const own = [
      `LABEL ${JSON.stringify(this.#key)}=${JSON.stringify(this.#run)}`,
      `LABEL ${ID}=${JSON.stringify(id)}`,
      `LABEL ${NAMES}=${JSON.stringify(JSON.stringify(info.names))}`,
      `LABEL ${SANDBOX}=${JSON.stringify(sandboxId)}`,
    ];
    const tag = `${this.#repo}:s${randomBytes(8).toString("hex")}`;
    const made = await this.#docker(["commit", ...[...blank, ...own].flatMap((c) => ["--change", c]), sandboxId, tag]);
    if (made.exitCode !== 0) throw new Error(`the snapshot of ${sandboxId} failed: ${made.stderr.trim()}`);
    return info;
  }

  /** Every snapshot of the run, oldest first. */
  async #all(): Promise<Held[]> {
    const listed = await this.#docker(["images", "--filter", `label=${this.#key}=${this.#run}`, "--format", "{{.Repository}}:{{.Tag}}"]);
    if (listed.exitCode !== 0) throw new Error(`listing snapshots failed: ${listed.stderr.trim()}`);
    const images = listed.stdout.split("\n").filter((x) => x.startsWith(`${this.#repo}:`));
    if (!images.length) return [];
    const read = await this.#docker(["image", "inspect", "--format", "{{json .Config.Labels}}\t{{.Created}}", ...images]);
    return read.stdout
      .split("\n")
      .filter(Boolean)
      .map((line, i) => {
        const [labels, created] = line.split("\t") as [string, string];
        const l = JSON.parse(labels) as Record<string, string>;
        return { image: images[i]!, sandboxId: l[SANDBOX]!, info: { snapshotId: l[ID]!, names: JSON.parse(l[NAMES] ?? "[]") as string[] }, created };
      })
      .sort((a, b) => a.created.localeCompare(b.created));
  }

  /** The snapshot an id, a name or either without its tag names. */
  async #find(id: string): Promise<Held | undefined> {
    return (await this.#all()).find((s) => s.info.snapshotId === id || s.info.names.includes(id) || bare(s.info.snapshotId) === bare(id));
  }

  /** The image a sandbox made from this snapshot runs, or undefined when it is no snapshot of the run's. */
  async image(id: string): Promise<string | undefined> {
    return (await this.#find(id))?.image;
  }

  /** listSnapshots: by the sandbox taken from and by name or id, a page at a time. */
  list(query: { sandboxId?: string | undefined; name?: string | undefined }, limit: number): E2BPages<E2BSnapshotInfo> {
    const all = this.#all.bind(this);
    let offset = 0;
    let more = true;
    return {
      get hasNext() {
        return more;
      },
      async nextItems() {
        if (!more) throw new Error("No more items to fetch");
        const found = (await all()).filter(
          (s) =>
            (!query.sandboxId || s.sandboxId === query.sandboxId) &&
            (!query.name || s.info.snapshotId === query.name || s.info.names.includes(query.name) || bare(s.info.snapshotId) === bare(query.name)),
        );
        const page = found.slice(offset, offset + limit).map((s) => s.info);
        offset += limit;
        more = offset < found.length;
        return page;
      },
    };
  }

  /** False when no snapshot has that id. */
  async remove(id: string): Promise<boolean> {
    const found = await this.#find(id);
    if (!found) return false;
    const gone = await this.#docker(["rmi", "--force", found.image]);
    if (gone.exitCode !== 0) throw new Error(`removing ${id} failed: ${gone.stderr.trim()}`);
    return true;
  }

  /** Every snapshot image of the run removed; their ids. */
  async removeAll(): Promise<string[]> {
    const all = await this.#all();
    if (all.length) await this.#docker(["rmi", "--force", ...all.map((s) => s.image)]);
    return all.map((s) => s.info.snapshotId);
  }

  /** The run's snapshot images still there. */
  async images(): Promise<string[]> {
    return (await this.#all()).map((s) => s.image);
  }
}
