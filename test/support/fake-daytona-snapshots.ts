// The Daytona fake's snapshots: POST /sandbox/{id}/snapshot answers at once and takes the
// snapshot after (docker commit of the sandbox's container, pending until the commit lands, then
// active), GET /snapshots/{idOrName} reads one (GET /snapshots lists them, in fake-daytona.ts),
// DELETE /snapshots/{id} removes it (by id alone, as Daytona's API takes it). Each image carries the fake's run label, and removeAll() takes them away.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface FakeSnapshot {
  id: string;
  name: string;
  /** pending, active, error or removing. */
  state: string;
  /** The committed Docker image, once the commit lands. */
  image: string;
  size: number | null;
  errorReason: string | null;
  createdAt: string;
  /** The sandbox it was taken from. */
  sandboxId: string;
}

export class FakeSnapshots {
  readonly all = new Map<string, FakeSnapshot>();
  /** A test's hook: the next take's commit fails (Daytona reads the snapshot error). */
  failNext = false;

  constructor(
    readonly label: string,
    readonly runId: string,
  ) {}

  find(idOrName: string): FakeSnapshot | undefined {
    return this.all.get(idOrName) ?? [...this.all.values()].find((s) => s.name === idOrName);
  }

  /** The Docker image of an active snapshot by its name or id. */
  imageOf(idOrName: string): string | undefined {
    const found = this.find(idOrName);
    return found?.state === "active" ? found.image : undefined;
  }

  view(s: FakeSnapshot) {
    return { id: s.id, name: s.name, state: s.state, size: s.size, errorReason: s.errorReason, createdAt: s.createdAt, imageName: s.image, general: false };
  }

  /** Starts a take of a container; an error in words when the name is taken. */
  take(container: string, sandboxId: string, name: string): string | undefined {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(name)) return `the snapshot name ${name} is not valid`;
    if (this.find(name)) return `a snapshot named ${name} exists`;
    const id = randomUUID();
    const image = `fake-daytona-${this.runId}-snapshot:${id.slice(0, 12)}`;
    const s: FakeSnapshot = { id, name, state: "pending", image, size: null, errorReason: null, createdAt: new Date().toISOString(), sandboxId };
    this.all.set(id, s);
    const failing = this.failNext;
    this.failNext = false;
    void (async () => {
      try {
        if (failing) throw new Error("the runner lost the snapshot");
        await run("docker", ["commit", "--change", `LABEL ${this.label}=${this.runId}`, container, image]);
        const { stdout } = await run("docker", ["image", "inspect", "--format", "{{.Size}}", image]);
        if (s.state !== "pending") return void (await run("docker", ["image", "rm", "--force", image]).catch(() => undefined));
        s.size = Number(stdout.trim()) / 1024 ** 3;
        s.state = "active";
      } catch (error) {
        if (s.state !== "pending") return;
        s.state = "error";
        s.errorReason = (error as Error).message.split("\n")[0] ?? "docker commit failed";
      }
    })();
    return undefined;
  }

  /** Removed after Daytona's manner: removing, then gone. */
  delete(s: FakeSnapshot): void {
    s.state = "removing";
    void run("docker", ["image", "rm", "--force", s.image])
      .catch(() => undefined)
      .then(() => this.all.delete(s.id));
  }

  /** Every image of the run's snapshots (forks' containers removed first). */
  async removeAll(): Promise<void> {
    const { stdout } = await run("docker", ["image", "ls", "--quiet", "--filter", `label=${this.label}=${this.runId}`]).catch(() => ({ stdout: "" }));
    const ids = [...new Set(stdout.split("\n").filter(Boolean))];
    if (ids.length) await run("docker", ["image", "rm", "--force", ...ids]).catch(() => undefined);
  }

  /** The snapshots' images still tagged in Docker (one a fork still runs from stays, untagged, until removeAll). */
  async images(): Promise<string[]> {
    const { stdout } = await run("docker", ["image", "ls", "--quiet", "--filter", "dangling=false", "--filter", `label=${this.label}=${this.runId}`]);
    return stdout.split("\n").filter(Boolean);
  }
}
