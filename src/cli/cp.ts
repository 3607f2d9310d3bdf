// agentrun cp <src> <dst>: a file or a folder between this machine and a computer, either way;
// the computer's side is name:/absolute/path. Files go through writeFile/readFile, folders as tar
// through pushTar/pullTarStream, made and read here by the host's tar. As `cp -r`: into an existing
// folder, a file or a folder lands under its own name (dst/<name>); else it is made at dst.
import { spawn } from "node:child_process";
import { mkdir, readFile as readLocal, stat, writeFile as writeLocal } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import type { ComputerClient } from "../daemon/client.js";
import { pullTarStream, pushTar, readFile, writeFile } from "../daemon/files.js";
import { withConnection } from "./computer.js";
import type { Context } from "./context.js";
import { CliError, EXIT, failed, usageError } from "./errors.js";
import { progress } from "./progress.js";
import { providerOf, type ProviderFlags, withProviderOptions } from "./settings.js";

type Side = { computer: string; path: string } | { local: string };

/** name:/path is the computer's side; anything else is a local path. */
function sideOf(text: string): Side {
  const remote = /^([A-Za-z0-9][\w.-]*):(.*)$/.exec(text);
  if (!remote) return { local: text };
  const [, computer, where] = remote as unknown as [string, string, string];
  if (!where.startsWith("/")) throw usageError(`"${text.slice(0, 80)}": a computer's path is absolute (name:/work/file)`, "cp");
  return { computer, path: where };
}

async function remoteType(client: ComputerClient, where: string, signal: AbortSignal): Promise<"file" | "dir" | "missing" | "other"> {
  try {
    const found = await client.call("files.stat", { path: where, follow: true }, { signal });
    return found.type === "file" || found.type === "dir" ? found.type : "other";
  } catch (error) {
    if ((error as { kind?: string }).kind === "not_found") return "missing";
    throw error;
  }
}

/** The host's tar of a folder's contents, as chunks, counted. */
async function* tarOf(folder: string, counted: (n: number) => void): AsyncGenerator<Uint8Array> {
  const tar = spawn("tar", ["-c", "-f", "-", "-C", folder, "."], { stdio: ["ignore", "pipe", "pipe"] });
  let said = "";
  tar.stderr.on("data", (b: Buffer) => (said += b.toString()));
  const ended = new Promise<number | null>((resolve) => tar.on("close", resolve));
  try {
    for await (const chunk of tar.stdout) {
      counted((chunk as Buffer).length);
      yield chunk as Buffer;
    }
    const code = await ended;
    if (code !== 0) throw new CliError(EXIT.failed, `tar could not read ${folder}: ${said.trim()}`);
  } finally {
    tar.kill();
  }
}

async function upload(client: ComputerClient, from: string, to: string, signal: AbortSignal): Promise<string> {
  const local = await stat(from).catch(() => undefined);
  if (!local) throw usageError(`there is no ${from} here to copy`, "cp");
  const target = (await remoteType(client, to, signal)) === "dir" ? path.posix.join(to, path.basename(path.resolve(from))) : to;
  if (local.isDirectory()) {
    const shown = progress(`${from} → ${target}`);
    const pushed = await pushTar(client, target, tarOf(from, shown.add), { signal });
    shown.done();
    if (!pushed.ok) throw failed(`${from} could not be copied to ${target}`, pushed.error);
    return `${from}/ → ${target}/ (${pushed.value.entries} entries)`;
  }
  const bytes = await readLocal(from);
  const shown = progress(`${from} → ${target}`, bytes.length);
  const written = await writeFile(client, target, bytes, { signal, mode: local.mode & 0o7777 });
  shown.add(bytes.length);
  shown.done();
  if (!written.ok) throw failed(`${from} could not be written to ${target}`, written.error);
  return `${from} → ${target} (${bytes.length} bytes)`;
}

async function download(client: ComputerClient, from: string, to: string, signal: AbortSignal): Promise<string> {
  const type = await remoteType(client, from, signal);
  if (type === "missing") throw usageError(`there is no ${from} in the computer to copy`, "cp");
  if (type === "other") throw usageError(`${from} is neither a file nor a folder`, "cp");
  const here = await stat(to).catch(() => undefined);
  const target = here?.isDirectory() ? path.join(to, path.posix.basename(from)) : to;
  if (type === "file") {
    const read = await readFile(client, from, { signal });
    if (!read.ok) throw failed(`${from} could not be read`, read.error);
    await writeLocal(target, read.value);
    return `${from} → ${target} (${read.value.length} bytes)`;
  }
  await mkdir(target, { recursive: true });
  const tar = spawn("tar", ["-x", "-f", "-", "--no-same-owner", "-C", target], { stdio: ["pipe", "ignore", "pipe"] });
  let said = "";
  tar.stderr.on("data", (b: Buffer) => (said += b.toString()));
  const ended = new Promise<number | null>((resolve) => tar.on("close", resolve));
  const pull = pullTarStream(client, from, { signal });
  const shown = progress(`${from} → ${target}`);
  for await (const chunk of pull.chunks) {
    shown.add(chunk.length);
    if (!tar.stdin.write(chunk)) await new Promise((resolve) => tar.stdin.once("drain", resolve));
  }
  tar.stdin.end();
  shown.done();
  const pulled = await pull.done;
  const code = await ended;
  if (!pulled.ok) throw failed(`${from} could not be read`, pulled.error);
  if (code !== 0) throw new CliError(EXIT.failed, `tar could not write into ${target}: ${said.trim()}`);
  return `${from}/ → ${target}/`;
}

export function cpCommand(program: Command, context: Context): Command {
  const command = program
    .command("cp")
    .description("copy a file or a folder into a computer or out of one, as cp -r does")
    .argument("<src>", "a local path, or name:/path in a computer")
    .argument("<dst>", "a local path, or name:/path in a computer")
    .addHelpText(
      "after",
      "\nAs cp -r: into an existing folder, src lands under its own name (dst/<name of src>); else it is made as dst.\n" +
        "\nExamples:\n  agentrun cp ./src computer-0123456789ab:/work        # lands as /work/src\n  agentrun cp computer-0123456789ab:/work/out ./out  # ./out made as a copy of /work/out",
    );
  withProviderOptions(command);
  return command.action(async (src: string, dst: string, flags: ProviderFlags) => {
    const { signal } = context;
    const from = sideOf(src);
    const to = sideOf(dst);
    if ("local" in from === "local" in to) throw usageError("one side is a computer's (name:/path) and the other a local path", "cp");
    const provider = await providerOf(flags, "cp", signal);
    const name = "computer" in from ? from.computer : (to as { computer: string }).computer;
    const said = await withConnection(provider, name, signal, ({ client }) =>
      "local" in from
        ? upload(client, from.local, (to as { path: string }).path, signal)
        : download(client, from.path, (to as { local: string }).local, signal),
    );
    process.stdout.write(`${said}\n`);
  });
}
