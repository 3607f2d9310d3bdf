// mount: the run's folder at /workspace, on a computer of the case's own made with the folder
// mountFor gives; and each kind the provider does not declare refused by check and create alike.
import { runLabels } from "../../contract/labels.js";
import { MOUNT_KINDS, type MountKind, type MountSpec, readBackOf, WORKSPACE } from "../../contract/mount.js";
import { b64, call, check, must, mustFail, output, shown } from "../assert.js";
import { conformanceCase, type CaseContext, Skip } from "../case.js";

const EPOCH = 1;

async function runFolder(t: CaseContext, kind: MountKind) {
  const folder = await t.runFolder(kind);
  if (!folder) return new Skip(`the run has no run folder of kind ${kind} (its module's mountFor gives none)`);
  const secret = folder.mount.kind === "archil" ? folder.mount.token : undefined;
  const outside = `outside ${t.runId}\n`;
  await folder.write("outside.txt", Buffer.from(outside));
  const labels = { ...t.labels, ...runLabels(`conformance-${t.runId}`, EPOCH) };
  must(t.provider.check(t.spec({ mount: folder.mount, labels })), "check of a spec with the run folder");
  const ref = await t.create({ mount: folder.mount, labels });
  const expected = readBackOf(folder.mount, EPOCH);
  const attached = must(await t.provider.attach({ id: ref.id }, { signal: t.signal }), `attach of ${ref.name}`);
  check(shown(attached.spec?.mount) === shown(expected), `attach reads the mount back as ${shown(attached.spec?.mount)}, not ${shown(expected)}`);
  const listed = must(await t.provider.list(labels, { signal: t.signal }), "list").find((c) => c.ref.name === ref.name);
  check(shown(listed?.mount) === shown(expected), `list reads the mount back as ${shown(listed?.mount)}, not ${shown(expected)}`);
  if (secret) check(!JSON.stringify([ref, attached, listed]).includes(secret), "a read-back holds the Archil token");
  const connection = await t.connect(ref);
  const read = await call("files.read in /workspace", connection.client.call("files.read", { path: `${WORKSPACE}/outside.txt` }, { signal: t.signal }));
  check(
    Buffer.from(read.data, "base64").toString() === outside,
    `a file written outside reads ${shown(Buffer.from(read.data, "base64").toString())} at ${WORKSPACE}`,
  );
  const inside = `inside ${t.runId}\n`;
  await call("files.write in /workspace", connection.client.call("files.write", { path: `${WORKSPACE}/inside.txt`, data: b64(inside) }, { signal: t.signal }));
  const back = Buffer.from(await folder.read("inside.txt")).toString();
  check(back === inside, `a file written at ${WORKSPACE} reads ${shown(back)} outside`);
  const cat = await output(connection.client, ["cat", "inside.txt"], { signal: t.signal, cwd: WORKSPACE });
  check(cat === inside, `cat inside.txt in ${WORKSPACE} printed ${shown(cat)}`);
}

export const mountCases = [
  conformanceCase("mount.run-folder-bind", "full", { mount: "bind", groups: ["files", "exec"] }, (t) => runFolder(t, "bind")),

  conformanceCase("mount.run-folder-archil", "full", { mount: "archil", groups: ["files", "exec"] }, (t) => runFolder(t, "archil")),

  conformanceCase("mount.undeclared-kind", "full", {}, async (t) => {
    const declared = t.capabilities.mount ?? [];
    const undeclared = MOUNT_KINDS.filter((kind) => !declared.includes(kind));
    if (undeclared.length === 0) return new Skip("the provider declares every mount kind");
    const token = `agentrun-conformance-token-${t.runId}`;
    for (const kind of undeclared) {
      const mount: MountSpec = kind === "bind" ? { kind, path: `/agentrun-conformance-${t.runId}` } : { kind, disk: token, region: "r", folder: "f", token };
      const checked = mustFail(t.provider.check(t.spec({ mount })), ["invalid"], `check of a mount of kind ${kind}, which the provider does not declare,`);
      check(checked.field === "mount", `check's refusal of kind ${kind} names the field ${shown(checked.field)}, not mount`);
      check(checked.message.includes(kind), `check's refusal does not name the kind ${kind}: ${checked.message}`);
      const created = await t.attempt(t.spec({ mount }));
      const refused = mustFail(created, ["invalid"], `create with a mount of kind ${kind}`);
      check(refused.message === checked.message, `create refused in other words than check: ${shown(refused.message)}`);
      check(![checked.message, refused.message].some((m) => m.includes(token)), "a refusal holds the token");
    }
    const left = must(await t.provider.list(t.labels, { signal: t.signal }), "list");
    check(left.length === 0, `a refused create made ${shown(left.map((c) => c.ref.name))}`);
  }),
];
