import { defineConfig } from "vitest/config";

// The suites by what a test needs, one vitest project each (`vitest run --project <name>`):
// - unit (test/unit): Node alone, no Docker engine, no build, no Pulumi: `npm run test:unit`.
// - docker (test/docker): a real Docker engine and the set-up's build (dist/, dist/toolchain.json).
// - pulumi (test/pulumi): the real Pulumi engine (the CLI the set-up built) on the real Docker engine.
// - live (test/live): live vendors, each skipped in words without its settings.
// - kube (test/kube): the two-node test cluster (scripts/kube-up.sh), skipped in words unless
//   AGENTRUN_KUBE_TESTS=1 (`npm run test:kube`).
// Fakes and helpers are in test/support. `npm test` (scripts/test.sh) runs every project. Docker and
// Pulumi tests are slow by nature, so their own timeouts are set per test where they wait.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    projects: [
      // Threads, one per core: the unit files share nothing outside their worker, and a thread
      // starts in a fraction of a forked process's time and memory. A project with workers of its
      // own runs in a group of its own: in a whole run, the unit files first, then the rest.
      {
        extends: true,
        test: { name: "unit", include: ["test/unit/**/*.test.ts"], pool: "threads", maxWorkers: "100%", sequence: { groupOrder: 0 } },
      },
      // Two files at a time: most of their time is spent waiting on containers, engines and the
      // Pulumi CLI, and vitest's default (the cores less one) ran them one by one on 2 cores.
      ...["docker", "pulumi", "live"].map((name) => ({
        extends: true,
        test: { name, include: [`test/${name}/**/*.test.ts`], maxWorkers: 2, sequence: { groupOrder: 1 } },
      })),
      // The kube files share one cluster, which the cluster's own test stops: one file at a time,
      // after the rest (vitest runs a group's projects with one number of workers).
      {
        extends: true,
        test: { name: "kube", include: ["test/kube/**/*.test.ts"], fileParallelism: false, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
