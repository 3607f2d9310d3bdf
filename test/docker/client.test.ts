// DaemonClient against a real computerd, in a container of the real Docker engine: hello,
// concurrent calls matched by id, the daemon's error kinds, and an aborted call.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallError, type ComputerClient } from "../../src/daemon/client.js";
import { ROOT, sh, startComputer, type TestComputer } from "../support/computerd.js";

const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

let computer: TestComputer;
let client: ComputerClient;

beforeAll(async () => {
  computer = await startComputer("client", { workMb: 64 });
  client = await computer.connect();
});
afterAll(async () => {
  await computer?.remove();
});

describe("DaemonClient against computerd", () => {
  it("says hello with the package's version and a Linux computer's groups", async () => {
    const hello = await client.call("hello", { client: "agentrun-library-test" });
    expect(hello).toMatchObject({ version, os: "linux", kind: "linux" });
    expect([...hello.groups].sort()).toEqual(["exec", "files", "processes"]);
    await expect(client.call("ping", {})).resolves.toEqual({});
  });

  it("runs argv, apart streams, and many calls at once matched by id", async () => {
    const ran = await client.call("exec.run", { argv: ["sh", "-c", "echo out; echo err >&2; exit 3"], timeoutMs: 10_000 });
    expect(ran).toMatchObject({ exitCode: 3, timedOut: false, truncated: false });
    expect(Buffer.from(ran.stdout, "base64").toString()).toBe("out\n");
    expect(Buffer.from(ran.stderr, "base64").toString()).toBe("err\n");
    // Slow calls first: their replies come after the fast ones', and each still gets its own.
    const runs = await Promise.all(
      [0.6, 0.4, 0.2, 0].map((s, i) => client.call("exec.run", { argv: ["sh", "-c", `sleep ${s}; echo ${i}`], timeoutMs: 10_000 })),
    );
    expect(runs.map((r) => Buffer.from(r.stdout, "base64").toString())).toEqual(["0\n", "1\n", "2\n", "3\n"]);
  });

  it("gives the daemon's error its kind", async () => {
    // This init got no --max-deadline, so any move is unsupported.
    const error = (await client.call("deadline.extend", { at: new Date(Date.now() + 3_600_000).toISOString() }).catch((e: unknown) => e)) as CallError;
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe("unsupported");
    const unknown = (await client.request("no.such.method", {}).catch((e: unknown) => e)) as CallError;
    expect(unknown).toBeInstanceOf(CallError);
  });

  it("aborts a call: $/cancelRequest ends the run and its processes, and the call settles aborted", async () => {
    // A sleep of its own length is the run's mark among the computer's processes; [s]leep in the
    // pattern keeps the checking shell's own command line from matching.
    const marker = `sleep 600.${Date.now() % 100_000}`;
    const running = () =>
      sh(client, `for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < "$f" 2>/dev/null; echo; done | grep -c '[${marker[0]}]${marker.slice(1)}' || true`).then(
        (n) => Number(n.trim()),
      );
    const until = async (done: (n: number) => boolean) => {
      for (let i = 0; i < 50 && !done(await running()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      return running();
    };
    const controller = new AbortController();
    const call = client.call("exec.run", { argv: ["sh", "-c", `${marker}; echo never`], timeoutMs: 60_000 }, { signal: controller.signal });
    call.catch(() => {});
    // The run's shell and its sleep.
    expect(await until((n) => n > 0)).toBe(2);
    controller.abort();
    await expect(call).rejects.toMatchObject({ kind: "aborted", message: "exec.run was aborted" });
    // The guard sends TERM at once (KILL 2 s later): within 5 s nothing of the run is left.
    expect(await until((n) => n === 0)).toBe(0);
    await expect(client.call("ping", {})).resolves.toEqual({});
  });
});
