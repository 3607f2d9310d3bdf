// The adb CLI's server, started when none listens: told by the socket's error code (data), not by
// the words of the failure. A fake adb records what it is asked; nothing listens on the port.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { AdbError, adbCli } from "../../src/phone-harness/adb.js";
import { freePort } from "../support/phone-adb.js";

const dir = mkdtempSync(path.join(tmpdir(), "agentrun-adb-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("starts the server once when the socket is refused, asks again, and keeps the refusal's code", async () => {
  const asked = path.join(dir, "asked");
  const adb = path.join(dir, "adb");
  writeFileSync(adb, `#!/bin/sh\necho "$@" >> ${asked}\n`);
  chmodSync(adb, 0o755);
  const port = await freePort();
  const error = await adbCli(adb, { port })
    .server(["host:version"])
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(AdbError);
  expect(error).toMatchObject({ kind: "unreachable", code: "ECONNREFUSED" });
  expect(readFileSync(asked, "utf8")).toBe(`-P ${port} start-server\n`);
});
