// What proves a socket reached through /proc is the computer's own: the device its /run/agentrun
// tmpfs has in the computer's mount table, as stat reports a device, and its init's cgroup
// naming the container. Read from tables as the kernel writes them.
import { describe, expect, it } from "vitest";
import { deviceOf, inContainer, tmpfsDevice } from "../../src/docker/local-socket.js";

const ID = "13a3a90a12e215783f81a8f7f918cbdd296ff9fd57ba0cf8b63aaac5a7d4535c";

// /proc/<pid>/mountinfo of a computer made here (Engine 20.10.24), trimmed.
const MOUNTINFO = [
  "111 92 0:58 / / rw,relatime master:49 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/X,upperdir=/var/lib/docker/overlay2/a/diff,workdir=/var/lib/docker/overlay2/a/work",
  "131 111 0:60 / /work rw,nosuid,nodev,relatime - tmpfs tmpfs rw,size=131072k,mode=700,uid=1000,gid=1000",
  "132 111 0:61 / /run/agentrun rw,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw,size=1024k,mode=700,uid=1000,gid=1000",
  "133 111 8:1 /root/.cache/agentrun-computer/computerd-ab /opt/agentrun/computerd ro,relatime - ext4 /dev/sda1 rw",
].join("\n");

describe("a socket proved to be the computer's own", () => {
  it("takes the device of the tmpfs at /run/agentrun from the computer's mount table", () => {
    expect(tmpfsDevice(MOUNTINFO, "/run/agentrun")).toBe(61n);
    expect(tmpfsDevice(MOUNTINFO, "/work")).toBe(60n);
  });

  it("takes the mount on top when several are at the path, and none when that one is not a tmpfs", () => {
    const over = `${MOUNTINFO}\n140 132 0:70 / /run/agentrun rw - tmpfs tmpfs rw`;
    expect(tmpfsDevice(over, "/run/agentrun")).toBe(70n);
    const bound = `${MOUNTINFO}\n141 132 8:1 /tmp/x /run/agentrun rw - ext4 /dev/sda1 rw`;
    expect(tmpfsDevice(bound, "/run/agentrun")).toBeUndefined();
  });

  it("finds nothing at a path with no mount of its own (a folder of the image's)", () => {
    expect(tmpfsDevice(MOUNTINFO, "/run")).toBeUndefined();
    expect(tmpfsDevice("", "/run/agentrun")).toBeUndefined();
  });

  it("encodes major:minor as stat reports a device (glibc's makedev), small and large", () => {
    expect(deviceOf("0:61")).toBe(61n);
    expect(deviceOf("8:1")).toBe(0x801n);
    expect(deviceOf("259:3")).toBe(0x10303n);
    // minor past 255 and major past 4095 take the high bits
    expect(deviceOf("0:300")).toBe((0x100n << 12n) | 0x2cn);
    expect(deviceOf("4096:0")).toBe(0x1000n << 32n);
    expect(deviceOf("x:1")).toBeUndefined();
  });

  it("places a process in the container only when its cgroup names the whole id", () => {
    expect(inContainer(`9:name=systemd:/docker/${ID}\n8:pids:/docker/${ID}\n`, ID)).toBe(true);
    expect(inContainer(`0::/system.slice/docker-${ID}.scope\n`, ID)).toBe(true);
    expect(inContainer("0::/user.slice/user-1000.slice/session-2.scope\n", ID)).toBe(false);
    // A short id would match another container whose id starts the same.
    expect(inContainer(`0::/docker/${ID}\n`, ID.slice(0, 12))).toBe(false);
  });
});
