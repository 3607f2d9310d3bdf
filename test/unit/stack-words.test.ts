// The words a stack's user meets: the library's refusals of their settings, said as the
// `pulumi config` lines that change them. The refusals are the library's own, made here.
import { describe, expect, it } from "vitest";
import { settingsFrom } from "../../provider/config.js";
import { secretSettings, settingsKeys } from "../../src/registry/settings.js";
import { vendors } from "../../provider/vendors.js";
import { forStack, inStackWords, settingsRefused } from "../../provider/words.js";
import { PROVIDER_IDS, providerFromSettings } from "../../src/providers.js";
import { IMAGE_SETTING } from "../../src/docker/constants.js";
import { DOCKER_SETTINGS } from "../../src/docker/settings.js";
import { ResultFailure } from "../../src/daemon/result.js";

describe("settings the plugin does not take", () => {
  it("names each key with the line that removes it, and the keys it takes (never a test-only one)", () => {
    const read = settingsFrom(JSON.stringify({ "agentrun:docker": JSON.stringify({ imag: "x" }), "agentrun:dockr": "{}" }));
    expect(read).toEqual({
      ok: false,
      message:
        "the stack's agentrun config has settings this plugin does not take or cannot read: agentrun:docker.imag, agentrun:dockr; " +
        "remove each (`pulumi config rm --path agentrun:docker.imag`, `pulumi config rm --path agentrun:dockr`), " +
        `or set one it takes (${Object.entries(settingsKeys())
          .map(([p, keys]) => `agentrun:${p}.{${keys.join(",")}}`)
          .join(", ")}) ` +
        "with `pulumi config set --path agentrun:<provider>.<key> <value>`",
    });
    expect(read.ok || read.message).toContain("agentrun:modal.{tokenId,tokenSecret,");
    expect(read.ok || read.message).not.toContain("testSdk");
  });
});

describe("settings the provider refuses", () => {
  it("the library's words name its option; the stack's name the setting and its pulumi config lines", async () => {
    const library = await providerFromSettings("docker", { user: "0" });
    expect(library.ok || library.error.message).toMatch(/^docker: DockerProvider's user option 0:0 is root/);
    const plugin = await vendors({ docker: { user: "0" } })("docker");
    expect(plugin.ok || plugin.error.message).toMatch(
      /^the stack's agentrun:docker settings were refused: agentrun:docker\.user 0:0 is root or in root's group.*\. Change it with `pulumi config set --path agentrun:docker\.user <value>`, or unset it with `pulumi config rm --path agentrun:docker\.user`$/,
    );
    expect(plugin.ok || plugin.error.message).not.toContain("DockerProvider");
  });

  it("a setting the stack does not set, for every vendor of the registry: the line that sets it (a secret as a secret), never the library's option", async () => {
    const secrets = new Set(secretSettings());
    for (const id of PROVIDER_IDS) {
      const plugin = await vendors({ [id]: {} })(id);
      if (plugin.ok) continue;
      const named = new RegExp(
        `^the stack's agentrun:${id} settings were refused: agentrun:${id}\\.(\\w+) is required: .*\\. Set it with \`pulumi config set (--secret )?--path agentrun:${id}\\.(\\w+) <value>\`$`,
      ).exec(plugin.error.message);
      expect(named, plugin.error.message).not.toBeNull();
      const [, setting, secret, set] = named!;
      expect(set).toBe(setting);
      expect(Boolean(secret)).toBe(secrets.has(`${id}.${setting}`));
      expect(plugin.error.message).not.toMatch(/Provider|option/);
    }
  });

  it("an unknown provider id keeps the registry's words: it is a Computer's input, not a setting", async () => {
    const plugin = await vendors({})("nimbus");
    expect(plugin.ok || plugin.error.message).toBe(`there is no provider "nimbus": the registry holds ${PROVIDER_IDS.join(", ")}`);
  });

  it("a refusal no rule knows keeps the library's words", () => {
    const error = { code: "failed" as const, message: "the Docker engine did not answer" };
    expect(forStack(error)).toBe(error);
    // One that names no setting (the host's DOCKER_HOST) is no setting's fault: the library's words stand.
    const host = { code: "invalid" as const, message: "docker: DOCKER_HOST names tcp://127.0.0.1:2375, a Docker engine over TCP" };
    expect(settingsRefused("docker", host)).toBe(host);
  });
});

// The stack's words come from the failure's detail: a library that words its refusal otherwise
// still gets the same words to a stack's user, and words that merely look like a rule's get none.
describe("the stack's words switch on the detail, never on the library's words", () => {
  const option = { kind: "option" as const, provider: "docker", option: "user", problem: " 0:0 is root or in root's group; only a spec may ask for that" };
  const optionWords =
    "the stack's agentrun:docker settings were refused: agentrun:docker.user 0:0 is root or in root's group; only a spec may ask for that. " +
    "Change it with `pulumi config set --path agentrun:docker.user <value>`, or unset it with `pulumi config rm --path agentrun:docker.user`";

  it("a refused option worded otherwise by the library is said the same to the stack", () => {
    const reworded = { code: "invalid" as const, message: "docker: the user option may not be root (0:0)", detail: option };
    expect(settingsRefused("docker", reworded, { user: "0" })).toEqual({ ...reworded, message: optionWords });
  });

  it("words that name a provider's option but carry no detail keep the library's words", () => {
    const bare = { code: "invalid" as const, message: "docker: DockerProvider's user option 0:0 is root or in root's group" };
    expect(settingsRefused("docker", bare)).toBe(bare);
    const other = { code: "invalid" as const, message: "modal: ModalProvider's user option: is a uid", detail: { ...option, provider: "modal" } };
    expect(settingsRefused("docker", other)).toBe(other);
  });

  const tag = "localhost:1/agentrun-test/none:never";
  const missing = {
    code: "not_found" as const,
    message: "no such image",
    field: "image",
    detail: { kind: "image-missing" as const, tag, provider: "docker", setting: "image" },
  };

  it("a Computer's image not on the host, however the library words it: docker build, docker pull, or the provider's image setting", () => {
    expect(forStack(missing).message).toBe(
      `the image ${tag} is not on this Docker host, and nothing is pulled while a Computer is made: ` +
        `build it here (\`docker build -t ${tag} <folder with its Dockerfile>\`), or pull it where a registry answers (\`docker pull ${tag}\`); ` +
        "or leave the Computer's image out, for the provider's own image (`pulumi config set --path agentrun:docker.image <image>` names one for every Computer). Nothing was made",
    );
    expect(forStack(missing)).toMatchObject({ code: "not_found", field: "image", detail: missing.detail });
  });

  it("the image the stack's setting names, not on the host: the line that unsets that setting", () => {
    expect(forStack(missing, { docker: { image: tag } }).message).toBe(
      `the image ${tag}, which the stack's agentrun:docker.image names, is not on this Docker host, and nothing is pulled while a Computer is made. ` +
        `Build it here (\`docker build -t ${tag} <folder with its Dockerfile>\`) or load it (\`docker load -i <file>\`), ` +
        "or unset it for the provider's own image (`pulumi config rm --path agentrun:docker.image`)",
    );
  });

  it("the setting's image that could not be pulled: the reason from the detail, the stack's lines", () => {
    const unpulled = {
      code: "failed" as const,
      message: "pull failed",
      detail: { kind: "image-unpulled" as const, tag, reason: "the registry could not be reached", provider: "docker", setting: "image" },
    };
    expect(forStack(unpulled).message).toBe(
      `the image ${tag}, which the stack's agentrun:docker.image names, is not on this Docker host and could not be pulled: the registry could not be reached. ` +
        `Build it here (\`docker build -t ${tag} <folder with its Dockerfile>\`) or load it (\`docker load -i <file>\`), ` +
        "or unset it for the provider's own image (`pulumi config rm --path agentrun:docker.image`)",
    );
  });

  it("an image failure that names no setting, or words that merely look like one, keep the library's words", () => {
    const desktop = { code: "failed" as const, message: "pull failed", detail: { kind: "image-unpulled" as const, tag, reason: "no registry" } };
    expect(forStack(desktop)).toBe(desktop);
    const lookalike = {
      code: "not_found" as const,
      message: `the image ${tag} is not on this Docker host, and create pulls nothing: make it ready first`,
      field: "image",
    };
    expect(forStack(lookalike)).toBe(lookalike);
  });

  it("inStackWords throws the stack's words with the failure's code, field and detail", async () => {
    const thrown = await inStackWords({}, () => Promise.reject(new ResultFailure(missing))).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(ResultFailure);
    expect(thrown).toMatchObject({
      code: "not_found",
      field: "image",
      detail: missing.detail,
      message: expect.stringMatching(/^the image .* nothing is pulled/),
    });
  });
});

// Every provider's constructor names the option it refuses; the registry puts it in the detail.
describe("a provider's refused option, as the registry gives it", () => {
  const cases: Array<[string, Record<string, unknown>, { option: string; problem: RegExp }]> = [
    ["docker", { user: "0" }, { option: "user", problem: /^ 0:0 is root or in root's group/ }],
    ["docker", { user: "agent" }, { option: "user", problem: /^: .*uid or uid:gid in numbers/ }],
    ["docker", { desktop: { display: "x" } }, { option: "desktop.display", problem: /^ is a local display, such as :0$/ }],
    ["daytona", { apiKey: "k", apiUrl: "not a url" }, { option: "apiUrl", problem: /^ / }],
    ["e2b", { apiKey: "k", domain: "not a domain" }, { option: "domain", problem: /^ is a host name, such as e2b\.app$/ }],
    [
      "modal",
      { app: "a", testSdk: "/nowhere/sdk.js", daemonImage: "registry.example/computerd:latest" },
      { option: "daemonImage", problem: /^ is a registry image pinned by digest/ },
    ],
  ];
  it.each(cases)("%s %j: an option detail naming it, beside the library's words", async (id, settings, want) => {
    const made = await providerFromSettings(id, settings);
    expect(made.ok).toBe(false);
    if (made.ok) return;
    expect(made.error).toMatchObject({
      code: "invalid",
      detail: { kind: "option", provider: id, option: want.option, problem: expect.stringMatching(want.problem) },
    });
    expect(made.error.message.endsWith(made.error.detail?.kind === "option" ? made.error.detail.problem : "?")).toBe(true);
  });

  it("a desktop setting refused is named whole in the stack's lines (it named only agentrun:docker.desktop)", async () => {
    const plugin = await vendors({ docker: { desktop: { display: "x" } } })("docker");
    expect(plugin.ok || plugin.error.message).toBe(
      "the stack's agentrun:docker settings were refused: agentrun:docker.desktop.display is a local display, such as :0. " +
        "Change it with `pulumi config set --path agentrun:docker.desktop.display <value>`, or unset it with `pulumi config rm --path agentrun:docker.desktop.display`",
    );
  });

  it("the image setting Docker's details name is one of its settings", () => {
    expect(Object.keys(DOCKER_SETTINGS.shape)).toContain(IMAGE_SETTING);
  });
});
