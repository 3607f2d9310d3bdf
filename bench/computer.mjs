// What the benches share: a computer made by the provider itself (its own create request, drift
// check and bridge), and a raw exec attached over the same Engine API the bridge uses (the floor:
// bytes through Docker's attached stream, with no daemon and no JSON). After `npm run build`.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const { DockerProvider } = await import(join(ROOT, "dist", "src", "docker", "index.js"));
const { Frames } = await import(join(ROOT, "dist", "src", "docker", "frames.js"));

export const toolchain = JSON.parse(readFileSync(join(ROOT, "dist", "toolchain.json"), "utf8"));
export const daemonPath = toolchain.daemon[process.arch === "arm64" ? "arm64" : "amd64"];

/**
 * A computer made as every Docker computer is, and a connection to its daemon; remove() releases
 * it by its id. extra is the spec's own (memoryMb: /work holds half of it).
 */
export async function makeComputer(extra = {}) {
  const docker = new DockerProvider({ daemonPath });
  const made = await docker.create({ image: toolchain.baseImage, lifetimeMs: 3_600_000, network: "none", ...extra });
  if (!made.ok) throw new Error(`create: ${made.error.message}`);
  const connected = await docker.connect(made.value);
  if (!connected.ok) {
    await docker.release(made.value, "delete");
    throw new Error(`connect: ${connected.error.message}`);
  }
  return {
    docker,
    ref: made.value,
    client: connected.value.client,
    hello: connected.value.hello,
    connect: async () => {
      const c = await docker.connect(made.value);
      if (!c.ok) throw new Error(`connect: ${c.error.message}`);
      return c.value;
    },
    async remove() {
      await connected.value.close().catch(() => {});
      await docker.release(made.value, "delete");
      await docker.engine.close();
    },
  };
}

/**
 * argv run in the computer through an exec attached over the Engine API, as the bridge is: stdin
 * written from input (a Buffer, or a function given the stdin stream), stdout taken out of Docker's
 * frames and handed to onStdout. Resolves when the stream ends.
 */
export async function rawExec(computer, argv, { input, onStdout } = {}) {
  const { engine } = computer.docker;
  const made = await engine.call("POST", `/containers/${computer.ref.id}/exec`, {
    body: { AttachStdin: input !== undefined, AttachStdout: true, AttachStderr: true, Tty: false, Cmd: argv },
  });
  if (!made.ok) throw new Error(`exec ${argv.join(" ")}: ${made.message}`);
  const attached = await engine.hijack(made.value.Id);
  if (!attached.ok) throw new Error(`attach ${argv.join(" ")}: ${attached.message}`);
  const socket = attached.value;
  const frames = new Frames();
  socket.pipe(frames);
  frames.on("data", (chunk) => onStdout?.(chunk));
  const ended = new Promise((resolve, reject) => {
    frames.on("end", resolve);
    socket.on("error", reject);
  });
  if (typeof input === "function") input(socket);
  else if (input !== undefined) socket.end(input);
  await ended;
  socket.destroy();
}
