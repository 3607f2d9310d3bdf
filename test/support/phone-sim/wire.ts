// adb's device side of the wire protocol over one TCP connection, as a device reached by
// `adb connect` speaks it: 24-byte little-endian headers (command, arg0, arg1, length,
// checksum, magic), CNXN after an AUTH exchange, and streams opened by OPEN, written by WRTE
// (one unacknowledged WRTE at a time, each answered by OKAY) and ended by CLSE.
import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";

export const A_CNXN = 0x4e584e43;
export const A_AUTH = 0x48545541;
export const A_OPEN = 0x4e45504f;
export const A_OKAY = 0x59414b4f;
export const A_CLSE = 0x45534c43;
export const A_WRTE = 0x45545257;
const A_VERSION = 0x01000001;
// adbd's own since Android 9 (1 MiB), so a screencap crosses in few packets.
const MAX_PAYLOAD = 1024 * 1024;
const AUTH_TOKEN = 1;
const AUTH_SIGNATURE = 2;
const AUTH_RSAPUBLICKEY = 3;

export interface Packet {
  command: number;
  arg0: number;
  arg1: number;
  data: Buffer;
}

export function encodePacket({ command, arg0, arg1, data }: Packet): Buffer {
  const head = Buffer.alloc(24);
  let sum = 0;
  for (const b of data) sum += b;
  head.writeUInt32LE(command, 0);
  head.writeUInt32LE(arg0 >>> 0, 4);
  head.writeUInt32LE(arg1 >>> 0, 8);
  head.writeUInt32LE(data.length, 12);
  head.writeUInt32LE(sum >>> 0, 16);
  head.writeUInt32LE((command ^ 0xffffffff) >>> 0, 20);
  return Buffer.concat([head, data]);
}

/** Splits a byte stream into packets; a header whose magic is wrong ends the connection. */
export function packetReader(onPacket: (p: Packet) => void, onBad: () => void): (chunk: Buffer) => void {
  let held = Buffer.alloc(0);
  return (chunk) => {
    held = Buffer.concat([held, chunk]);
    while (held.length >= 24) {
      const command = held.readUInt32LE(0);
      const length = held.readUInt32LE(12);
      if ((command ^ 0xffffffff) >>> 0 !== held.readUInt32LE(20) || length > 1024 * 1024) return onBad();
      if (held.length < 24 + length) return;
      onPacket({ command, arg0: held.readUInt32LE(4), arg1: held.readUInt32LE(8), data: held.subarray(24, 24 + length) });
      held = held.subarray(24 + length);
    }
  };
}

/** One service stream: what the device writes to the host, and the host's input and close. */
export interface Stream {
  write(data: Buffer | string): void;
  close(): void;
  onInput?: (data: Buffer) => void;
  onClose?: () => void;
}

export interface DeviceConnection {
  /** The banner after CNXN: "device::<props>;features=<list>". */
  banner: string;
  /** A service's stream opened (shell:..., exec:...); false refuses it (the host reads CLSE). */
  open(service: string, stream: Stream): boolean;
  /** Called once when the host's connection ends. */
  ended(): void;
}

interface OpenStream {
  remote: number;
  queue: Buffer[];
  waiting: boolean;
  closing: boolean;
  stream: Stream;
}

/** Serves one host connection: AUTH (any signature or key is taken: a simulated device with no
 * authorized-keys store), CNXN, then the streams the host opens. */
export function serveDevice(socket: Socket, device: DeviceConnection): void {
  let nextId = 1;
  let maxData = MAX_PAYLOAD;
  let online = false;
  const streams = new Map<number, OpenStream>();
  const send = (p: Packet) => socket.writable && socket.write(encodePacket(p));
  const flush = (local: number, s: OpenStream) => {
    if (s.waiting) return;
    const next = s.queue.shift();
    if (next) {
      s.waiting = true;
      send({ command: A_WRTE, arg0: local, arg1: s.remote, data: next });
    } else if (s.closing) {
      streams.delete(local);
      send({ command: A_CLSE, arg0: local, arg1: s.remote, data: Buffer.alloc(0) });
    }
  };
  const onPacket = (p: Packet) => {
    if (p.command === A_CNXN) {
      maxData = Math.min(p.arg1 || MAX_PAYLOAD, MAX_PAYLOAD);
      send({ command: A_AUTH, arg0: AUTH_TOKEN, arg1: 0, data: randomBytes(20) });
    } else if (p.command === A_AUTH && (p.arg0 === AUTH_SIGNATURE || p.arg0 === AUTH_RSAPUBLICKEY)) {
      online = true;
      // No NUL after it, as adbd sends it: a NUL would end the last feature's name (cmd), and adb would drop it.
      send({ command: A_CNXN, arg0: A_VERSION, arg1: MAX_PAYLOAD, data: Buffer.from(device.banner) });
    } else if (!online) {
      socket.destroy();
    } else if (p.command === A_OPEN) {
      open(p.arg0, p.data.toString("utf8").replace(/\0$/, ""));
    } else if (p.command === A_OKAY) {
      const s = streams.get(p.arg1);
      if (s) {
        s.remote = p.arg0;
        s.waiting = false;
        flush(p.arg1, s);
      }
    } else if (p.command === A_WRTE) {
      const s = streams.get(p.arg1);
      send({ command: A_OKAY, arg0: p.arg1, arg1: p.arg0, data: Buffer.alloc(0) });
      s?.stream.onInput?.(Buffer.from(p.data));
    } else if (p.command === A_CLSE) {
      const s = streams.get(p.arg1);
      streams.delete(p.arg1);
      s?.stream.onClose?.();
    }
  };
  const open = (remote: number, service: string) => {
    const local = nextId++;
    // waiting until the OKAY below is sent: the stream's writes queue until the host has it.
    const s: OpenStream = { remote, queue: [], waiting: true, closing: false, stream: undefined as unknown as Stream };
    s.stream = {
      write(data) {
        const bytes = typeof data === "string" ? Buffer.from(data) : data;
        for (let off = 0; off < bytes.length; off += maxData) s.queue.push(bytes.subarray(off, off + maxData));
        if (streams.get(local) === s) flush(local, s);
      },
      close() {
        s.closing = true;
        if (streams.get(local) === s) flush(local, s);
      },
    };
    streams.set(local, s);
    if (!device.open(service, s.stream)) {
      streams.delete(local);
      send({ command: A_CLSE, arg0: 0, arg1: remote, data: Buffer.alloc(0) });
      return;
    }
    send({ command: A_OKAY, arg0: local, arg1: remote, data: Buffer.alloc(0) });
    s.waiting = false;
    flush(local, s);
  };
  socket.setNoDelay(true);
  socket.on(
    "data",
    packetReader(onPacket, () => socket.destroy()),
  );
  socket.on("error", () => socket.destroy());
  socket.on("close", () => {
    for (const s of streams.values()) s.stream.onClose?.();
    streams.clear();
    device.ended();
  });
}
