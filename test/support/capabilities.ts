// Every capability this machine's engine can hand a container, for the fakes whose sandboxes are
// a vendor's root (Daytona's, Modal's VMs).
import { readFileSync } from "node:fs";

// Capability numbers to Docker's names (linux/capability.h), for the ones a nested engine lacks.
const CAP_NAMES = [
  "CHOWN",
  "DAC_OVERRIDE",
  "DAC_READ_SEARCH",
  "FOWNER",
  "FSETID",
  "KILL",
  "SETGID",
  "SETUID",
  "SETPCAP",
  "LINUX_IMMUTABLE",
  "NET_BIND_SERVICE",
  "NET_BROADCAST",
  "NET_ADMIN",
  "NET_RAW",
  "IPC_LOCK",
  "IPC_OWNER",
  "SYS_MODULE",
  "SYS_RAWIO",
  "SYS_CHROOT",
  "SYS_PTRACE",
  "SYS_PACCT",
  "SYS_ADMIN",
  "SYS_BOOT",
  "SYS_NICE",
  "SYS_RESOURCE",
  "SYS_TIME",
  "SYS_TTY_CONFIG",
  "MKNOD",
  "LEASE",
  "AUDIT_WRITE",
  "AUDIT_CONTROL",
  "SETFCAP",
  "MAC_OVERRIDE",
  "MAC_ADMIN",
  "SYSLOG",
  "WAKE_ALARM",
  "BLOCK_SUSPEND",
  "AUDIT_READ",
  "PERFMON",
  "BPF",
  "CHECKPOINT_RESTORE",
];

/**
 * Every capability this machine can hand a container: ALL, less those its own bounding set lacks
 * (an engine that runs in a container cannot give what it does not hold).
 */
export function everyCapability(): string[] {
  let bounding = (1n << BigInt(CAP_NAMES.length)) - 1n;
  try {
    const line = /^CapBnd:\s*([0-9a-f]+)$/m.exec(readFileSync("/proc/self/status", "utf8"));
    if (line) bounding = BigInt(`0x${line[1]}`);
  } catch {
    // Not Linux: ask for ALL.
  }
  const lacking = CAP_NAMES.filter((_, bit) => (bounding & (1n << BigInt(bit))) === 0n);
  return ["--cap-add", "ALL", ...lacking.flatMap((name) => ["--cap-drop", name])];
}
