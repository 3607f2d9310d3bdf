import { defineConfig } from "vitest/config";

// One run holds every suite: unit (test/unit), integration against the real Docker engine
// (test/integration) and end to end through the real Pulumi engine (test/e2e). Docker and
// Pulumi suites are slow by nature, so their own timeouts are set per test where they wait.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
