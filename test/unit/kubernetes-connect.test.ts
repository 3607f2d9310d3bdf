// Create's first connection to a Pod's daemon retries while init comes up, and stops as soon as
// the Pod says its computer will never answer (a container that ended), in the Pod's words.
import { describe, expect, it } from "vitest";
import { fail } from "../../src/daemon/result.js";
import { openBridge, type ExecRunner } from "../../src/kubernetes/connect.js";

const NOT_FOUND = 'exec of /opt/agentrun/computerd in computer-0123456789ab: HTTP 500: container not found ("computer")';

function runner() {
  let tries = 0;
  const run: ExecRunner = async () => {
    tries++;
    return fail("failed", NOT_FOUND);
  };
  return { run, tries: () => tries };
}

describe("create's first connection", () => {
  it("stops retrying when the Pod says its container ended, quoting both the Pod and the exec", async () => {
    const { run, tries } = runner();
    let asked = 0;
    const ended = async () =>
      ++asked < 2 ? undefined : "it ended before it was ready: phase Failed, its container terminated (Error, exit code 3): no daemon after 150 s";
    const started = Date.now();
    const got = await openBridge(run, { target: "computer-0123456789ab", helloMs: 30_000, callMs: 1_000, retry: { ended } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(got).toEqual(
      fail(
        "gone",
        `the daemon in computer-0123456789ab will never answer: it ended before it was ready: phase Failed, its container terminated (Error, exit code 3): no daemon after 150 s (${NOT_FOUND})`,
      ),
    );
    expect(tries()).toBe(2);
  });

  it("retries to its deadline while the Pod says nothing has ended", async () => {
    const { run, tries } = runner();
    const got = await openBridge(run, { target: "computer-0123456789ab", helloMs: 1_000, callMs: 1_000, retry: { ended: async () => undefined } });
    expect(got).toEqual(fail("timeout", `the daemon in computer-0123456789ab did not say hello within 1 s (${NOT_FOUND})`));
    expect(tries()).toBeGreaterThan(1);
  });
});
