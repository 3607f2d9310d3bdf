// agentrun ui's pure parts, each alone: the tiles (drift and end marked, grouped by run), the
// secret a request must carry, and the server over a stand-in fleet: every request without the
// secret refused with one word, input refused without --control, and no planted secret in any
// body it serves.
import { afterEach, describe, expect, it, vi } from "vitest";
import { POOL_LABEL, RUN_LABEL } from "../../src/contract/labels.js";
import type { ComputerInfo, ComputerProvider, ReadBack } from "../../src/contract/provider.js";
import type { Listing } from "../../src/fleet/listing.js";
import { ok } from "../../src/daemon/result.js";
import { actionsOf, api, EventStreams, type PageInput } from "../../src/cli/ui/api.js";
import { ranIn, specRows } from "../../src/cli/ui/details.js";
import { computersOfExport } from "../../src/cli/stack-config.js";
import { byResource, groupTiles, marks, secretLabelsOf, tileOf } from "../../src/cli/ui/fleet.js";
import { Screens } from "../../src/cli/ui/screens.js";
import { admit, cookieName, hider, newSecret } from "../../src/cli/ui/secret.js";
import { serve, type Served } from "../../src/cli/ui/server.js";
import { FleetWatch, FULL_READ_PACES } from "../../src/cli/ui/watch.js";

const provider = { id: "docker", capabilities: () => ({ kind: "linux" }) } as unknown as ComputerProvider;
const deadline = new Date(Date.now() + 3_600_000);

function listing(name: string, extra: Partial<Listing> & { labels?: Record<string, string> } = {}): Listing {
  const info: ComputerInfo = {
    ref: { id: `${name}-id`, name, provider: "docker" },
    labels: { "agentrun.computer": "1", ...(extra.labels ?? {}) },
    deadline,
    state: extra.state ?? "running",
    network: "none",
  };
  return { info, kind: "linux", state: "running", drift: [], readBack: true, overdue: false, ...extra };
}

describe("a tile", () => {
  it.each([
    ["ok", listing("a"), { drift: "ok", drifted: false, ended: false }],
    [
      "stopped by hand",
      listing("b", { state: "stopped", drift: ["stopped before its deadline x (by hand, or its programs ended)"] }),
      { drift: "stopped", drifted: true, ended: true },
    ],
    ["two mismatches", listing("c", { drift: ["memory 1", "cpus 2"] }), { drift: "2 mismatches", drifted: true, ended: false }],
    ["not read back", listing("d", { drift: ["could not be read (failed): x"], readBack: false }), { drift: "unknown", drifted: true, ended: false }],
    ["past its deadline", listing("e", { overdue: true }), { drift: "ok", drifted: false, ended: true }],
  ])("%s: its drift in ls's word, marked as it stands out", (_, l, want) => {
    const tile = tileOf(provider, l);
    expect(tile).toMatchObject(want);
    expect(tile.driftWords).toEqual(l.drift);
    expect(marks(tile)).toEqual([...(want.drifted ? ["drifted"] : []), ...(want.ended ? ["ended"] : [])]);
  });

  it("shows the run's and the caller's labels, not the provider's own, the owner's hashes or an image's", () => {
    const tile = tileOf(
      provider,
      listing("a", { labels: { [RUN_LABEL]: "r1", "agentrun.computer.kind": "desktop", "agentrun.owner": "h", "agentrun.base.recipe": "r", team: "x" } }),
    );
    expect(tile.shownLabels).toEqual({ [RUN_LABEL]: "r1", team: "x" });
  });

  it("shows a label its stack declares secret as [secret], the run's too, and groups it so", () => {
    const l = listing("a", { labels: { [RUN_LABEL]: "run-with-a-secret-name", team: "x", token: "t0ken" } });
    const tile = tileOf(provider, l, secretLabelsOf({ labels: { [RUN_LABEL]: "[secret]", token: "[secret]", team: "x" } }));
    expect([tile.run, tile.shownLabels]).toEqual(["[secret]", { [RUN_LABEL]: "[secret]", team: "x", token: "[secret]" }]);
    expect(JSON.stringify(tile)).not.toMatch(/run-with-a-secret-name|t0ken/);
    expect(groupTiles([tile]).map((g) => g.title)).toEqual(["[secret]"]);
  });

  it("has a screen when it is a running desktop, browser or phone alone", () => {
    expect(tileOf(provider, listing("a", { kind: "desktop" })).screen).toBe(true);
    expect(tileOf(provider, listing("a", { kind: "browser" })).screen).toBe(true);
    expect(tileOf(provider, listing("a", { kind: "android" })).screen).toBe(true);
    expect(tileOf(provider, listing("a", { kind: "desktop", state: "stopped" })).screen).toBe(false);
    expect(tileOf(provider, listing("a")).screen).toBe(false);
  });
});

describe("the groups", () => {
  it("are the runs in order, then no run; each group's tiles by name", () => {
    const tiles = [
      listing("z", { labels: { [RUN_LABEL]: "r2" } }),
      listing("y"),
      listing("b", { labels: { [RUN_LABEL]: "r1" } }),
      listing("a", { labels: { [RUN_LABEL]: "r2" } }),
    ].map((l) => tileOf(provider, l));
    expect(groupTiles(tiles).map((g) => [g.title, g.tiles.map((t) => t.name)])).toEqual([
      ["r1", ["b"]],
      ["r2", ["a", "z"]],
      ["no run", ["y"]],
    ]);
    expect(groupTiles([])).toEqual([]);
  });
});

describe("the groups by stack resource", () => {
  it("are each Computer, each Fleet (its children's), each WarmPool (its members and claimed computers by pool label), then the rest", () => {
    const urn = (type: string, name: string) => `urn:pulumi:dev::p::${type}::${name}`;
    const fleetUrn = urn("agentrun:index:Fleet", "workers");
    const { computers, pools } = computersOfExport({
      deployment: {
        resources: [
          { urn: urn("agentrun:index:Computer", "solo"), type: "agentrun:index:Computer", inputs: {}, outputs: { name: "c-solo" } },
          { urn: fleetUrn, type: "agentrun:index:Fleet", inputs: { size: 2 }, outputs: { size: 2, names: ["c-w0", "c-w1"] } },
          ...[0, 1].map((n) => ({
            urn: urn("agentrun:index:Fleet$agentrun:index:Computer", `workers-${n}`),
            type: "agentrun:index:Computer",
            parent: fleetUrn,
            inputs: {},
            outputs: { name: `c-w${n}` },
          })),
          { urn: urn("agentrun:index:WarmPool", "warm"), type: "agentrun:index:WarmPool", inputs: {}, outputs: { poolId: "pool-1", members: ["c-p0"] } },
        ],
      },
    });
    const tiles = [
      listing("c-x", { labels: { [RUN_LABEL]: "r1" } }),
      listing("c-w1"),
      listing("c-p1", { labels: { [POOL_LABEL]: "pool-1" } }),
      listing("c-solo"),
      listing("c-p0", { labels: { [POOL_LABEL]: "pool-1" } }),
      listing("c-w0"),
    ].map((l) => tileOf(provider, l));
    expect(
      groupTiles(
        tiles,
        byResource("dev", () => ({ computers, pools })),
      ).map((g) => [g.title, g.tiles.map((t) => t.name)]),
    ).toEqual([
      ["Computer solo", ["c-solo"]],
      ["Fleet workers", ["c-w0", "c-w1"]],
      ["WarmPool warm", ["c-p0", "c-p1"]],
      ["not in the stack dev", ["c-x"]],
    ]);
    // Before the stack's state is read, every tile is in the rest.
    expect(
      groupTiles(
        tiles,
        byResource("dev", () => undefined),
      ).map((g) => g.title),
    ).toEqual(["not in the stack dev"]);
  });
});

describe("the watch", () => {
  afterEach(() => void vi.useRealTimers());

  /** Two computers behind a stand-in provider that counts its lists and read-backs; the watch at a pace that never comes by itself. */
  async function watched() {
    const infos = [listing("a").info, listing("b").info];
    const seen = { lists: 0, reads: [] as string[] };
    const fake = {
      ...provider,
      list: async () => (seen.lists++, ok(infos.map((i) => ({ ...i })))),
      read: async (by: { id: string }) => {
        const info = infos.find((i) => i.ref.id === by.id)!;
        seen.reads.push(info.ref.name);
        return ok({ ref: info.ref, state: info.state, labels: info.labels, drift: [] } as ReadBack);
      },
    } as unknown as ComputerProvider;
    const controller = new AbortController();
    const fleet = new FleetWatch(fake, { labels: {}, everyMs: 60_000, signal: controller.signal });
    vi.useFakeTimers({ toFake: ["Date"] });
    await fleet.start();
    const drift = () => fleet.current().groups.flatMap((g) => g.tiles.map((t) => `${t.name} ${t.drift}`));
    const took = () => seen.reads.splice(0).sort();
    return { fleet, infos, seen, drift, took, stop: () => (controller.abort(), fleet.stop()) };
  }

  it("reads every computer back first, then lists alone while the list shows no change; one it shows changed is read back at the pace", async () => {
    const w = await watched();
    try {
      expect([w.seen.lists, w.took()]).toEqual([1, ["a", "b"]]);
      await w.fleet.refresh(false);
      await w.fleet.refresh(false);
      expect([w.seen.lists, w.took()]).toEqual([3, []]);
      // Stopped by hand: the list says so, and that computer alone is read back.
      w.infos[1]!.state = "stopped";
      await w.fleet.refresh(false);
      expect([w.took(), w.drift()]).toEqual([["b"], ["a ok", "b stopped"]]);
      w.infos[0]!.labels = { ...w.infos[0]!.labels, team: "x" };
      await w.fleet.refresh(false);
      expect(w.took()).toEqual(["a"]);
    } finally {
      await w.stop();
    }
  });

  it(`reads each computer back once its read-back is ${FULL_READ_PACES} paces old, and every one at once when a person acts`, async () => {
    const w = await watched();
    try {
      w.took();
      vi.setSystemTime(Date.now() + (FULL_READ_PACES - 1) * 60_000);
      await w.fleet.refresh(false);
      expect(w.took()).toEqual([]);
      vi.setSystemTime(Date.now() + 60_000);
      await w.fleet.refresh(false);
      expect(w.took()).toEqual(["a", "b"]);
      await w.fleet.refresh();
      expect(w.took()).toEqual(["a", "b"]);
    } finally {
      await w.stop();
    }
  });
});

describe("the spec side by side", () => {
  it("marks a field that differs, and not one a side does not say", () => {
    const l = listing("a");
    const read = {
      ref: { ...l.info.ref, spec: { image: "i", user: "1000:1000", network: "none", deadline: deadline.toISOString() } },
      state: "stopped",
      labels: {},
      drift: [],
    } as ReadBack;
    const rows = specRows(l.info, "linux", read);
    expect(rows.find((r) => r.field === "state")).toEqual({ field: "state", declared: "running", readBack: "stopped", differs: true });
    expect(rows.find((r) => r.field === "deadline")?.differs).toBe(false);
    expect(rows.find((r) => r.field === "image")).toEqual({ field: "image", declared: "", readBack: "i", differs: false });
  });
});

describe("the spec declared by a stack", () => {
  const exported = {
    deployment: {
      resources: [
        { type: "pulumi:pulumi:Stack", inputs: {}, outputs: {} },
        {
          type: "agentrun:index:Computer",
          inputs: {
            image: "base",
            network: "allow",
            allow: ["pypi.org"],
            cpus: 1,
            labels: { [RUN_LABEL]: "r1", token: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext: "v1:abc" } },
          },
          outputs: { name: "computer-0123456789ab" },
        },
        { type: "agentrun:index:Computer", inputs: { image: "x" }, outputs: {} },
        {
          urn: "urn:pulumi:dev::p::agentrun:index:ComputerCommand::grade",
          type: "agentrun:index:ComputerCommand",
          inputs: { computer: "computer-0123456789ab" },
          outputs: { computer: "computer-0123456789ab", exitCode: 0, passed: true, timedOut: false, stdout: `${"x".repeat(5_000)}done`, stderr: "" },
        },
        {
          urn: "urn:pulumi:dev::p::agentrun:index:ComputerCommand::login",
          type: "agentrun:index:ComputerCommand",
          inputs: { computer: "computer-0123456789ab" },
          outputs: {
            computer: "computer-0123456789ab",
            exitCode: 1,
            passed: false,
            stdout: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext: "v1:out" },
          },
        },
        {
          urn: "urn:pulumi:dev::p::agentrun:index:ComputerApp::notes",
          type: "agentrun:index:ComputerApp",
          inputs: { computer: "computer-0123456789ab" },
          outputs: { computer: "computer-0123456789ab", name: "notes", address: "http://127.0.0.1:8080", drift: [] },
        },
      ],
    },
  };

  it("is each Computer's inputs by its name, with its commands, a secret as the word [secret], its ciphertext nowhere", () => {
    const computers = computersOfExport(exported).computers;
    expect([...computers.keys()]).toEqual(["computer-0123456789ab"]);
    expect(computers.get("computer-0123456789ab")!.commands.map((c) => c.resource)).toEqual(["grade", "login"]);
    expect(computers.get("computer-0123456789ab")!.inputs!.labels).toEqual({ [RUN_LABEL]: "r1", token: "[secret]" });
    expect(JSON.stringify([...computers])).not.toMatch(/v1:abc|v1:out/);
  });

  it("holds the commands the stack ran in it (their tails, a secret output as [secret]) and its apps' addresses", () => {
    const { commands, apps } = ranIn(computersOfExport(exported).computers.get("computer-0123456789ab"));
    expect(commands.map((c) => [c.resource, c.exitCode, c.passed, c.stdout.length, c.stdout.slice(-4)])).toEqual([
      ["grade", 0, true, 4_000, "done"],
      ["login", 1, false, 8, "ret]"],
    ]);
    expect(commands[1]!.stdout).toBe("[secret]");
    expect(apps).toEqual([{ resource: "notes", name: "notes", address: "http://127.0.0.1:8080", drift: [] }]);
    expect(ranIn(undefined)).toEqual({ commands: [], apps: [] });
  });

  it("stands beside the read back: the allowlist as one network, a field the stack leaves to the default no difference", () => {
    const l = listing("computer-0123456789ab");
    const read = {
      ref: { ...l.info.ref, spec: { image: "base", user: "1000:1000", network: { allow: ["pypi.org"] }, cpus: 2, memoryMb: 4096 } },
      state: "running",
      labels: { [RUN_LABEL]: "r1" },
      drift: [],
    } as ReadBack;
    const rows = specRows(l.info, "linux", read, computersOfExport(exported).computers.get("computer-0123456789ab")!.inputs);
    const row = (field: string) => rows.find((r) => r.field === field);
    expect(row("network")).toMatchObject({ declared: '{"allow":["pypi.org"]}', differs: false });
    expect(row("cpus")).toEqual({ field: "cpus", declared: "1", readBack: "2", differs: true });
    expect(row("memoryMb")).toMatchObject({ declared: "", differs: false });
    expect(row("run")).toMatchObject({ declared: "r1", readBack: "r1", differs: false });
  });
});

describe("a desktop's input from the page", () => {
  it.each([
    ["a click, rounded to the screen's pixels", { type: "click", x: 30.4, y: 39.6 } as PageInput, [{ type: "click", point: [30, 40] }]],
    ["a right click", { type: "click", x: 1, y: 2, button: "right" } as PageInput, [{ type: "click", point: [1, 2], button: "right" }]],
    ["text", { type: "text", text: "Hi" } as PageInput, [{ type: "type", text: "Hi" }]],
    ["a named key", { type: "key", key: "enter" } as PageInput, [{ type: "key", keys: ["enter"] }]],
    ["a key with modifiers", { type: "key", key: "c", modifiers: ["ctrl"] } as PageInput, [{ type: "key", keys: ["ctrl", "c"] }]],
  ])("%s", (_, input, want) => expect(actionsOf(input)).toEqual(want));

  it.each([
    ["a key not in the table", { type: "key", key: "hyper" } as PageInput, "key"],
    ["ctrl+alt+backspace, which would end the display", { type: "key", key: "backspace", modifiers: ["ctrl", "alt"] } as PageInput, "key"],
    ["a modifier no desktop has", { type: "key", key: "a", modifiers: ["fn"] } as PageInput, "modifiers"],
  ])("refuses %s in words", (_, input, field) => expect(actionsOf(input)).toMatchObject({ field }));
});

describe("a phone's input from the page", () => {
  it.each([
    ["a click, as a tap at the screen's pixels", { type: "click", x: 30.4, y: 39.6 } as PageInput, [{ type: "tap", point: [30, 40] }]],
    ["text", { type: "text", text: "Hi" } as PageInput, [{ type: "type", text: "Hi" }]],
    ["a named key", { type: "key", key: "enter" } as PageInput, [{ type: "key", keys: ["enter"] }]],
  ])("%s", (_, input, want) => expect(actionsOf(input, "android")).toEqual(want));
});

describe("the secret", () => {
  const secret = "0123456789abcdef0123456789abcdef";
  const host = { host: "127.0.0.1:4000" };
  it.each([
    ["no secret", "/api/fleet", host, { ok: false, why: "secret" }],
    ["a wrong one", `/?secret=${"f".repeat(32)}`, host, { ok: false, why: "secret" }],
    ["a short one", "/?secret=0123", host, { ok: false, why: "secret" }],
    ["the URL's", `/?secret=${secret}`, host, { ok: true, by: "query" }],
    ["the cookie", "/api/fleet", { ...host, cookie: `other=1; ${cookieName(4000)}=${secret}` }, { ok: true, by: "cookie" }],
    ["another port's cookie", "/api/fleet", { ...host, cookie: `${cookieName(4001)}=${secret}` }, { ok: false, why: "secret" }],
    ["the header", "/api/fleet", { ...host, "x-agentrun-ui-secret": secret }, { ok: true, by: "header" }],
    ["another host (a rebinding)", `/?secret=${secret}`, { host: "evil.example:4000" }, { ok: false, why: "host" }],
    ["localhost", `/?secret=${secret}`, { host: "localhost:4000" }, { ok: true, by: "query" }],
  ])("%s", (_, url, headers, want) => expect(admit({ url, headers }, secret, 4000)).toEqual(want));

  it("is 32 hex digits, new each time", () => {
    expect(newSecret()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSecret()).not.toBe(newSecret());
  });
});

describe("the server over a stand-in fleet", () => {
  const planted = `planted-${newSecret()}`;
  let served: Served | undefined;
  const stops: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await served?.close();
  });

  async function start(control: boolean) {
    const controller = new AbortController();
    const read = { ref: { id: "a-id", name: "a", provider: "docker" }, state: "running", labels: {}, drift: [`a mismatch quoting ${planted}`] } as ReadBack;
    const fake = {
      ...provider,
      list: async () => ok([listing("a").info]),
      read: async () => ok(read),
      connect: async () => ({ ok: false, error: { code: "unreachable", message: `no daemon (key ${planted})` } }),
    } as unknown as ComputerProvider;
    const fleet = new FleetWatch(fake, { labels: {}, everyMs: 60_000, signal: controller.signal });
    const hide = hider([planted]);
    const streams = new EventStreams(hide);
    const screens = new Screens(
      fake,
      () => undefined,
      (e) => streams.broadcast("screen", e),
      controller.signal,
    );
    await fleet.start();
    const secret = newSecret();
    served = await serve({ port: 0, secret, api: api({ provider: fake, fleet, screens, streams, control, everyMs: 60_000, signal: controller.signal, hide }) });
    stops.push(
      () => controller.abort(),
      () => streams.closeAll(),
      () => screens.close(),
      () => fleet.stop(),
    );
    const base = `http://127.0.0.1:${served.port}`;
    return { secret, base, headers: { "x-agentrun-ui-secret": secret } };
  }

  it("refuses every path without the secret: 403 and one word", async () => {
    const { base } = await start(false);
    for (const path of ["/", "/ui.js", "/ui.css", "/api/fleet", "/api/events", "/api/computers/a", "/api/screens/a", "/nothing"]) {
      const res = await fetch(`${base}${path}`);
      expect([path, res.status, await res.text()]).toEqual([path, 403, "forbidden"]);
    }
  });

  it("serves the page for the URL's secret with a cookie its own requests carry, then the API for that cookie", async () => {
    const { base, secret } = await start(false);
    const page = await fetch(`${base}/?secret=${secret}`);
    expect(page.status).toBe(200);
    const cookie = page.headers.get("set-cookie")!;
    expect(cookie).toMatch(/HttpOnly; SameSite=Strict; Path=\//);
    expect(await page.text()).not.toContain(secret);
    const fleet = await fetch(`${base}/api/fleet`, { headers: { cookie: cookie.split(";")[0]! } });
    expect(fleet.status).toBe(200);
    const body = (await fleet.json()) as { groups: Array<{ tiles: Array<{ name: string }> }> };
    expect(body.groups[0]!.tiles.map((t) => t.name)).toEqual(["a"]);
  });

  it("takes a view only from a page whose event stream is open", async () => {
    const { base, headers } = await start(false);
    const view = (client: string) =>
      fetch(`${base}/api/view`, { method: "POST", headers, body: JSON.stringify({ client, visible: ["a"], opened: null }) }).then((r) => r.status);
    expect(await view("no-such-page")).toBe(404);
    const events = await fetch(`${base}/api/events`, { headers });
    const reader = events.body!.getReader();
    const hello = Buffer.from((await reader.read()).value!).toString();
    const client = /"client":"([0-9a-f]+)"/.exec(hello)![1]!;
    expect(await view(client)).toBe(204);
    await reader.cancel();
  });

  it("refuses input without --control, before it reads the click", async () => {
    const { base, headers } = await start(false);
    const res = await fetch(`${base}/api/computers/a/input`, { method: "POST", headers, body: JSON.stringify({ type: "click", x: 1, y: 1 }) });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toMatch(/^input is off/);
  });

  it("carries no planted secret in any body it serves, the event stream's included", async () => {
    const { base, headers, secret } = await start(true);
    const bodies: string[] = [];
    for (const path of ["/ui.js", "/ui.css", "/api/fleet", "/api/computers/a", "/api/screens/a"])
      bodies.push(await (await fetch(`${base}${path}`, { headers })).text());
    bodies.push(await (await fetch(`${base}/?secret=${secret}`)).text());
    const click = await fetch(`${base}/api/computers/a/input`, { method: "POST", headers, body: JSON.stringify({ type: "click", x: 1, y: 1 }) });
    bodies.push(await click.text());
    const events = await fetch(`${base}/api/events`, { headers });
    const reader = events.body!.getReader();
    bodies.push(Buffer.from((await reader.read()).value!).toString());
    await reader.cancel();
    expect(bodies.join("\n")).toContain("a mismatch quoting <secret>");
    expect(bodies.filter((b) => b.includes(planted))).toEqual([]);
  });
});

describe("the screens", () => {
  /** A provider whose connections and watches are counted: each shot a tiny PNG, each watch one frame at once. */
  function counted() {
    const seen = { connects: [] as string[], closes: [] as string[], watches: [] as string[], watchCloses: [] as string[] };
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const fake = {
      id: "docker",
      connect: async (ref: { name: string }) => {
        seen.connects.push(ref.name);
        return ok({
          hello: {},
          client: {
            call: async (method: string) =>
              method === "screen.shot" ? { data: png.toString("base64"), eof: true, width: 1280, height: 800, scale: 1 } : { done: 1 },
          },
          close: async () => void seen.closes.push(ref.name),
        });
      },
      watch: async (ref: { name: string }, handlers: { frame(f: unknown, ack: () => void): void }) => {
        seen.watches.push(ref.name);
        handlers.frame(
          { seq: 1, format: "jpeg", bytes: Buffer.from([0xff, 0xd8]), width: 1280, height: 800, frameWidth: 1280, frameHeight: 800 },
          () => undefined,
        );
        return ok({ input: async () => ok({ done: 1 }), close: async () => void seen.watchCloses.push(ref.name) });
      },
    } as unknown as ComputerProvider;
    const kinds: Record<string, "desktop" | "browser"> = { d1: "desktop", d2: "desktop", b1: "browser" };
    const events: string[] = [];
    const controller = new AbortController();
    const screens = new Screens(
      fake,
      (name) => (kinds[name] ? { ref: { id: name, name, provider: "docker" }, kind: kinds[name]! } : undefined),
      (e) => events.push(e.name),
      controller.signal,
    );
    return { screens, seen, events };
  }
  const settled = () => new Promise((r) => setTimeout(r, 20));

  it("reads nothing while no tile is in view", async () => {
    const { screens, seen, events } = counted();
    screens.view("page", { visible: [], opened: null });
    await settled();
    expect([seen.connects, seen.watches, events]).toEqual([[], [], []]);
    await screens.close();
  });

  it("shoots a desktop tile in view, and no other", async () => {
    const { screens, seen, events } = counted();
    screens.view("page", { visible: ["d1"], opened: null });
    await settled();
    expect([seen.connects, seen.watches, events]).toEqual([["d1"], [], ["d1"]]);
    expect(screens.latest("d1")).toMatchObject({ type: "image/png", width: 1280, height: 800 });
    expect(screens.latest("d2")).toBeUndefined();
    await screens.close();
  });

  it("watches a browser tile in view at the low pace, then at the full pace once opened", async () => {
    const { screens, seen } = counted();
    screens.view("page", { visible: ["b1"], opened: null });
    await settled();
    expect(seen.watches).toEqual(["b1"]);
    screens.view("page", { visible: [], opened: "b1" });
    await settled();
    expect([seen.watches, seen.watchCloses]).toEqual([["b1", "b1"], ["b1"]]);
    expect(screens.latest("b1")).toMatchObject({ type: "image/jpeg" });
    await screens.close();
  });

  it("lets every connection and watch go when the page goes, and keeps no frame", async () => {
    const { screens, seen } = counted();
    screens.view("page", { visible: ["d1", "b1"], opened: "d2" });
    await settled();
    expect([seen.connects.sort(), seen.watches.sort()]).toEqual([["d1"], ["b1", "d2"]]);
    screens.drop("page");
    await settled();
    expect([seen.closes, seen.watchCloses.sort()]).toEqual([["d1"], ["b1", "d2"]]);
    expect([screens.latest("d1"), screens.latest("b1"), screens.latest("d2")]).toEqual([undefined, undefined, undefined]);
    await screens.close();
  });
});
