// One phone through the local adb server: connected by host:connect, found by host:devices-l
// (its transport id), unlocked once by the shell service's own string on a socket bound to it,
// and its shell. The endpoint and the code travel only on the server's socket, and no word
// this file gives out holds either.
import { AdbError, type AdbTransport, hostReply } from "./adb.js";

const ONLINE_MS = 10_000;
/** The links open to each endpoint, per adb server: the last one to close disconnects it, so a watch's own connection never cuts the others. */
const open = new WeakMap<AdbTransport, Map<string, number>>();

function opened(adb: AdbTransport, endpoint: string): () => Promise<void> {
  const counts = open.get(adb) ?? new Map<string, number>();
  open.set(adb, counts);
  counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1);
  let closed = false;
  return async () => {
    if (closed) return;
    closed = true;
    const left = (counts.get(endpoint) ?? 1) - 1;
    if (left > 0) return void counts.set(endpoint, left);
    counts.delete(endpoint);
    await adb.server([`host:disconnect:${endpoint}`]).catch(() => undefined);
  };
}

export interface PhoneLink {
  /** The adb server's transport id of the phone. */
  readonly id: string;
  /** A shell command's output (shell:), or a binary one's (exec:, nothing translated). */
  shell(command: string, signal?: AbortSignal): Promise<string>;
  exec(command: string, signal?: AbortSignal): Promise<Buffer>;
  /** adb install -r of an APK on this host (adb streams it to the phone); adb's words. Rejects with AdbError. */
  install(apk: string, signal?: AbortSignal): Promise<string>;
  /** host:disconnect of the endpoint; never throws. */
  close(): Promise<void>;
}

/** Connects to the phone's endpoint, waits until adb lists it as a device, and unlocks it. Rejects with AdbError in words with no endpoint and no code. */
export async function linkPhone(adb: AdbTransport, endpoint: string, code: string, signal?: AbortSignal): Promise<PhoneLink> {
  const said = hostReply(await adb.server([`host:connect:${endpoint}`], { signal }));
  if (!/^(already )?connected to /.test(said)) throw new AdbError("refused", "adb could not connect to the phone's adb link");
  const close = opened(adb, endpoint);
  const id = await transportId(adb, endpoint, signal).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  const bound = (service: string, s?: AbortSignal) => adb.server([`host:transport-id:${id}`, service], { signal: s });
  // adb reconnects a dropped link on its own, and the phone then answers every shell locked.
  const unlockedOnly = async (service: string, s?: AbortSignal) => {
    const out = await bound(service, s);
    if (out.toString("latin1") === "locked\n") throw new AdbError("refused", "the phone's adb link dropped (the phone answers locked): connect again");
    return out;
  };
  const link: PhoneLink = {
    id,
    shell: async (command, s) => (await unlockedOnly(`shell:${command}`, s)).toString(),
    exec: (command, s) => unlockedOnly(`exec:${command}`, s),
    // The CLI, since only it streams an APK; -t names this link's transport on the same server.
    install: async (apk, s) => (await adb.run(["-t", id, "install", "-r", apk], { signal: s })).toString(),
    close,
  };
  const unlocked = await bound(`shell:unlock ${code}`, signal).catch(async (error: unknown) => {
    await link.close();
    throw error;
  });
  if (/\blocked\b/.test(unlocked.toString()) && !/\bunlocked\b/.test(unlocked.toString())) {
    await link.close();
    throw new AdbError("refused", "the phone did not take its unlock code");
  }
  return link;
}

/** The transport id host:devices-l gives the endpoint once it is a device (not offline or unauthorized), within ONLINE_MS. */
async function transportId(adb: AdbTransport, endpoint: string, signal?: AbortSignal): Promise<string> {
  const until = Date.now() + ONLINE_MS;
  let state = "not listed";
  for (;;) {
    const listed = hostReply(await adb.server(["host:devices-l"], { signal }));
    const line = listed.split("\n").find((l) => l.split(/\s+/)[0] === endpoint);
    const [, now = "not listed"] = line?.split(/\s+/) ?? [];
    const id = /\btransport_id:(\d+)/.exec(line ?? "")?.[1];
    if (now === "device" && id) return id;
    state = now;
    if (Date.now() > until) throw new AdbError("refused", `adb lists the phone as ${state}, not as a device, after ${ONLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (signal?.aborted) throw new AdbError("aborted", "connecting to the phone was aborted");
  }
}
