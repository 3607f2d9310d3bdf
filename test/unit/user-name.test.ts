// A computer's user by name: the image's /etc/passwd and /etc/group get a line for the computer's
// uid and gid when they name neither, and are left as they are when they do.
import { describe, expect, it } from "vitest";
import { firstFileOf, tarOf } from "../../src/docker/tar.js";
import { groupWith, passwdWith } from "../../src/docker/user-name.js";

const PASSWD = "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";

describe("a computer's user by name", () => {
  it("adds agent for a uid the image does not name, its home /work", () => {
    expect(passwdWith(PASSWD, 1000, 1000)).toBe(`${PASSWD}agent:x:1000:1000:agent:/work:/bin/sh\n`);
    expect(groupWith("root:x:0:\n", 1000)).toBe("root:x:0:\nagent:x:1000:\n");
  });

  it("leaves a uid and a gid the image names as they are", () => {
    expect(passwdWith(PASSWD, 0, 0)).toBeUndefined();
    expect(groupWith("root:x:0:\n", 0)).toBeUndefined();
  });

  it("names it agent<uid> when agent is another's, and ends a file with no last newline first", () => {
    expect(passwdWith("agent:x:1000:1000::/home/agent:/bin/sh", 1234, 1234)).toBe(
      "agent:x:1000:1000::/home/agent:/bin/sh\nagent1234:x:1234:1234:agent1234:/work:/bin/sh\n",
    );
  });

  it("writes and reads back a ustar archive's file", () => {
    const tar = tarOf([{ path: "passwd", mode: 0o644, bytes: Buffer.from(PASSWD) }]);
    expect(tar.length % 512).toBe(0);
    expect(firstFileOf(tar)?.toString("utf8")).toBe(PASSWD);
  });
});
