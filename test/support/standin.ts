// The stand-in vendor agent (daemon/cmd/computerd/testdata/standin), built once, static, for the
// fakes' containers: it listens on 2280 and 49983 on every address and answers anything.
import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { packageRoot } from "../../src/package.js";

const run = promisify(execFile);
// The package's root, from test/support and from its build in dist/test/support alike.
const ROOT = packageRoot();
const OUT = path.join(ROOT, "dist", "test", "standin-linux-amd64");
const SRC = path.join(ROOT, "daemon", "cmd", "computerd", "testdata", "standin", "main.go");

export async function standinBinary(): Promise<string> {
  if (existsSync(OUT) && statSync(OUT).mtimeMs >= statSync(SRC).mtimeMs) return OUT;
  await run("go", ["build", "-o", OUT, "./cmd/computerd/testdata/standin"], {
    cwd: path.join(ROOT, "daemon"),
    env: { ...process.env, CGO_ENABLED: "0", GOOS: "linux", GOARCH: "amd64" },
  });
  return OUT;
}
