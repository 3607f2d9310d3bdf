// The Python packages the ComputerApp requirements tests install: tinyapp 1.0, a pure-Python wheel
// written here (its RECORD hashed as pip reads it), and pip's own wheel from Debian's
// python3-pip-whl, which the set-up installs with --tests.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";

/** Where Debian's python3-pip-whl keeps pip's wheel. */
const PIP_WHEELS = "/usr/share/python-wheels";

export const TINYAPP_WHEEL = "tinyapp-1.0-py3-none-any.whl";
/** What tinyapp.GREETING holds. */
export const TINYAPP_GREETING = "hello from tinyapp";

// Writes the wheel to argv[1].
const MAKE_WHEEL = `import base64, hashlib, sys, zipfile
files = {
  "tinyapp/__init__.py": b'GREETING = "${TINYAPP_GREETING}"\\n',
  "tinyapp-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\\nName: tinyapp\\nVersion: 1.0\\n",
  "tinyapp-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\\nGenerator: agentrun-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
record = "".join(f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode()},{len(b)}\\n" for n, b in files.items())
with zipfile.ZipFile(sys.argv[1], "w") as z:
  for n, b in files.items(): z.writestr(n, b)
  z.writestr("tinyapp-1.0.dist-info/RECORD", record + "tinyapp-1.0.dist-info/RECORD,,\\n")
`;

/** Writes tinyapp's wheel into dir; its path. */
export async function writeTinyapp(dir: string): Promise<string> {
  const path = join(dir, TINYAPP_WHEEL);
  await execa("python3", ["-c", MAKE_WHEEL, path]);
  return path;
}

/** pip's wheel on this machine. */
export async function pipWheel(): Promise<string> {
  const pip = (await readdir(PIP_WHEELS).catch(() => [])).find((f) => /^pip-.*\.whl$/.test(f));
  if (!pip) throw new Error(`no pip wheel in ${PIP_WHEELS}: the set-up installs it with --tests (apt-get install python3-pip-whl)`);
  return join(PIP_WHEELS, pip);
}
