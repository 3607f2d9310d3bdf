// Processes' memory and CPU as /proc says them, for the benches that print them: a field of a
// process's status (VmRSS now, VmHWM its peak), the processes whose command line matches, a
// sampler that keeps the largest reading while a bench runs (a plugin exits at the end of each
// operation, so its peak is read while it lives), the CPU time the plugins used (a figure a
// loaded machine stretches less than a wall time), and the whole machine's.
import { readFileSync } from "node:fs";
import { readdir, readFile, readlink } from "node:fs/promises";

// The whole machine's busy CPU time in ms (/proc/stat: user, nice, system, irq, softirq), so a
// figure can be read against what it costs every process on its path, not one alone.
export const busyMs = () => {
  const [user, nice, system, , , irq, softirq] = readFileSync("/proc/stat", "utf8").split("\n")[0].split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq) * 10;
};

/** A process's status field in KiB (0 when it has gone). */
export const kib = async (pid, field) => {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
};

/** The pids whose command line (NULs as spaces) match(pid, cmd) accepts. */
export const pidsOf = async (match) => {
  const out = [];
  for (const p of await readdir("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    const cmd = (await readFile(`/proc/${p}/cmdline`, "utf8").catch(() => "")).replace(/\0/g, " ");
    if (await match(p, cmd)) out.push(p);
  }
  return out;
};

/** The plugin of the stack in dir: the provider's entry running with the program's folder as its cwd. */
export const pluginOf = (dir) => async (p, cmd) => cmd.includes("dist/provider/main.js") && (await readlink(`/proc/${p}/cwd`).catch(() => "")) === dir;

/** Reads every 500 ms and keeps the largest reading: peak() so far; stop() ends it. */
export function peakOf(read) {
  let peak = 0;
  // The reading is taken before peak is: a slow read (a loaded machine) never puts back an older peak.
  const every = setInterval(async () => {
    const now = await read();
    peak = Math.max(peak, now);
  }, 500);
  return { peak: () => peak, stop: () => clearInterval(every) };
}

/** The program that started a process: its parent's argv[0], without the folder. */
const parentOf = async (pid) => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const ppid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
  const cmd = await readFile(`/proc/${ppid}/cmdline`, "utf8").catch(() => "");
  return cmd.split("\0")[0].split("/").pop() || "?";
};

/**
 * The peak RSS (VmHWM, KiB) of the plugin processes of the stack in dir, and every pid seen with
 * the program that started it (the engine serves resources from one; a YAML program's runtime
 * starts one of its own to read the schema).
 */
export function pluginPeak(dir) {
  const pids = new Map();
  const watch = peakOf(async () => {
    const now = await pidsOf(pluginOf(dir));
    for (const p of now) if (!pids.has(p)) pids.set(p, await parentOf(p));
    return Math.max(0, ...(await Promise.all(now.map((p) => kib(p, "VmHWM")))));
  });
  return { ...watch, pids };
}

/** A process's CPU time so far (user + system), in seconds; undefined when it has gone. */
const cpuSeconds = async (pid) => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  if (!stat) return undefined;
  const [utime, stime] = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .slice(11, 13)
    .map(Number);
  return (utime + stime) / 100; // USER_HZ is 100 on Linux
};

/**
 * The CPU time of the plugin processes of the stack in dir while it runs: each one's last reading
 * (taken every 50 ms; new plugins looked for every 200 ms), summed. A plugin's last 50 ms before it
 * exits can be missed.
 */
export function pluginCpu(dir) {
  const last = new Map();
  const find = setInterval(async () => {
    for (const p of await pidsOf(pluginOf(dir))) if (!last.has(p)) last.set(p, 0);
  }, 200);
  const read = setInterval(async () => {
    for (const p of last.keys()) {
      const s = await cpuSeconds(p);
      if (s !== undefined) last.set(p, s);
    }
  }, 50);
  return {
    seconds: () => [...last.values()].reduce((a, b) => a + b, 0),
    plugins: () => last.size,
    stop: () => {
      clearInterval(find);
      clearInterval(read);
    },
  };
}
