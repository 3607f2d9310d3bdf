// Preloaded into a plugin by test/pulumi/plugin-memory.test.ts (NODE_OPTIONS=--require, which is
// no V8 flag): on SIGUSR2 it allocates as a fleet's steps at once do (short-lived objects, a third
// of them kept a while) and writes the young generation's size before and after to stderr.
const { getHeapSpaceStatistics } = require("node:v8");

const young = () => getHeapSpaceStatistics().find((space) => space.space_name === "new_space").space_size;

process.on("SIGUSR2", () => {
  const before = young();
  const kept = [];
  for (let i = 0; i < 2_000_000; i++) {
    const step = { i, name: `step ${i}`, parts: [i] };
    if (i % 3 === 0) kept.push(step);
    if (kept.length > 200_000) kept.splice(0, 100_000);
  }
  process.stderr.write(`young generation: ${before} bytes, then ${young()} bytes\n`);
});
