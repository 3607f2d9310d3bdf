// The page's API, under /api/: the fleet's state, its changes and the screens' frames as
// Server-Sent Events, what the page looks at, a frame, a computer's page, a click or a key on a
// desktop (with --control alone). Every JSON body goes out through hide(): no configured secret
// ever leaves.
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { ComputerProvider } from "../../contract/provider.js";
import { toAction, type ViewerEvent } from "../../daemon/actions.js";
import { type Action, BUTTONS } from "../../daemon/protocol.js";
import { type Declared, detailsOf } from "./details.js";
import type { Screens } from "./screens.js";
import type { FleetWatch } from "./watch.js";

/** A request's body is read no further than this. */
const MAX_BODY_BYTES = 64 * 1024;
/** A comment line on each event stream this often, so a proxy or the browser keeps it open. */
const KEEPALIVE_MS = 15_000;

const ViewBody = z.object({
  client: z.string().min(1).max(64),
  visible: z.array(z.string().max(200)).max(500),
  opened: z.string().max(200).nullable(),
});
/** What the page sends a desktop: a click at a point of the screen, a key (with its modifiers), or text. */
const InputBody = z.discriminatedUnion("type", [
  z.object({ type: z.literal("click"), x: z.number().min(0), y: z.number().min(0), button: z.enum(BUTTONS).optional() }),
  z.object({ type: z.literal("key"), key: z.string().min(1).max(32), modifiers: z.array(z.string().max(8)).max(4).optional() }),
  z.object({ type: z.literal("text"), text: z.string().min(1).max(1_000) }),
]);

export type PageInput = z.infer<typeof InputBody>;

/** Whose screen takes input from the page: a desktop's and a phone's (a browser's goes over CDP). */
export type InputKind = "desktop" | "android" | "ios";

/** An input's actions: a click as one on a desktop and a tap on a phone, a key or text as the live view's viewer maps it (its refusals too). */
export function actionsOf(input: PageInput, kind: InputKind = "desktop"): Action[] | { field: string; message: string } {
  if (input.type === "click" && kind !== "desktop") return toAction({ type: "tap", x: input.x, y: input.y }, kind);
  if (input.type === "click") return [{ type: "click", point: [Math.round(input.x), Math.round(input.y)], ...(input.button ? { button: input.button } : {}) }];
  return toAction(input as ViewerEvent, kind);
}

const inputKindOf = (kind: string): InputKind | undefined => (kind === "desktop" || kind === "android" || kind === "ios" ? kind : undefined);

/** The page's event streams: each one's response, by the client id its first event gave it. */
export class EventStreams {
  private streams = new Map<string, ServerResponse>();
  private keepalive: NodeJS.Timeout | undefined;

  constructor(private readonly hide: (text: string) => string) {}

  /** A new stream: its id is its first event (hello), then each broadcast. */
  open(response: ServerResponse, first: Array<[string, unknown]>, onClose: (client: string) => void): string {
    const client = randomBytes(8).toString("hex");
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" });
    this.streams.set(client, response);
    this.send(response, "hello", { client });
    for (const [event, data] of first) this.send(response, event, data);
    response.on("close", () => {
      this.streams.delete(client);
      onClose(client);
    });
    this.keepalive ??= setInterval(() => {
      for (const stream of this.streams.values()) stream.write(": keep\n\n");
    }, KEEPALIVE_MS);
    return client;
  }

  private send(response: ServerResponse, event: string, data: unknown): void {
    response.write(`event: ${event}\ndata: ${this.hide(JSON.stringify(data))}\n\n`);
  }

  broadcast(event: string, data: unknown): void {
    for (const stream of this.streams.values()) this.send(stream, event, data);
  }

  /** Whether a client's stream is open: a view is taken for an open page alone. */
  has(client: string): boolean {
    return this.streams.has(client);
  }

  /** Every stream ended. */
  closeAll(): void {
    clearInterval(this.keepalive);
    for (const stream of this.streams.values()) stream.end();
    this.streams.clear();
  }
}

export interface ApiParts {
  provider: ComputerProvider;
  fleet: FleetWatch;
  screens: Screens;
  streams: EventStreams;
  /** --control: the page may click on a desktop. */
  control: boolean;
  everyMs: number;
  signal: AbortSignal;
  /** Words with every configured secret taken out. */
  hide(text: string): string;
  /** With --stack: the named computer's Computer as the stack's state declares it. */
  declared?(name: string): Promise<Declared>;
}

async function bodyOf(request: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request) {
    size += (part as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`a body past ${MAX_BODY_BYTES} bytes`);
    parts.push(part as Buffer);
  }
  return JSON.parse(Buffer.concat(parts).toString("utf8") || "null");
}

/** The API's one handler; false when the path is not one of its own. */
export function api(parts: ApiParts): (request: IncomingMessage, response: ServerResponse, path: string) => Promise<boolean> {
  const { provider, fleet, screens, streams, control, hide } = parts;
  const json = (response: ServerResponse, status: number, value: unknown) => {
    const body = hide(JSON.stringify(value));
    response.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
    response.end(body);
  };
  const fleetBody = () => ({ provider: provider.id, everyMs: parts.everyMs, control, ...fleet.current() });

  return async (request, response, path) => {
    const method = request.method ?? "GET";
    const computer = /^\/api\/computers\/([^/]+)(\/input)?$/.exec(path);
    const screen = /^\/api\/screens\/([^/]+)$/.exec(path);
    if (method === "GET" && path === "/api/fleet") json(response, 200, fleetBody());
    else if (method === "GET" && path === "/api/events") streams.open(response, [["fleet", fleetBody()]], (client) => screens.drop(client));
    else if (method === "POST" && path === "/api/view") {
      const view = ViewBody.safeParse(await bodyOf(request).catch(() => undefined));
      if (!view.success) return (json(response, 400, { error: "a view is { client, visible: [names], opened: name or null }" }), true);
      // A view of no open page would never be let go: it is refused.
      if (!streams.has(view.data.client)) return (json(response, 404, { error: "no page with that client is open" }), true);
      screens.view(view.data.client, { visible: view.data.visible, opened: view.data.opened });
      response.writeHead(204).end();
    } else if (method === "POST" && path === "/api/refresh") {
      await fleet.refresh();
      json(response, 200, fleetBody());
    } else if (method === "GET" && screen) {
      const frame = screens.latest(decodeURIComponent(screen[1]!));
      if (!frame) return (json(response, 404, { error: "no frame: the page shows no such screen now" }), true);
      response.writeHead(200, { "content-type": frame.type, "cache-control": "no-store", "content-length": frame.bytes.length });
      response.end(frame.bytes);
    } else if (method === "GET" && computer && !computer[2]) {
      const found = fleet.find(decodeURIComponent(computer[1]!));
      if (!found) return (json(response, 404, { error: "no such computer in the fleet's last read" }), true);
      const name = found.tile.name;
      json(response, 200, await detailsOf(provider, found.listing.info, found.tile, control, parts.signal, await parts.declared?.(name)));
    } else if (method === "POST" && computer && computer[2]) {
      // Refused before the body is read: without --control no input reaches any computer.
      if (!control) return (json(response, 403, { error: "input is off: start agentrun ui with --control to click and type" }), true);
      const target = fleet.find(decodeURIComponent(computer[1]!));
      const kind = target ? inputKindOf(target.tile.kind) : "desktop";
      if (target && !kind)
        return (json(response, 400, { error: `${target.tile.name} is a ${target.tile.kind}: input here goes to a desktop or a phone alone` }), true);
      const input = InputBody.safeParse(await bodyOf(request).catch(() => undefined));
      if (!input.success)
        return (
          json(response, 400, {
            error: "an input is { type: click, x, y, button? } in the screen's pixels, { type: key, key, modifiers? } or { type: text, text }",
          }),
          true
        );
      const actions = actionsOf(input.data, kind);
      if (!Array.isArray(actions)) return (json(response, 400, { error: `${actions.field}: ${actions.message}` }), true);
      const sent = await screens.input(decodeURIComponent(computer[1]!), actions);
      if (!sent.ok) json(response, sent.error.code === "not_found" ? 404 : 502, { error: `${sent.error.code}: ${sent.error.message}` });
      else json(response, 200, sent.value);
      // A person acted: the fleet is read again at once, not at the next pace.
      void fleet.refresh();
    } else return false;
    return true;
  };
}
