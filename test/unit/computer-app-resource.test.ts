// ComputerApp without a computer: every check refusal in its words, the settings checked against
// their JSON schema (places named, values never; a secret field only as a Pulumi secret), and
// which changes replace it and which update it.
import { describe, expect, test } from "vitest";
import { checkSettings, secretFields } from "../../provider/resources/computer-app-settings.js";
import { addressOf, computerApp, folderOf } from "../../provider/resources/computer-app.js";
import { isSecret, secret } from "../../provider/secrets.js";
import { testContext } from "../support/context.js";

const SIG = "4dabf18193072939515e22adb298388d";
const archive = (assets: Record<string, unknown>) => ({ [SIG]: "0def7320c3a5731c473e5ecbe6d01bc7", assets, hash: "h" });
const text = (t: string) => ({ [SIG]: "c44067f5952c0a294b673a41bacd8c17", text: t });
const web = { web: { argv: ["perl", "serve.pl"] } };

const ctx = testContext();
const reasons = async (news: Record<string, unknown>) =>
  ((await computerApp.check(ctx, {}, { computer: "computer-0123456789ab", name: "notes", services: web, ...news })).failures ?? []).map(
    (f) => `${f.property}: ${f.reason}`,
  );

const schema = {
  type: "object",
  properties: { port: { type: "integer", minimum: 1024 }, token: { type: "string", writeOnly: true }, key: { type: "string", format: "password" } },
  required: ["port"],
  additionalProperties: false,
};

describe("ComputerApp check", () => {
  test.each([
    [
      "no name",
      { name: undefined },
      "name: name is required: the app's name, lowercase letters, digits, _ and - (at most 63), its folder's under ~/.agentrun/apps",
    ],
    [
      "a name with a slash",
      { name: "a/b" },
      "name: name is required: the app's name, lowercase letters, digits, _ and - (at most 63), its folder's under ~/.agentrun/apps",
    ],
    [
      "a name of ..",
      { name: ".." },
      "name: name is required: the app's name, lowercase letters, digits, _ and - (at most 63), its folder's under ~/.agentrun/apps",
    ],
    [
      "no services",
      { services: undefined },
      "services: services is required: a map of service names to {argv, env}, each started as the computer's user from the app's folder",
    ],
    ["a service with no argv", { services: { web: { env: {} } } }, "services: services.web needs argv: the program and its arguments, a list of strings"],
    [
      "a service field it does not take",
      { services: { web: { argv: ["x"], user: "root" } } },
      "services: services.web has no field user; it takes argv and env",
    ],
    [
      "a service name with a space",
      { services: { "my web": { argv: ["x"] } } },
      'services: the service name "my web" is not letters, digits, _, . and - (at most 63)',
    ],
    [
      "the app's own variable",
      { services: { web: { argv: ["x"], env: { AGENTRUN_APP_SETTINGS: "{}" } } } },
      "services: services.web.env's AGENTRUN_APP_SETTINGS is the app's own: name another",
    ],
    [
      "files that are no archive",
      { files: text("x") },
      "files: files is an archive (fn::fileArchive of a folder, or fn::assetArchive), installed into the app's folder",
    ],
    [
      "a file that leaves the app's folder and the home",
      { files: archive({ "../../../../x": text("x") }) },
      'files: files\'s entry "../../../../x" under .agentrun/apps/notes leaves the home: a step writes and reads only inside it',
    ],
    ["ready with neither port nor command", { ready: { timeoutSeconds: 5 } }, "ready: ready takes one of port and command"],
    ["ready with both", { ready: { port: 80, command: ["true"] } }, "ready: ready takes one of port and command"],
    ["a port past 65535", { ready: { port: 70000 } }, "ready: ready.port is a TCP port, 1 to 65535, on the computer's loopback"],
    [
      "a ready command that is no argv",
      { ready: { command: "curl x" } },
      "ready: ready.command is an argv, a list of strings, that exits 0 once the app is up",
    ],
    ["a ready timeout past 600 s", { ready: { port: 80, timeoutSeconds: 601 } }, "ready: ready.timeoutSeconds is whole seconds from 1 to 600"],
    ["settings that are no map", { settings: "x" }, "settings: settings is a map of the app's settings"],
    [
      "a schema that is no object",
      { settings: {}, settingsSchema: "x" },
      "settingsSchema: settingsSchema is a JSON schema: an object such as {type: object, properties: {...}, required: [...]}",
    ],
    [
      "a schema ajv cannot compile",
      { settings: {}, settingsSchema: { type: "no-such-type" } },
      expect.stringMatching(/^settingsSchema: settingsSchema is not a JSON schema ajv can compile: /),
    ],
    ["settings missing a required field", { settings: {}, settingsSchema: schema }, "settings: settings must have required property 'port'"],
    ["a setting of the wrong type", { settings: { port: "x" }, settingsSchema: schema }, "settings: settings.port must be integer"],
    ["a setting under its minimum", { settings: { port: 80 }, settingsSchema: schema }, "settings: settings.port must be >= 1024"],
    [
      "a secret setting given in clear",
      { settings: { port: 8080, token: "t0k3n" }, settingsSchema: schema },
      "settings: settings.token is a secret in settingsSchema: give it as a Pulumi secret (fn::secret, or pulumi config set --secret)",
    ],
    [
      "an unknown field",
      { image: "x" },
      'image: agentrun:index:ComputerApp has no field "image"; it takes computer, provider, name, files, services, settings, settingsSchema, port, ready',
    ],
    [
      "a port out of range",
      { port: 70000 },
      "port: port is the TCP port, 1 to 65535, the app answers on at the computer's loopback (its address is http://127.0.0.1:<port>)",
    ],
  ])("refuses %s in words", async (_name, news, words) => {
    expect(await reasons(news)).toContainEqual(words);
  });

  test("a setting's value is never in a refusal", async () => {
    const said = (await reasons({ settings: { port: "hunter2", key: "hunter2" }, settingsSchema: schema })).join(" ");
    expect(said).not.toContain("hunter2");
  });

  test("takes a secret setting given as a Pulumi secret, and keeps it wrapped", async () => {
    const checked = await computerApp.check(
      ctx,
      {},
      { computer: "c", name: "notes", services: web, settings: { port: 8080, token: secret("t0k3n") }, settingsSchema: schema },
    );
    expect(checked.failures).toBeUndefined();
    expect(isSecret((checked.inputs?.settings as Record<string, unknown>).token)).toBe(true);
  });

  test("takes settings that are a secret as a whole", async () => {
    expect(await reasons({ settings: secret({ port: 8080, token: "t0k3n" }), settingsSchema: schema })).toEqual([]);
  });

  test("fills in the ready bound and the provider", async () => {
    const checked = await computerApp.check(ctx, {}, { computer: "c", name: "notes", services: web, ready: { port: 8080 } });
    expect(checked.inputs).toMatchObject({ provider: "docker", ready: { port: 8080, timeoutSeconds: 60 } });
  });
});

describe("ComputerApp's address", () => {
  test("is its port on the computer's loopback, and the app is ready once the port answers", async () => {
    const checked = await computerApp.check(ctx, {}, { computer: "c", name: "notes", services: web, port: 8080 });
    expect(checked.inputs).toMatchObject({ port: 8080, ready: { port: 8080, timeoutSeconds: 60 } });
    expect(addressOf(8080)).toBe("http://127.0.0.1:8080");
  });

  test("a ready check of its own is kept", async () => {
    const checked = await computerApp.check(ctx, {}, { computer: "c", name: "notes", services: web, port: 8080, ready: { command: ["true"] } });
    expect(checked.inputs?.ready).toEqual({ command: ["true"], timeoutSeconds: 60 });
  });
});

describe("settings schemas", () => {
  test("a field marked writeOnly or format password is a secret", () => {
    expect(secretFields(schema)).toEqual(["token", "key"]);
  });

  test("every violation is named together", () => {
    expect(checkSettings(schema, { port: "x", extra: 1 }, { port: "x", extra: 1 }).map((r) => r.message)).toEqual([
      "settings must NOT have additional properties",
      "settings.port must be integer",
    ]);
  });
});

describe("ComputerApp diff", () => {
  const olds = { computer: "c", provider: "docker", name: "notes", services: web, sources: { files: "h" }, drift: [] };
  const news = { computer: "c", provider: "docker", name: "notes", services: web, files: { [SIG]: "0def7320c3a5731c473e5ecbe6d01bc7", hash: "h" } };
  test("no change is no change", async () => {
    expect(await computerApp.diff(ctx, "app", olds, news)).toMatchObject({ changes: false });
  });
  test.each(["computer", "name"])("a new %s is a replace", async (k) => {
    expect(await computerApp.diff(ctx, "app", olds, { ...news, [k]: "other" })).toEqual({ changes: true, replaces: [k], deleteBeforeReplace: false });
  });
  test.each([
    ["files", { files: { [SIG]: "0def7320c3a5731c473e5ecbe6d01bc7", hash: "h2" } }],
    ["services", { services: { web: { argv: ["perl", "other.pl"] } } }],
    ["settings", { settings: { a: 1 } }],
    ["ready", { ready: { port: 1, timeoutSeconds: 60 } }],
    ["port", { port: 9000 }],
  ])("a change of %s is an update", async (_k, change) => {
    expect(await computerApp.diff(ctx, "app", olds, { ...news, ...change })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });
  test("drift is an update", async () => {
    expect(await computerApp.diff(ctx, "app", { ...olds, drift: ["the service web is not running (exited 1)"] }, news)).toMatchObject({
      changes: true,
      replaces: [],
    });
  });
  test("its folder is under ~/.agentrun/apps", () => {
    expect(folderOf("notes")).toBe(".agentrun/apps/notes");
  });
});
