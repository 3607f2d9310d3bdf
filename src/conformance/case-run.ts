// One case's run: the spec, creates, connects and snapshots it makes through the ledger, the bound
// on each await, and its end, which closes its connections and folders, deletes its computers and
// then removes its snapshots.
import type { ComputerProvider, ComputerRef, ComputerSpec, Connection } from "../contract/provider.js";
import type { Snapshot } from "../contract/state.js";
import type { Result } from "../daemon/result.js";
import { CaseFailure } from "./assert.js";
import type { ConformanceCase, RunFolder } from "./case.js";
import { CASE_LABEL, type Ledger, type Made, type MadeSnapshot, settle } from "./ledger.js";

/** One case's run: its context, what it made, and its end. */
export class CaseRun {
  readonly controller = new AbortController();
  readonly made: Made[] = [];
  readonly connections: Connection[] = [];
  readonly folders: RunFolder[] = [];
  readonly snapshots: MadeSnapshot[] = [];
  open = true;

  constructor(
    readonly c: ConformanceCase,
    private readonly ledger: Ledger,
    private readonly base: ComputerSpec,
  ) {}

  get labels(): Record<string, string> {
    return { ...this.base.labels!, [CASE_LABEL]: this.c.id };
  }

  spec(extra: Partial<ComputerSpec> = {}): ComputerSpec {
    return { ...this.base, labels: this.labels, ...extra };
  }

  /** The promise, or a CaseFailure once the case is aborted; what it brings later is the ledger's. */
  async untilEnd<T>(promise: Promise<T>, what: string): Promise<T> {
    const signal = this.controller.signal;
    if (signal.aborted) throw new CaseFailure(`${what} was not started: the case had ended`);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(new CaseFailure(`${what} had not answered when the case ended`));
      signal.addEventListener("abort", onAbort, { once: true });
      promise.then(
        (value) => (signal.removeEventListener("abort", onAbort), resolve(value)),
        (error) => (signal.removeEventListener("abort", onAbort), reject(error)),
      );
    });
  }

  attempt(spec: ComputerSpec, by: ComputerProvider): Promise<Result<ComputerRef>> {
    const created = settle(() => by.create(spec, { signal: this.controller.signal }));
    this.ledger.track(created, `a create started by ${this.c.id}`);
    void created.then((result) => {
      if (!result.ok) return;
      this.ledger.notesOf(result.value);
      const made = { ref: result.value, by, owner: this.c.id };
      if (this.open) this.made.push(made);
      else {
        this.ledger.cleanup.late.push(`${result.value.name}, made for ${this.c.id} after it ended, deleted as it came`);
        void this.ledger.track(this.ledger.release(made), `the release of the late ${result.value.name}`);
      }
    });
    return this.untilEnd(created, `the create for ${this.c.id}`);
  }

  async connect(ref: ComputerRef, by: ComputerProvider): Promise<Connection> {
    const opened = settle(() => by.connect(ref, { signal: this.controller.signal }));
    this.ledger.track(opened, `a connect started by ${this.c.id}`);
    void opened.then((result) => {
      if (!result.ok) return;
      if (this.open) this.connections.push(result.value);
      else {
        this.ledger.cleanup.late.push(`a connection to ${ref.name} for ${this.c.id}, which came after it ended, closed as it came`);
        void this.ledger.track(this.ledger.close(result.value, this.c.id), "a late connection's close");
      }
    });
    const result = await this.untilEnd(opened, `the connect to ${ref.name}`);
    if (!result.ok) throw new CaseFailure(`connect to ${ref.name} failed (${result.error.code}): ${result.error.message}`);
    return result.value;
  }

  /** A snapshot through the provider's hooks, kept to be removed at the end (or as it comes, after the end). */
  async snapshot(ref: ComputerRef, by: ComputerProvider): Promise<Snapshot> {
    const hooks = by.snapshots;
    if (!hooks) throw new CaseFailure(`the provider declares snapshot but has no snapshot hooks (ComputerProvider.snapshots)`);
    // No labels: it is removed by its image, and several vendors keep none on a snapshot.
    const taken = settle(() => hooks.take(ref, { signal: this.controller.signal }));
    this.ledger.track(taken, `a snapshot started by ${this.c.id}`);
    void taken.then((result) => {
      if (!result.ok) return;
      const made = { image: result.value.image, by, owner: this.c.id };
      if (this.open) this.snapshots.push(made);
      else {
        this.ledger.cleanup.late.push(`the snapshot ${made.image}, taken for ${this.c.id} after it ended, removed as it came`);
        void this.ledger.track(this.ledger.removeSnapshot(made), `the removal of the late snapshot ${made.image}`);
      }
    });
    const result = await this.untilEnd(taken, `the snapshot of ${ref.name}`);
    if (!result.ok) throw new CaseFailure(`the snapshot of ${ref.name} failed (${result.error.code}): ${result.error.message}`);
    return result.value;
  }

  /** Ends the case: closes its connections and folders, deletes its computers, then removes its snapshots (a fork never outlives its snapshot). */
  async end(): Promise<void> {
    this.open = false;
    this.controller.abort();
    await Promise.all(this.connections.map((c) => this.ledger.close(c, this.c.id)));
    await Promise.all(this.made.map((m) => this.ledger.release(m)));
    await Promise.all(this.snapshots.map((s) => this.ledger.removeSnapshot(s)));
    await Promise.all(
      this.folders.map((f) =>
        f.close().catch((error: Error) => this.ledger.cleanup.errors.push(`the run folder of ${this.c.id} could not be closed: ${error.message}`)),
      ),
    );
  }
}
