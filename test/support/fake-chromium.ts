// The browsers behind the browser vendors' fakes (fake-browserbase.ts, fake-kernel.ts): real
// headless Chromium (Debian's chromium package) in an image built here from the set-up's base,
// each in a hardened container (uid 1000, no capability, no new privileges; Chromium's own
// sandbox off, the container being the sandbox), its CDP port published on 127.0.0.1 alone.
// Headless Chromium listens on its own loopback only, so socat in the container relays one port
// to it. A CDP WebSocket is piped raw to the container (relay), so the fake adds no framing.
import { execFile } from "node:child_process";
import CDP from "chrome-remote-interface";
import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import { promisify } from "node:util";
import WebSocket from "ws";
import { ensureImage } from "../../src/docker/image.js";
import { BLANK, CDP_PORT, chromiumFlags } from "../../src/kits/browser/chromium.js";
import { browserRecipe } from "../../src/kits/browser/recipe.js";
import { upgradeHead } from "../../src/kits/browser/upgrade.js";

const run = promisify(execFile);

/** The relay's port, the one published; Chromium's own is the kit's CDP_PORT. */
const RELAY_PORT = 9223;

/** The set-up's base image (dist/toolchain.json), read where the fakes are built from. */
export function setupBase(): string {
  // From test/support/ (vitest) or dist/test/support/ (the conformance CLI).
  for (const up of ["../../", "../../../"]) {
    const file = new URL(`${up}dist/toolchain.json`, import.meta.url).pathname;
    try {
      return (JSON.parse(readFileSync(file, "utf8")) as { baseImage: string }).baseImage;
    } catch {
      // the other place
    }
  }
  throw new Error("dist/toolchain.json is missing: run scripts/setup.sh first (it imports the base image the browser image is built from)");
}

/** The browser image made ready once, tagged by its recipe's hash: built on the first use (onWait told), reused after. */
export async function browserImage(base = setupBase(), onWait?: () => void): Promise<string> {
  const made = await ensureImage({ recipe: browserRecipe(base) }, { timeoutMs: 15 * 60_000, ...(onWait ? { onWait } : {}) });
  if (!made.ok) throw new Error(`the browser image: ${made.error.message}`);
  return made.value;
}

/** One browser's container as the fake holds it. */
export interface Chromium {
  container: string;
  /** The relay's port on 127.0.0.1. */
  port: number;
  /** The browser target's WebSocket path (/devtools/browser/<id>). */
  browserPath: string;
}

async function docker(args: string[], timeout = 60_000): Promise<string> {
  return (await run("docker", args, { timeout })).stdout.trim();
}

/** `docker run -d` of a Chromium as the fakes run it: named and labelled, its own user, no capability, no new privileges, room for its shared memory. */
function hardenedRun(name: string, labels: Record<string, string>): string[] {
  return [
    "run",
    "-d",
    "--name",
    name,
    ...Object.entries(labels).flatMap(([k, v]) => ["--label", `${k}=${v}`]),
    "--user",
    "1000:1000",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--shm-size",
    "256m",
  ];
}

/** A hardened Chromium container, up once its CDP answers; removed when it does not come up in time. */
export async function startChromium(name: string, image: string, labels: Record<string, string>, timeoutMs = 60_000): Promise<Chromium> {
  const command = `socat TCP-LISTEN:${RELAY_PORT},fork,reuseaddr TCP:127.0.0.1:${CDP_PORT} & exec chromium ${chromiumFlags("none", "/tmp/profile")
    .map((flag) => `'${flag}'`)
    .join(" ")} ${BLANK}`;
  await docker([
    ...hardenedRun(name, labels),
    "--pids-limit",
    "512",
    "--memory",
    "1g",
    "-p",
    `127.0.0.1::${RELAY_PORT}`,
    "--entrypoint",
    "sh",
    image,
    "-c",
    command,
  ]);
  try {
    const port = Number((await docker(["port", name, `${RELAY_PORT}/tcp`])).split("\n")[0]!.split(":").pop());
    const browserPath = await cdpUp(port, timeoutMs);
    return { container: name, port, browserPath };
  } catch (error) {
    await removeChromium(name);
    throw error;
  }
}

/** Waits until the relay answers /json/version; the browser target's path. */
async function cdpUp(port: number, timeoutMs: number): Promise<string> {
  const until = Date.now() + timeoutMs;
  let last = "no answer";
  while (Date.now() < until) {
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/json/version`, { signal: AbortSignal.timeout(2000) });
      const body = (await answer.json()) as { webSocketDebuggerUrl?: string };
      if (body.webSocketDebuggerUrl) return new URL(body.webSocketDebuggerUrl).pathname;
      last = "no webSocketDebuggerUrl";
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`Chromium's CDP did not answer within ${timeoutMs / 1000} s (${last})`);
}

/** The container gone, whatever it was doing; a container already gone is fine. */
export async function removeChromium(name: string): Promise<void> {
  await run("docker", ["rm", "-f", name], { timeout: 60_000 }).catch(() => undefined);
}

/** Every container carrying a label (a fake's run), removed. */
export async function removeLabelled(label: string): Promise<void> {
  const ids = (await docker(["ps", "-aq", "--filter", `label=${label}`])).split("\n").filter(Boolean);
  if (ids.length > 0) await run("docker", ["rm", "-f", ...ids], { timeout: 120_000 }).catch(() => undefined);
}

/**
 * A client's CDP upgrade piped raw to the browser target: the upgrade request is sent again to
 * Chromium with its own Host (Chromium takes an IP literal), then bytes flow both ways untouched.
 */
export function relay(request: IncomingMessage, socket: Duplex, head: Buffer, browser: Chromium): void {
  const upstream = net.connect(browser.port, "127.0.0.1");
  upstream.setNoDelay(true);
  if (socket instanceof net.Socket) socket.setNoDelay(true);
  upstream.on("connect", () => {
    upstream.write(upgradeHead(request, browser.browserPath, `127.0.0.1:${browser.port}`));
    if (head.length > 0) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  const end = () => {
    upstream.destroy();
    socket.destroy();
  };
  upstream.on("error", end);
  upstream.on("close", end);
  socket.on("error", end);
  socket.on("close", end);
}

/**
 * The live view's source: the browser's first page screencast (Page.startScreencast), each frame
 * acknowledged as it comes and the latest kept, as a vendor's live view is fed.
 */
export class Screencast {
  #latest: Buffer | undefined;
  #waiting: Array<(frame: Buffer) => void> = [];
  readonly #ws: WebSocket;

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data)) as { method?: string; params?: { data: string; sessionId: number } };
      if (msg.method !== "Page.screencastFrame" || !msg.params) return;
      this.#latest = Buffer.from(msg.params.data, "base64");
      ws.send(JSON.stringify({ id: 2, method: "Page.screencastFrameAck", params: { sessionId: msg.params.sessionId } }));
      for (const resolve of this.#waiting.splice(0)) resolve(this.#latest);
    });
  }

  static async start(browser: Chromium): Promise<Screencast> {
    const targets = (await (await fetch(`http://127.0.0.1:${browser.port}/json/list`, { signal: AbortSignal.timeout(5000) })).json()) as Array<{
      type: string;
      webSocketDebuggerUrl?: string;
    }>;
    const page = targets.find((t) => t.type === "page" && t.webSocketDebuggerUrl);
    if (!page) throw new Error("the browser has no page");
    const ws = new WebSocket(`ws://127.0.0.1:${browser.port}${new URL(page.webSocketDebuggerUrl!).pathname}`);
    await new Promise<void>((resolve, reject) => (ws.once("open", () => resolve()), ws.once("error", reject)));
    const cast = new Screencast(ws);
    ws.send(JSON.stringify({ id: 1, method: "Page.startScreencast", params: { format: "jpeg", quality: 60, everyNthFrame: 1 } }));
    return cast;
  }

  /** The latest frame, or the first one to come within timeoutMs. */
  frame(timeoutMs = 5000): Promise<Buffer> {
    if (this.#latest) return Promise.resolve(this.#latest);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the screencast gave no frame in time")), timeoutMs);
      this.#waiting.push((frame) => (clearTimeout(timer), resolve(frame)));
    });
  }

  stop(): void {
    this.#ws.terminate();
  }
}

/** A port no one listens on now, on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A headless Chromium on this machine's network, to look at a page this machine serves on its
 * loopback (the agentrun ui's test and bench): the browser image, hardened as the fakes' are, its
 * CDP on 127.0.0.1 alone at a free port; its CDP client once it answers. The caller removes the
 * container by its name.
 */
export async function hostChromium(name: string, labels: Record<string, string>): Promise<CDP.Client> {
  const port = await freePort();
  await docker([
    ...hardenedRun(name, labels),
    "--network",
    "host",
    "--entrypoint",
    "chromium",
    await browserImage(),
    "--headless",
    "--no-sandbox",
    "--remote-debugging-address=127.0.0.1",
    `--remote-debugging-port=${port}`,
    "--user-data-dir=/tmp/profile",
    "--window-size=1400,1000",
    "about:blank",
  ]);
  for (let i = 0; ; i++) {
    try {
      return await CDP({ host: "127.0.0.1", port });
    } catch (error) {
      if (i > 100) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
