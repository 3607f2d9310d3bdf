// ComputerApp without a computer: every check refusal in its words, the settings checked against
// their JSON schema (places named, values never; a secret field only as a Pulumi secret), and
// which changes replace it and which update it.
import { describe, expect, test } from "vitest";
import { checkSettings, secretFields } from "../../provider/resources/computer-app-settings.js";
import { addressOf, computerApp, folderOf } from "../../provider/resources/computer-app.js";
import { UNKNOWN, isSecret, secret } from "../../provider/secrets.js";
import { testContext } from "../support/context.js";
import { unsupported } from "../../src/inside/supports.js";

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
      "services: services or launch is required: services, a map of service names to {argv, env}, each started as the computer's user from the app's folder; launch, the app's command",
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
      'image: agentrun:index:ComputerApp has no field "image"; it takes computer, provider, name, files, services, settings, settingsSchema, port, ready, supports, permissions, skill, installSteps, launch, requirements',
    ],
    [
      "a port out of range",
      { port: 70000 },
      "port: port is the TCP port, 1 to 65535, the app answers on at the computer's loopback (its address is http://127.0.0.1:<port>)",
    ],
    [
      "supports that is a list",
      { supports: ["linux"] },
      "supports: supports is {os, arch}: lists of the platforms the app runs on (os of linux, android; arch of amd64, arm64)",
    ],
    [
      "supports naming an arch no daemon says",
      { supports: { arch: ["x86_64"] } },
      'supports: supports.arch names "x86_64", which no computer\'s daemon says it is: give amd64, arm64',
    ],
    ["supports with an empty os", { supports: { os: [] } }, "supports: supports.os is a non-empty list of linux, android"],
    ["supports with a field it does not take", { supports: { kind: ["desktop"] } }, "supports: supports has no field kind; it takes os and arch"],
    [
      "permissions that are not words",
      { permissions: [1] },
      "permissions: permissions is a list of what the app asks for, in words (stored and shown, not enforced)",
    ],
    [
      "a skill that is no asset",
      { skill: "Use the app." },
      "skill: skill is a file for the agent: an asset (fn::fileAsset of a local file, or fn::stringAsset), installed as SKILL.md",
    ],
    [
      "a skill whose file is not there",
      { skill: { [SIG]: "c44067f5952c0a294b673a41bacd8c17", path: "/no/such/skill.md" } },
      "skill: files.SKILL.md: the local file /no/such/skill.md is not there (or is not a file)",
    ],
    ["a skill past 256 KiB", { skill: text("x".repeat(256 * 1024 + 1)) }, "skill: skill holds 262145 bytes, past the most given back, 262144 (256 KiB)"],
    [
      "an app file on SKILL.md beside a skill",
      { files: archive({ "SKILL.md": text("a") }), skill: text("b") },
      "files: two entries of files land on .agentrun/apps/notes/SKILL.md",
    ],
    [
      "install steps that are no list",
      { installSteps: "make" },
      "installSteps: installSteps is a list of {name, command, timeoutSeconds}, run once, in order, from the app's folder as the computer's user",
    ],
    [
      "an install step with no name",
      { installSteps: [{ command: "make" }] },
      "installSteps: installSteps[0].name is required: letters, digits, spaces, _, . and - (at most 63), naming the step in its result",
    ],
    [
      "two install steps of one name",
      {
        installSteps: [
          { name: "a", command: "true" },
          { name: "a", command: "true" },
        ],
      },
      'installSteps: installSteps[1].name "a" names another step too',
    ],
    [
      "an install step with no command",
      { installSteps: [{ name: "a", command: [] }] },
      "installSteps: installSteps[0].command is required: a script (run by sh from the app's folder) or an argv, a list of strings",
    ],
    [
      "an install step's timeout past the daemon's bound",
      { installSteps: [{ name: "a", command: "true", timeoutSeconds: 3601 }] },
      "installSteps: installSteps[0].timeoutSeconds is whole seconds from 1 to 3600",
    ],
    [
      "a launch with no argv",
      { launch: { command: "x" } },
      "launch: launch is {argv, env, window}: the app's command, started as the computer's user from its folder",
    ],
    [
      "a launch's window with no title",
      { launch: { argv: ["x"], window: { title: " " } } },
      "launch: launch.window is {title, timeoutSeconds}: a part of the title of the window the launch shows on a desktop, found and raised",
    ],
    [
      "a launch's window waited on too long",
      { launch: { argv: ["x"], window: { title: "X", timeoutSeconds: 601 } } },
      "launch: launch.window.timeoutSeconds is whole seconds from 1 to 600",
    ],
    [
      "a launch setting the app's own variable",
      { launch: { argv: ["x"], env: { AGENTRUN_APP: "y" } } },
      "launch: launch.env's AGENTRUN_APP is the app's own: name another",
    ],
    ["requirements of no language it knows", { requirements: { node: { packages: ["x"] } } }, "requirements: requirements has no field node; it takes python"],
    [
      "no Python packages",
      { requirements: { python: { packages: [] } } },
      "requirements: requirements.python.packages is a non-empty list of pip requirements (name, name==1.0)",
    ],
    ...["--index-url=http://example.test/simple", "-r /etc/passwd", "https://example.test/x.whl", "./wheels/x.whl", "x @ https://example.test/x.whl"].map(
      (p) =>
        [
          `the pip requirement ${p}`,
          { requirements: { python: { packages: [p] } } },
          `requirements: requirements.python.packages' ${JSON.stringify(p)} is not a requirement by name and version: an option, a path or a URL is refused (send wheels instead)`,
        ] as [string, Record<string, unknown>, string],
    ),
    [
      "wheels that are no folder",
      { requirements: { python: { packages: ["x"], wheels: "./wheels" } } },
      "requirements: requirements.python.wheels is a local folder of wheels (fn::fileArchive), sent with the app and installed from offline",
    ],
    [
      "a wheels folder that is not there",
      { requirements: { python: { packages: ["x"], wheels: { [SIG]: "0def7320c3a5731c473e5ecbe6d01bc7", path: "/no/such/wheels" } } } },
      "requirements: requirements.python.wheels: /no/such/wheels is not a local folder (a tar or zip archive is not unpacked: give its folder)",
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

describe("ComputerApp as the seed declares it", () => {
  test("a launch alone is an app, with no services", async () => {
    const checked = await computerApp.check(ctx, {}, { computer: "c", name: "notes", launch: { argv: ["xclock"] } });
    expect(checked.failures).toBeUndefined();
    expect(checked.inputs).toMatchObject({ services: {}, launch: { argv: ["xclock"] } });
  });

  test("keeps Python requirements by name and version", async () => {
    const requirements = { python: { packages: ["tinyapp==1.0", "req[socks]>=2,<3"] } };
    const checked = await computerApp.check(ctx, {}, { computer: "c", name: "notes", services: web, requirements });
    expect(checked.failures).toBeUndefined();
    expect(checked.inputs?.requirements).toEqual(requirements);
  });

  test("fills in the launch's window's timeout", async () => {
    const checked = await computerApp.check(ctx, {}, { computer: "c", name: "notes", launch: { argv: ["viewer"], window: { title: "Scores" } } });
    expect(checked.inputs?.launch).toEqual({ argv: ["viewer"], window: { title: "Scores", timeoutSeconds: 30 } });
  });

  test("fills in each install step's timeout", async () => {
    const checked = await computerApp.check(ctx, {}, { computer: "c", name: "notes", services: web, installSteps: [{ name: "build", command: "make" }] });
    expect(checked.inputs?.installSteps).toEqual([{ name: "build", command: "make", timeoutSeconds: 300 }]);
  });

  test.each([
    [{ os: ["linux"], arch: ["amd64"] }, { os: "linux", arch: "amd64" }, undefined],
    [undefined, { os: "linux", arch: "arm64" }, undefined],
    [{ arch: ["arm64"] }, { os: "linux", arch: "amd64" }, "arch amd64 (it supports arm64)"],
    [{ os: ["android"], arch: ["arm64"] }, { os: "linux", arch: "amd64" }, "os linux (it supports android) and arch amd64 (it supports arm64)"],
  ])("supports %j on a computer of %j: %s", (supports, hello, words) => {
    expect(unsupported(supports, hello)).toBe(words);
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
    expect(await computerApp.diff(ctx, "app", olds, { ...news, [k]: "other" })).toEqual({
      changes: true,
      replaces: [k],
      deleteBeforeReplace: false,
      detailedDiff: { [k]: "update-replace" },
    });
  });
  test.each([
    ["files", { files: { [SIG]: "0def7320c3a5731c473e5ecbe6d01bc7", hash: "h2" } }],
    ["services", { services: { web: { argv: ["perl", "other.pl"] } } }],
    ["settings", { settings: { a: 1 } }],
    ["ready", { ready: { port: 1, timeoutSeconds: 60 } }],
    ["port", { port: 9000 }],
  ])("a change of %s is an update, naming it", async (k, change) => {
    expect(await computerApp.diff(ctx, "app", olds, { ...news, ...change })).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
      detailedDiff: { [k]: "update" },
    });
  });
  test("new requirements install it again, the old one removed first (one folder)", async () => {
    expect(await computerApp.diff(ctx, "app", olds, { ...news, requirements: { python: { packages: ["x"] } } })).toEqual({
      changes: true,
      replaces: ["requirements"],
      deleteBeforeReplace: true,
      detailedDiff: { requirements: "update-replace" },
    });
  });
  test("new install steps install it again, the old one removed first (one folder)", async () => {
    expect(await computerApp.diff(ctx, "app", olds, { ...news, installSteps: [{ name: "a", command: "true", timeoutSeconds: 300 }] })).toEqual({
      changes: true,
      replaces: ["installSteps"],
      deleteBeforeReplace: true,
      detailedDiff: { installSteps: "update-replace" },
    });
  });
  test.each([
    ["supports", { supports: { os: ["linux"] } }],
    ["permissions", { permissions: ["reads Documents"] }],
    ["launch", { launch: { argv: ["xclock"] } }],
  ])("a change of %s is an update, naming it", async (k, change) => {
    expect(await computerApp.diff(ctx, "app", olds, { ...news, ...change })).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
      detailedDiff: { [k]: "update" },
    });
  });
  test("drift is an update, naming drift alone", async () => {
    expect(await computerApp.diff(ctx, "app", { ...olds, drift: ["the service web is not running (exited 1)"] }, news)).toMatchObject({
      changes: true,
      replaces: [],
      detailedDiff: { drift: "update" },
    });
  });
  test("a computer still unknown (made again) is a change, known at up", async () => {
    expect(await computerApp.diff(ctx, "app", olds, { ...news, computer: UNKNOWN })).toMatchObject({ changes: true, detailedDiff: { computer: "update" } });
  });
  test("a preview of an update gives the address and source the up will, known, so a command taking them is not planned again", async () => {
    const outs = await computerApp.preview!(ctx, { ...news, port: 8080 }, olds);
    expect(outs).toMatchObject({ address: "http://127.0.0.1:8080", sources: { files: "h" }, drift: [] });
  });
  test("its folder is under ~/.agentrun/apps", () => {
    expect(folderOf("notes")).toBe(".agentrun/apps/notes");
  });
});
