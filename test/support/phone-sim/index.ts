// A simulated Android phone on the loopback: `adb connect 127.0.0.1:<port>` reaches it through
// the real adb server. Each connection starts locked: every shell answers "locked" until
// `unlock <code>` on that connection.
import { createServer, type Server, type Socket } from "node:net";
import { PhoneModel } from "./model.js";
import { PhoneShell } from "./shell.js";
import { serveDevice, type Stream } from "./wire.js";

export { PhoneModel } from "./model.js";

const BANNER = "device::ro.product.name=sdk_gphone64_x86_64;ro.product.model=sdk_gphone64_x86_64;ro.product.device=emu64xa;features=cmd";

export interface SimPhone {
  port: number;
  model: PhoneModel;
  /** Every command line the phone was sent, unlock's included (a test reads what reached it). */
  commands: string[];
  /** Ends every adb connection to the phone at once (the link drops) and keeps listening. */
  drop(): void;
  close(): Promise<void>;
}

export async function startPhone({ code }: { code: string }): Promise<SimPhone> {
  const model = new PhoneModel();
  const shell = new PhoneShell(model);
  const commands: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    let unlocked = false;
    const answer = (line: string, stream: Stream) => {
      commands.push(line);
      if (line === `unlock ${code}`) {
        unlocked = true;
        return finish(stream, "unlocked\n");
      }
      if (!unlocked) return finish(stream, "locked\n");
      const { out, ms, takes } = shell.run(line);
      if (takes) return readInput(stream, takes.bytes, (input) => finish(stream, takes.then(input).out));
      if (!ms) return finish(stream, out);
      let open = true;
      stream.onClose = () => (open = false);
      setTimeout(() => open && finish(stream, out), ms);
    };
    serveDevice(socket, {
      banner: BANNER,
      open(service, stream) {
        const m = /^(shell|exec):(.*)$/s.exec(service);
        if (!m) return false;
        if (m[2]) answer(m[2], stream);
        else if (!unlocked)
          finish(stream, "locked\n"); // a shell with no command: its stdin cannot unlock
        else
          stream.onInput = (data) =>
            data
              .toString()
              .split("\n")
              .filter(Boolean)
              .forEach((line) => stream.write(shell.run(line).out));
        return true;
      },
      ended: () => sockets.delete(socket),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const drop = () => sockets.forEach((s) => s.destroy());
  return {
    port,
    model,
    commands,
    drop,
    close: () => {
      drop();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A command's stdin, until it has the bytes it reads. */
function readInput(stream: Stream, bytes: number, done: (input: Buffer) => void): void {
  const parts: Buffer[] = [];
  let held = 0;
  stream.onInput = (data) => {
    parts.push(data);
    held += data.length;
    if (held >= bytes) {
      stream.onInput = undefined;
      done(Buffer.concat(parts).subarray(0, bytes));
    }
  };
}

function finish(stream: Stream, out: Buffer | string): void {
  if (out.length) stream.write(out);
  stream.close();
}
