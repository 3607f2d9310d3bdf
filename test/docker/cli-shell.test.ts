// agentrun shell driven through a real terminal: tmux holds the pty the command runs in, types
// into it, resizes it and reads its screen, as a person at a terminal would.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, computers } from "../support/cli-helpers.js";

const fleet = computers();
// A tmux server of this file's own, on a socket in a folder of its own, ended by that socket alone.
const folder = mkdtempSync(path.join(tmpdir(), "agentrun-cli-tmux-"));
const socket = path.join(folder, "socket");
const session = "shell";
const tmux = (...args: string[]) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" });
const screen = () => tmux("capture-pane", "-p", "-t", session, "-S", "-200");
const type = (text: string) => tmux("send-keys", "-t", session, "-l", text);
const enter = () => tmux("send-keys", "-t", session, "Enter");

/** Waits until the screen shows what the predicate looks for; fails naming it, with the screen. */
async function until(what: string, seen: (text: string) => boolean, ms = 20_000): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const text = screen();
    if (seen(text)) return text;
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}; the screen:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  const name = await fleet.make();
  // After the shell ends, its code stays on the screen for the test to read.
  tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", `node ${BIN} shell ${name}; echo "SHELL-EXIT=$?"; sleep 600`);
}, 120_000);

afterAll(() => {
  try {
    tmux("kill-server");
  } catch {}
  rmSync(folder, { recursive: true, force: true });
});

describe("agentrun shell", () => {
  it("runs what is typed and shows its output", async () => {
    await until("a prompt", (text) => /\$\s*$/m.test(text));
    type("echo typed-$((6*7))");
    enter();
    await until("the command's output", (text) => /^typed-42$/m.test(text));
  });

  it("forwards a window resize to the terminal inside", async () => {
    tmux("resize-window", "-t", session, "-x", "100", "-y", "30");
    type("stty size");
    enter();
    await until("the new size", (text) => /^30 100$/m.test(text));
  });

  it("^C interrupts a sleep in the foreground and the shell reads on", async () => {
    type("sleep 300; echo sleep-ended-$?");
    enter();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    tmux("send-keys", "-t", session, "C-c");
    type("echo after-$((1+1))");
    enter();
    const text = await until("the next command's output", (t) => /^after-2$/m.test(t), 10_000);
    // The sleep's own line never ran: ^C ended the whole foreground job.
    expect(text).not.toMatch(/^sleep-ended/m);
  });

  it("exits with the shell's code on `exit 3`", async () => {
    type("exit 3");
    enter();
    await until("the exit code", (text) => /^SHELL-EXIT=3$/m.test(text));
  });
});
