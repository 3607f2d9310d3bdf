// Modal's live conformance run, for a person with a key: skipped, in words, unless
// AGENTRUN_COMPUTER_LIVE_MODAL=1 and COMPUTER_MODAL_TOKEN_ID, COMPUTER_MODAL_TOKEN_SECRET and
// COMPUTER_MODAL_APP are set (never MODAL_TOKEN_ID or MODAL_TOKEN_SECRET). It runs the whole suite
// on real Modal with the image COMPUTER_MODAL_IMAGE (default debian:bookworm-slim), releases with
// 150 s to spare, and must pass Core. Wrap it in the sweep (src/modal/conformance/sweep.ts).
import { describe, expect, it } from "vitest";
import { createDriftedProvider, createProvider, liveProblem } from "../../src/modal/conformance/module.js";
import { formatReport, runConformance } from "../../src/conformance/index.js";
import { DEFAULT_IMAGE as MODAL_DEFAULT_IMAGE } from "../../src/modal/constants.js";

const problem = liveProblem(process.env);

describe("Modal, live", () => {
  it.skipIf(problem !== undefined)(
    `passes Core on real Modal${problem ? ` (skipped: ${problem})` : ""}`,
    async () => {
      const report = await runConformance(createProvider(), {
        image: process.env.COMPUTER_MODAL_IMAGE || MODAL_DEFAULT_IMAGE,
        drifted: createDriftedProvider(),
        cleanupTimeoutMs: 150_000,
      });
      expect(report.core, formatReport(report)).toBe("pass");
    },
    45 * 60_000,
  );
});
