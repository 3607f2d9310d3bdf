// A fake of the phone harness's API on the loopback, whose phones are simulated Android devices
// (test/support/phone-sim) reached through the real adb server. Sessions live their
// timeout_seconds (boot included) and end asynchronously; POSTs are found again by their
// Idempotency-Key; a refused key, phones_busy and session_limit answer as the service does.
// Faults are switches a test sets: a POST whose answer is lost after the phone is made, a 5xx,
// a 2xx with no session, a recovery that is lost too, a phone that never gets ready.
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { startPhone, type SimPhone } from "./phone-sim/index.js";

export interface FakeSession {
  id: string;
  request_key: string;
  platform: string;
  status: "starting" | "ready" | "failed";
  timeout_seconds: number;
  created_at: string;
  expires_at: string;
}

interface Held {
  session: FakeSession;
  code: string;
  phone?: SimPhone;
  timers: NodeJS.Timeout[];
}

export interface FakePhoneHarnessFaults {
  /** The POST makes the phone, then its answer is lost: "drop" ends the socket, "5xx" answers 502, "empty" a 200 with no session. */
  postAnswer?: "drop" | "5xx" | "empty";
  /** The POST is held this long before it answers (a create cut off during it). */
  postDelayMs?: number;
  /** GET /sessions/requests/<key> answers 502. */
  recoveryLost?: boolean;
  /** New phones never get ready. */
  neverReady?: boolean;
  /** New phones fail while booting. */
  bootFails?: boolean;
  /** New phones take taps and change nothing. */
  deadTaps?: boolean;
  /** The fixture app, once installed, logs no touch (a test of the words an unlogged tap gets). */
  mutedFixture?: boolean;
  /** The next this many GET /sessions/<id> are held a second before they answer. */
  slowReads?: number;
  /** Every new POST answers 503 phones_busy. */
  busy?: boolean;
}

export interface FakePhoneHarness {
  url: string;
  key: string;
  faults: FakePhoneHarnessFaults;
  /** How long a phone takes to boot, and how long a DELETE takes to end it. */
  timing: { bootMs: number; endMs: number };
  sessionLimit: number;
  /** The sessions running now (ending ones included until they are gone). */
  running(): FakeSession[];
  phone(id: string): SimPhone | undefined;
  /** Every request, as "METHOD /path" (never a header). */
  requests: string[];
  /** Every unlock code a phone was given (a test looks for them where they must never be). */
  codes: string[];
  /** Starts a session as another client of the account would (not in this provider's ledger). */
  startOther(): Promise<FakeSession>;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

export async function startFakePhoneHarness(): Promise<FakePhoneHarness> {
  const key = `ph_test_${randomBytes(12).toString("hex")}`;
  const held = new Map<string, Held>();
  const byKey = new Map<string, string>();
  const requests: string[] = [];
  const fake: Omit<FakePhoneHarness, "url" | "close"> = {
    key,
    faults: {},
    timing: { bootMs: 150, endMs: 100 },
    sessionLimit: 3,
    requests,
    codes: [],
    running: () => [...held.values()].map((h) => h.session),
    phone: (id) => held.get(id)?.phone,
    startOther: () => make(`other-${randomUUID()}`, 600),
  };

  const end = (id: string) => {
    const h = held.get(id);
    if (!h) return;
    held.delete(id);
    h.timers.forEach(clearTimeout);
    void h.phone?.close();
  };

  async function make(requestKey: string, timeoutSeconds: number): Promise<FakeSession> {
    const now = Date.now();
    const session: FakeSession = {
      id: `ses_${randomBytes(8).toString("hex")}`,
      request_key: requestKey,
      platform: "android",
      status: "starting",
      timeout_seconds: timeoutSeconds,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + timeoutSeconds * 1000).toISOString(),
    };
    const h: Held = { session, code: String(100000 + (randomBytes(3).readUIntBE(0, 3) % 900000)), timers: [] };
    held.set(session.id, h);
    fake.codes.push(h.code);
    byKey.set(requestKey, session.id);
    h.timers.push(setTimeout(() => end(session.id), timeoutSeconds * 1000));
    const { neverReady, bootFails } = fake.faults;
    if (!neverReady)
      h.timers.push(
        setTimeout(async () => {
          if (bootFails) return void (session.status = "failed");
          h.phone = await startPhone({ code: h.code });
          h.phone.model.deadTaps = fake.faults.deadTaps === true;
          h.phone.model.mutedFixture = fake.faults.mutedFixture === true;
          if (held.has(session.id)) session.status = "ready";
          else void h.phone.close();
        }, fake.timing.bootMs),
      );
    return session;
  }

  async function post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = JSON.parse((await text(req)) || "{}") as { platform?: string; timeout_seconds?: number };
    const requestKey = req.headers["idempotency-key"];
    if (typeof requestKey !== "string" || !requestKey)
      return json(res, 400, { error: "idempotency_key_required", message: "an Idempotency-Key header is required" });
    const again = byKey.get(requestKey);
    if (again && held.has(again)) return json(res, 200, held.get(again)!.session);
    if (body.platform !== "android") return json(res, 400, { error: "invalid_platform", message: `platform ${String(body.platform)} is not offered` });
    if (fake.faults.busy) return json(res, 503, { error: "phones_busy", message: "every phone is busy; try again in a minute" });
    if (held.size >= fake.sessionLimit) return json(res, 429, { error: "session_limit", message: `the account runs ${fake.sessionLimit} sessions at most` });
    const session = await make(requestKey, Math.max(1, Math.floor(body.timeout_seconds ?? 600)));
    if (fake.faults.postDelayMs) await new Promise((r) => setTimeout(r, fake.faults.postDelayMs));
    const lost = fake.faults.postAnswer;
    if (lost === "drop") return void req.socket.destroy();
    if (lost === "5xx") return json(res, 502, { error: "bad_gateway" });
    if (lost === "empty") return json(res, 200, {});
    json(res, 201, session);
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname.replace(/^\/v1/, "");
    requests.push(`${req.method} ${path}`);
    if (req.headers.authorization !== `Bearer ${key}`) return json(res, 401, { error: "invalid_api_key", message: "the API key was not accepted" });
    const [, top, id, sub] = path.split("/");
    if (top !== "sessions") return json(res, 404, { error: "not_found" });
    if (req.method === "POST" && !id) return void post(req, res).catch(() => json(res, 500, { error: "internal" }));
    if (req.method === "GET" && !id) return json(res, 200, { sessions: fake.running() });
    if (req.method === "GET" && id === "requests" && sub) {
      if (fake.faults.recoveryLost) return json(res, 502, { error: "bad_gateway" });
      const found = held.get(byKey.get(decodeURIComponent(sub)) ?? "");
      return found ? json(res, 200, found.session) : json(res, 404, { error: "not_found" });
    }
    const h = held.get(id ?? "");
    if (!h) return json(res, 404, { error: "not_found", message: "no such session" });
    if (req.method === "GET" && !sub) {
      if (!fake.faults.slowReads) return json(res, 200, h.session);
      fake.faults.slowReads--;
      return void setTimeout(() => json(res, 200, h.session), 1000);
    }
    if (req.method === "GET" && sub === "adb") {
      if (h.session.status !== "ready" || !h.phone) return json(res, 409, { error: "not_ready", message: "the phone is not ready" });
      return json(res, 200, { endpoint: `127.0.0.1:${h.phone.port}`, unlock_code: h.code });
    }
    if (req.method === "DELETE" && !sub) {
      h.timers.push(setTimeout(() => end(h.session.id), fake.timing.endMs));
      return json(res, 202, { id: h.session.id, status: "ending" });
    }
    json(res, 404, { error: "not_found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  return Object.assign(fake, {
    url,
    close: async () => {
      [...held.keys()].forEach(end);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

async function text(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString();
}
