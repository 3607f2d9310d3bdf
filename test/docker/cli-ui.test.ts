// agentrun ui on the real Docker engine, driven in a real browser: Debian's Chromium, headless
// (the set-up's browser image, on this machine's network so it reaches the page's loopback),
// over chrome-remote-interface. Six computers (three linux, two desktops, one browser) show as six
// tiles by run (by the stack's resource with --stack); a desktop's tile shows its screen and its pixels change when the test draws on it,
// and the browser's tile its screencast; a
// computer's page lists the process the test started; one stopped by hand shows as drifted
// within the pace in ls's words; input is refused without --control and reaches the desktop with
// it; no body the page gets carries the page's secret or a CDP URL; a request without the secret
// is refused; the server binds the loopback alone and leaves nothing after SIGTERM. Screenshots
// are kept in dist/test-artifacts/cli-ui/ (docs/ui.png is copied from there by hand).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type CDP from "chrome-remote-interface";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_LABEL } from "../../src/contract/labels.js";
import type { ComputerClient } from "../../src/daemon/client.js";
import { readFile, writeFile } from "../../src/daemon/files.js";
import type { Connection } from "../../src/contract/provider.js";
import { agentrun, BIN, computers, labelFlags } from "../support/cli-helpers.js";
import { cleanup, provider, spec, toolchain } from "../support/docker-helpers.js";
import { hostChromium } from "../support/fake-chromium.js";

const ARTIFACTS = path.join(toolchain.root, "dist", "test-artifacts", "cli-ui");
const FIXTURE = path.join(toolchain.root, "dist", "computerd-fixture-linux-amd64");
/** The pace the servers read the fleet at, in seconds. */
const EVERY = 2;

const fleet = computers();
const made = cleanup("all");
const desktops = provider({ desktop: {} });
const names = { desktop: "", linux: "", browser: "", stopped: "", desktop2: "", linux3: "" };
let desktopConnection: Connection;
let chromium = "";
let browser: CDP.Client;
/** Every body the page got: each response's text and each event's data. */
const bodies: Array<{ url: string; body: string }> = [];
/** The screen events the page was sent, by computer, in order. */
const screenEvents: Array<{ at: number; name: string }> = [];

interface Ui {
  process: ResultPromise;
  url: string;
  port: number;
  secret: string;
}
const uis: Ui[] = [];

/** `agentrun ui` started on a free port (in cwd, default the checkout); its URL once it printed it. */
async function startUi(flags: string[] = [], cwd = toolchain.root): Promise<Ui> {
  const child = execa("node", [BIN, "ui", "--port", "0", "--every", String(EVERY), ...labelFlags(fleet.label), ...flags], {
    cwd,
    reject: false,
    stdin: "ignore",
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const found = /agentrun ui: (http:\/\/127\.0\.0\.1:\d+\/\?secret=[0-9a-f]{32})\n/.exec(out);
      if (found) resolve(found[1]!);
    });
    void child.then((ended) => reject(new Error(`agentrun ui ended first (${ended.exitCode}): ${ended.stderr}`)));
  });
  const at = new URL(url);
  const ui = { process: child, url, port: Number(at.port), secret: at.searchParams.get("secret")! };
  uis.push(ui);
  return ui;
}

/** The value of an expression in the page. */
async function value<T>(expression: string): Promise<T> {
  const evaluated = await browser.send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
  if (evaluated.exceptionDetails) throw new Error(`${expression}: ${JSON.stringify(evaluated.exceptionDetails)}`);
  return evaluated.result.value as T;
}

/** Waits until the expression's value holds; the value, or a failure naming what was waited for and what was last seen. */
async function until<T>(what: string, expression: string, holds: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < end) {
    last = await value<T>(expression).catch(() => undefined);
    if (last !== undefined && holds(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`waited ${timeoutMs / 1000} s for ${what}; last seen: ${JSON.stringify(last)}`);
}

async function open(url: string): Promise<void> {
  await browser.send("Page.navigate", { url });
  await until("the page to load", "document.readyState", (s) => s === "complete");
}

async function screenshot(name: string): Promise<string> {
  const shot = await browser.send("Page.captureScreenshot", { format: "png" });
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, name);
  writeFileSync(file, Buffer.from(shot.data, "base64"));
  return file;
}

/** A tile's pixel, [r, g, b], read from its screen's image in the page; null before it has one. */
const tilePixel = (name: string, x: number, y: number, selector = `img.screen[data-name="${name}"]`) => `(() => {
  const img = document.querySelector('${selector}');
  if (!img || !img.complete || !img.naturalWidth) return null;
  const canvas = document.createElement("canvas");
  canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
  const g = canvas.getContext("2d"); g.drawImage(img, 0, 0);
  return Array.from(g.getImageData(${x}, ${y}, 1, 1).data.slice(0, 3));
})()`;

/** The desktop fixture (it paints four colors and logs each click) started on :0; its log's events. */
async function startFixture(client: ComputerClient): Promise<() => Promise<Array<Record<string, unknown>>>> {
  const dir = "/work/fixture";
  expect((await writeFile(client, `${dir}/computerd-fixture`, readFileSync(FIXTURE), { mode: 0o755, parents: true })).ok).toBe(true);
  await client.call("process.start", { argv: [`${dir}/computerd-fixture`, "--log", `${dir}/log`], env: { DISPLAY: ":0" } });
  return async () => {
    const read = await readFile(client, `${dir}/log`);
    return read.ok
      ? Buffer.from(read.value)
          .toString("utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      : [];
  };
}
let fixtureLog: () => Promise<Array<Record<string, unknown>>>;

beforeAll(async () => {
  const image = await desktops.image();
  if (!image.ok) throw new Error(image.error.message);
  const desktop = async (labels: Record<string, string> = {}) => {
    const created = await desktops.create(spec({ image: image.value, labels: { ...fleet.label, ...labels } }));
    if (created.ok) made.track(created.value.name);
    if (!created.ok) throw new Error(`${created.error.code}: ${created.error.message}`);
    return created.value.name;
  };
  const run = { [RUN_LABEL]: "ui-run" };
  [names.desktop, names.linux, names.browser, names.stopped, names.desktop2, names.linux3] = await Promise.all([
    desktop(run),
    fleet.make({ labels: run }),
    fleet.make({ labels: run, kind: "browser", image: "chromium" }),
    fleet.make(),
    desktop(),
    fleet.make(),
  ]);
  const connected = await desktops.connect({ id: names.desktop, name: names.desktop, provider: "docker" });
  if (!connected.ok) throw new Error(connected.error.message);
  desktopConnection = connected.value;

  const ui = await startUi();
  chromium = `agentrun-ui-test-chromium-${randomBytes(6).toString("hex")}`;
  browser = await hostChromium(chromium, fleet.label);
  await browser.send("Network.enable", {});
  await browser.send("Page.enable");
  await browser.send("Emulation.setDeviceMetricsOverride", { width: 1400, height: 1000, deviceScaleFactor: 1, mobile: false });
  const urls = new Map<string, string>();
  browser.on("Network.responseReceived", (p) => {
    const { requestId, response } = p as { requestId: string; response: { url: string } };
    urls.set(requestId, response.url);
  });
  browser.on("Network.loadingFinished", (p) => {
    const { requestId } = p as { requestId: string };
    const url = urls.get(requestId);
    if (!url) return;
    void browser.send("Network.getResponseBody", { requestId }).then(
      (r) => bodies.push({ url, body: r.base64Encoded ? Buffer.from(r.body, "base64").toString("latin1") : r.body }),
      () => undefined,
    );
  });
  browser.on("Network.eventSourceMessageReceived", (p) => {
    const { eventName, data } = p as { eventName: string; data: string };
    bodies.push({ url: `event ${eventName}`, body: data });
    if (eventName === "screen") screenEvents.push({ at: Date.now(), name: (JSON.parse(data) as { name: string }).name });
  });
  await open(ui.url);
}, 900_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  if (chromium) execFileSync("docker", ["rm", "--force", chromium], { stdio: "ignore" });
  await desktopConnection?.close();
  for (const ui of uis) ui.process.kill("SIGKILL");
});

describe("agentrun ui in a browser", () => {
  it("shows one tile per computer, grouped by run and no run last", async () => {
    const groups = await until<Array<[string, string[]]>>(
      "six tiles",
      `Array.from(document.querySelectorAll("section.group")).map((g) => [g.getAttribute("data-group"), Array.from(g.querySelectorAll(".tile")).map((t) => t.getAttribute("data-name"))])`,
      (g) => g.flatMap(([, t]) => t).length === 6,
    );
    expect(groups).toEqual([
      ["ui-run", [names.desktop, names.linux, names.browser].sort()],
      ["no run", [names.stopped, names.desktop2, names.linux3].sort()],
    ]);
    // A read-back that failed under load shows "unknown" until the next pace reads it again: not yet.
    await until<string[]>(
      "every tile's drift ok",
      `Array.from(document.querySelectorAll(".tile .drift")).map((d) => d.textContent)`,
      (d) => d.length === 6 && d.every((w) => w === "ok"),
    );
    const text = await value<string>(`document.querySelector('.tile[data-name="${names.linux}"]').textContent`);
    expect(text).toMatch(/providerdocker.*kindlinux.*staterunning.*deadlineends in \d+m \d\ds.*driftok/);
    expect(await value<string>(`document.querySelector('.tile[data-name="${names.desktop}"]').className`)).toBe("tile");
  });

  it("shows a desktop tile's screen, whose pixels change when the test draws on the desktop", async () => {
    expect(await until<number[] | null>(`the desktop tile's first frame`, tilePixel(names.desktop, 50, 50), (p) => p !== null)).toEqual([0, 0, 0]);
    fixtureLog = await startFixture(desktopConnection.client);
    // The fixture paints red at (50, 50): the tile shows it within the low rate's pace (2 s) and a read.
    // A tile's image reads null while its next frame loads, so each wait takes null as "not yet".
    await until<number[] | null>(
      "red on the desktop's tile",
      tilePixel(names.desktop, 50, 50),
      (p) => p !== null && p[0]! > 200 && p[1]! < 50 && p[2]! < 50,
      10_000,
    );
    // The other desktop, on which nothing was drawn, stays black.
    expect(await until<number[] | null>("the other desktop's frame", tilePixel(names.desktop2, 50, 50), (p) => p !== null)).toEqual([0, 0, 0]);
    await screenshot("fleet.png");
  });

  it("shows the browser's tile with its screencast (its blank page, white)", async () => {
    const pixel = await until<number[] | null>("the browser tile's first frame", tilePixel(names.browser, 20, 20), (p) => p !== null, 20_000);
    expect(pixel!.every((c) => c > 240)).toBe(true);
  });

  it("opens a computer's page: its spec declared and read back side by side, and the process the test started", async () => {
    const connected = await provider().connect({ id: names.linux, name: names.linux, provider: "docker" });
    if (!connected.ok) throw new Error(connected.error.message);
    await connected.value.client.call("process.start", { argv: ["sleep", "4242"] });
    await connected.value.close();
    await value(`document.querySelector('.tile[data-name="${names.linux}"]').click()`);
    const argv = await until<string[]>(
      "the started process on the page",
      `Array.from(document.querySelectorAll("#computer table:last-of-type tr td:nth-child(3)")).map((td) => td.textContent)`,
      (a) => a.includes("sleep 4242"),
    );
    expect(argv).toContain("sleep 4242");
    const rows = await value<string[][]>(
      `Array.from(document.querySelectorAll("#computer table:first-of-type tr")).map((tr) => Array.from(tr.children).map((c) => c.textContent))`,
    );
    expect(rows[0]).toEqual(["field", "declared", "read back"]);
    expect(rows).toContainEqual(["state", "running", "running"]);
    expect(rows).toContainEqual(["kind", "linux", "linux"]);
    expect(rows).toContainEqual(["run", "ui-run", "ui-run"]);
    await screenshot("computer.png");
  });

  it("reads no screen for a desktop tile out of view (a linux computer's page is open)", async () => {
    await new Promise((r) => setTimeout(r, 1_000));
    const from = Date.now();
    await new Promise((r) => setTimeout(r, 3 * EVERY * 1000));
    expect(screenEvents.filter((e) => e.at >= from)).toEqual([]);
    await value(`location.hash = ""`);
  });

  it("shows a computer stopped by hand as drifted within the pace, in the words ls prints", async () => {
    await until("the fleet view", `document.getElementById("fleet").hidden`, (hidden) => hidden === false);
    const stoppedAt = Date.now();
    execFileSync("docker", ["stop", "-t", "1", names.stopped]);
    const tile = `document.querySelector('.tile[data-name="${names.stopped}"]')`;
    await until<string>("the stopped tile marked", `${tile}.className`, (c) => c === "tile drifted ended", 30_000);
    // Within the pace and one read of the fleet (each read connects to every daemon).
    expect(Date.now() - stoppedAt).toBeLessThan(EVERY * 1000 + 20_000);
    const shown = await value<string[]>(`Array.from(${tile}.querySelectorAll(".drift-words li")).map((li) => li.textContent)`);
    const rows = JSON.parse(String((await agentrun(["ls", "--json", ...labelFlags(fleet.label)])).stdout)) as Array<{
      name: string;
      drift: string;
      driftWords: string[];
    }>;
    const row = rows.find((r) => r.name === names.stopped)!;
    expect(shown).toEqual(row.driftWords);
    expect(await value<string>(`${tile}.querySelector(".drift").textContent`)).toBe(row.drift);
    expect(row.drift).toBe("stopped");
    const file = await screenshot("fleet-drifted.png");
    // The README's picture, refreshed when asked for.
    if (process.env.AGENTRUN_UI_SCREENSHOT === "docs") copyFileSync(file, path.join(toolchain.root, "docs", "ui.png"));
  });

  it("without --control shows the desktop's page with input off, and refuses a click with 403", async () => {
    await value(`document.querySelector('.tile[data-name="${names.desktop}"]').click()`);
    await until<number[] | null>("the desktop's full screen", tilePixel(names.desktop, 50, 50, "#full"), (p) => p !== null && p[0]! > 200, 15_000);
    expect(await value<string>(`document.getElementById("input-note").textContent`)).toMatch(/^input is off/);
    const status = await value<number>(
      `fetch("/api/computers/${names.desktop}/input", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ type: "click", x: 30, y: 40 }) }).then((r) => r.status)`,
    );
    expect(status).toBe(403);
    expect((await fixtureLog()).filter((e) => e.event === "down")).toEqual([]);
    await value(`location.hash = ""`);
  });

  it("refuses every request without the secret, and binds this machine's loopback alone", async () => {
    const ui = uis[0]!;
    const base = `http://127.0.0.1:${ui.port}`;
    for (const url of [`${base}/`, `${base}/api/fleet`, `${base}/api/events`, `${base}/ui.js`, `${base}/?secret=${"0".repeat(32)}`]) {
      const res = await fetch(url);
      expect([url, res.status, await res.text()]).toEqual([url, 403, "forbidden"]);
    }
    const listening = execFileSync("ss", ["-Hltn", `sport = :${ui.port}`], { encoding: "utf8" })
      .trim()
      .split("\n");
    expect(listening.map((l) => l.split(/\s+/)[3])).toEqual([`127.0.0.1:${ui.port}`]);
  });

  it("with --control sends a click on the desktop's screen, then keys typed on the page, to the desktop", async () => {
    const ui = await startUi(["--control"]);
    await open(ui.url);
    await value(`location.hash = "#/c/${names.desktop}"`);
    await until<number[] | null>("the desktop's full screen", tilePixel(names.desktop, 50, 50, "#full"), (p) => p !== null && p[0]! > 200, 15_000);
    expect(await value<string>(`document.getElementById("input-note").textContent`)).toMatch(/^input is on/);
    // The screen's point (30, 40) on the page: the image is the screen scaled to its box.
    const at = await value<{ x: number; y: number }>(
      `(() => { const r = document.getElementById("full").getBoundingClientRect(); return { x: r.left + (30.5 / 1280) * r.width, y: r.top + (40.5 / 800) * r.height }; })()`,
    );
    for (const type of ["mousePressed", "mouseReleased"] as const)
      await browser.send("Input.dispatchMouseEvent", { type, x: at.x, y: at.y, button: "left", clickCount: 1 });
    let downs: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 50 && downs.length === 0; i++) {
      downs = (await fixtureLog()).filter((e) => e.event === "down");
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(downs).toHaveLength(1);
    const [x, y] = downs[0]!.point as [number, number];
    expect(Math.abs(x - 30) <= 1 && Math.abs(y - 40) <= 1).toBe(true);
    // The click gave the screen the focus: keys typed on the page go to the desktop.
    for (const text of ["H", "i", "!"]) {
      await browser.send("Input.dispatchKeyEvent", { type: "keyDown", key: text, text });
      await browser.send("Input.dispatchKeyEvent", { type: "keyUp", key: text });
    }
    let typed = "";
    for (let i = 0; i < 50 && typed !== "Hi!"; i++) {
      typed = (await fixtureLog())
        .filter((e) => e.event === "text")
        .map((e) => e.text)
        .join("");
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(typed).toBe("Hi!");
    await screenshot("desktop-control.png");
  });

  it("with --stack shows a computer's Computer as the stack's state declares it, beside the read back, a secret label as [secret], and the commands and apps the stack put in it", async () => {
    // A project whose stack's state declares the linux computer with one CPU (it has the default two).
    const project = mkdtempSync(path.join(tmpdir(), "agentrun-ui-stack-"));
    try {
      writeFileSync(path.join(project, "Pulumi.yaml"), "name: ui-test\nruntime: yaml\n");
      const env = {
        ...process.env,
        PULUMI_BACKEND_URL: `file://${project}/.pulumi`,
        PULUMI_CONFIG_PASSPHRASE: "agentrun-local",
        PULUMI_SKIP_UPDATE_CHECK: "true",
      };
      mkdirSync(path.join(project, ".pulumi"));
      const pulumi = (...args: string[]) =>
        execFileSync(path.join(toolchain.pulumiBin, "pulumi"), args, { cwd: project, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      pulumi("stack", "init", "ui");
      // The run label declared secret: a ciphertext of the stack's own, made as a secret config value is.
      pulumi("config", "set", "--secret", "--stack", "ui", "hush", JSON.stringify("ui-run"));
      const ciphertext = /secure: (\S+)/.exec(readFileSync(path.join(project, "Pulumi.ui.yaml"), "utf8"))![1]!;
      const secret = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext };
      const exported = JSON.parse(pulumi("stack", "export", "--stack", "ui"));
      const stack = "urn:pulumi:ui::ui-test::pulumi:pulumi:Stack::ui-test-ui";
      const providerUrn = "urn:pulumi:ui::ui-test::pulumi:providers:agentrun::default";
      exported.deployment.resources = [
        { urn: stack, custom: false, type: "pulumi:pulumi:Stack" },
        { urn: providerUrn, custom: true, id: "p", type: "pulumi:providers:agentrun", inputs: {}, outputs: {} },
        {
          urn: "urn:pulumi:ui::ui-test::agentrun:index:Computer::linux",
          custom: true,
          id: names.linux,
          type: "agentrun:index:Computer",
          inputs: { network: "none", cpus: 1, lifetimeMs: 600_000, labels: { [RUN_LABEL]: secret } },
          outputs: { name: names.linux },
          parent: stack,
          provider: `${providerUrn}::p`,
        },
        {
          urn: "urn:pulumi:ui::ui-test::agentrun:index:ComputerCommand::grade",
          custom: true,
          id: "grade",
          type: "agentrun:index:ComputerCommand",
          inputs: { computer: names.linux, command: "echo graded" },
          outputs: { computer: names.linux, exitCode: 0, passed: true, timedOut: false, stdout: "graded\n", stderr: "" },
          parent: stack,
          provider: `${providerUrn}::p`,
        },
        {
          urn: "urn:pulumi:ui::ui-test::agentrun:index:ComputerApp::notes",
          custom: true,
          id: "notes",
          type: "agentrun:index:ComputerApp",
          inputs: { computer: names.linux, name: "notes" },
          outputs: { computer: names.linux, name: "notes", address: "http://127.0.0.1:8080", drift: [] },
          parent: stack,
          provider: `${providerUrn}::p`,
        },
      ];
      writeFileSync(path.join(project, "state.json"), JSON.stringify(exported));
      pulumi("stack", "import", "--stack", "ui", "--file", path.join(project, "state.json"));
      const ui = await startUi(["--stack", "ui", "--backend", `file://${project}/.pulumi`], project);
      await open(ui.url);
      // The fleet view groups the tiles by the stack's resource that made each, the rest last, and
      // shows the label the stack declares secret as [secret].
      const tile = `document.querySelector('section.group[data-group="Computer linux"] .tile[data-name="${names.linux}"]')`;
      await until<string>("the linux tile under its Computer", `${tile} && ${tile}.querySelector(".labels").textContent`, (t) => t === "agentrun.run=[secret]");
      const groups = await value<Array<[string, number]>>(
        `Array.from(document.querySelectorAll("section.group")).map((g) => [g.getAttribute("data-group"), g.querySelectorAll(".tile").length])`,
      );
      expect(groups).toEqual([
        ["Computer linux", 1],
        ["not in the stack ui", 5],
      ]);
      await value(`location.hash = "#/c/${names.linux}"`);
      await until<string>(
        "the stack's declaration",
        `document.querySelector("#computer p.note") && document.querySelector("#computer p.note").textContent`,
        (t) => String(t).startsWith("declared:"),
      );
      expect(await value<string>(`document.querySelector("#computer p.note").textContent`)).toBe("declared: its Computer's inputs in the stack ui's state");
      const rows = await value<Array<[string, string[]]>>(
        `Array.from(document.querySelectorAll("#computer table:first-of-type tr")).map((tr) => [tr.className, Array.from(tr.children).map((c) => c.textContent)])`,
      );
      expect(rows).toContainEqual(["differs", ["cpus", "1", "2"]]);
      expect(rows).toContainEqual(["", ["lifetimeMs", "600000", ""]]);
      expect(rows).toContainEqual(["", ["run", "[secret]", "[secret]"]]);
      const tables = await value<string[][][]>(
        `Array.from(document.querySelectorAll("#computer table")).map((t) => Array.from(t.querySelectorAll("tr")).map((tr) => Array.from(tr.children).map((c) => c.textContent)))`,
      );
      expect(tables).toContainEqual([
        ["resource", "exit", "passed", "stdout (its tail)", "stderr (its tail)"],
        ["grade", "0", "true", "graded\n", ""],
      ]);
      expect(tables).toContainEqual([
        ["resource", "app", "address (inside the computer)", "drift"],
        ["notes", "notes", "http://127.0.0.1:8080", "ok"],
      ]);
      await screenshot("computer-stack.png");
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it("sends no body that carries the page's secret or a CDP URL", () => {
    expect(bodies.length).toBeGreaterThan(10);
    const secrets = uis.map((ui) => ui.secret);
    const leaks = bodies.filter(({ body }) => secrets.some((secret) => body.includes(secret)) || /devtools\/browser|ws:\/\//.test(body));
    expect(leaks.map((l) => l.url)).toEqual([]);
  });

  it("stops on SIGTERM: the process exits 0 and nothing listens on its port", async () => {
    for (const ui of uis) {
      const started = Date.now();
      ui.process.kill("SIGTERM");
      const ended = await ui.process;
      expect({ code: ended.exitCode, last: String(ended.stdout).trim().split("\n").at(-1) }).toEqual({ code: 0, last: "agentrun ui: stopped (SIGTERM)" });
      expect(Date.now() - started).toBeLessThan(10_000);
      const refused = await fetch(`http://127.0.0.1:${ui.port}/`).then(
        () => "answered",
        (error: Error & { cause?: { code?: string } }) => error.cause?.code,
      );
      expect(refused).toBe("ECONNREFUSED");
    }
  });
});
