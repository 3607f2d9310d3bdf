// The docker run arguments of a computer, exactly as the spec's Docker section gives them.
import { WORKSPACE } from "../mount.js";
import { COMPUTER_LABEL, CPU_PERIOD, DAEMON_TARGET, DEADLINE_LABEL, HOME, RUN_DIR } from "./constants.js";
import { cpuQuota, type Plan, workSizeMb } from "./plan.js";

/** The tmpfs options create gives /run/agentrun and /work, which the drift check holds it to. */
export function tmpfsOptions(plan: Pick<Plan, "uid" | "gid" | "memoryMb">): Record<string, string[]> {
  const owner = [`uid=${plan.uid}`, `gid=${plan.gid}`, "mode=0700"];
  return {
    [RUN_DIR]: [...owner, "noexec", "nosuid", "nodev", "size=1m"],
    [HOME]: [...owner, "exec", "nosuid", "nodev", `size=${workSizeMb(plan.memoryMb)}m`],
  };
}

export function runArgs(plan: Plan): string[] {
  const args = ["run", "--detach", "--pull", "never", "--name", plan.name];
  args.push("--label", `${COMPUTER_LABEL}=1`, "--label", `${DEADLINE_LABEL}=${plan.deadline}`);
  for (const [key, value] of Object.entries(plan.labels)) args.push("--label", `${key}=${value}`);
  args.push(
    "--user", `${plan.uid}:${plan.gid}`,
    "--cap-drop", "ALL",
    "--security-opt", "no-new-privileges",
    "--ipc", "private",
    "--cgroupns", "private",
    "--network", plan.network === "open" ? "bridge" : "none",
    "--cpu-period", String(CPU_PERIOD),
    "--cpu-quota", String(cpuQuota(plan.cpus)),
    "--memory", `${plan.memoryMb}m`,
    "--memory-swap", `${plan.memoryMb}m`,
    "--pids-limit", String(plan.pids),
    "--restart", "no",
  );
  for (const [target, options] of Object.entries(tmpfsOptions(plan))) args.push("--tmpfs", `${target}:${options.join(",")}`);
  args.push("--mount", `type=bind,src=${plan.daemon},dst=${DAEMON_TARGET},readonly,bind-propagation=rprivate`);
  if (plan.mount) args.push("--mount", `type=bind,src=${plan.mount.path},dst=${WORKSPACE},bind-propagation=rprivate`);
  args.push("--env", `HOME=${HOME}`, "--workdir", plan.workdir, "--entrypoint", DAEMON_TARGET);
  args.push(plan.image, "init", "--deadline", plan.deadline);
  return args;
}
