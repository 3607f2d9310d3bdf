// exec: exec.run as the spec words it: argv never a shell, streams apart, exit codes and signals,
// cwd and env, timeout and abort, truncation at 360 KiB, nothing a run starts outlives it, and a
// user other than root with no capability in any set.
import { MAX_OUTPUT_BYTES } from "../../daemon/protocol.js";
import { callFails, check, idsOf, output, privilegeOf, run, shown, until } from "../assert.js";
import { conformanceCase } from "../case.js";
import { holding, marker } from "../markers.js";

const EXEC = { groups: ["exec" as const] };
/** The names exec.run's environment may hold besides what env gives (an allowlisted computer's: the relay's and the egress trust bundle's). */
const BASE_ENV = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "http_proxy",
  "https_proxy",
  "NO_PROXY",
  "no_proxy",
  "SSL_CERT_FILE",
  "REQUESTS_CA_BUNDLE",
  "NODE_EXTRA_CA_CERTS",
];

export const execCases = [
  conformanceCase("exec.argv", "core", EXEC, async (t) => {
    const args = ["a b", "$HOME", ";", "*", '"q"', ""];
    const out = await output(t.client, ["printf", "%s|", ...args], { signal: t.signal });
    check(out === `${args.join("|")}|`, `printf got its arguments as ${shown(out)}, not each as given (no shell between)`);
  }),

  conformanceCase("exec.streams", "core", EXEC, async (t) => {
    const ran = await run(t.client, ["sh", "-c", "printf out; printf err >&2"], { signal: t.signal });
    check(ran.stdout === "out" && ran.stderr === "err", `stdout ${shown(ran.stdout)} and stderr ${shown(ran.stderr)}, not "out" and "err" apart`);
    const fed = await run(t.client, ["cat"], { signal: t.signal, stdin: "in put\n\u00e9" });
    check(fed.stdout === "in put\n\u00e9", `cat given stdin printed ${shown(fed.stdout)}`);
  }),

  conformanceCase("exec.exit-code", "core", EXEC, async (t) => {
    const seven = await run(t.client, ["sh", "-c", "exit 7"], { signal: t.signal });
    check(seven.exitCode === 7 && seven.signal === null && !seven.timedOut, `exit 7 reads ${shown({ exitCode: seven.exitCode, signal: seven.signal })}`);
    const killed = await run(t.client, ["sh", "-c", "kill -KILL $$"], { signal: t.signal });
    check(
      killed.signal === "KILL" && killed.exitCode === null,
      `a program killed by SIGKILL reads ${shown({ exitCode: killed.exitCode, signal: killed.signal })}, not signal "KILL"`,
    );
  }),

  conformanceCase("exec.cwd", "core", EXEC, async (t) => {
    const out = await output(t.client, ["pwd"], { signal: t.signal, cwd: t.dir });
    check(out.trim() === t.dir, `pwd with cwd ${t.dir} printed ${shown(out.trim())}`);
  }),

  conformanceCase("exec.env", "core", EXEC, async (t) => {
    const out = await output(t.client, ["env"], { signal: t.signal, env: { AGENTRUN_CONFORMANCE: "x y", USER: "agentrun-conformance" } });
    const vars = new Map(
      out
        .split("\n")
        .filter(Boolean)
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    );
    check(vars.get("AGENTRUN_CONFORMANCE") === "x y", `env did not reach the program: ${shown([...vars.keys()])}`);
    check(vars.get("USER") === "agentrun-conformance", `env does not go over the daemon's USER: it reads ${shown(vars.get("USER"))}`);
    check(vars.get("HOME") === t.home, `HOME reads ${shown(vars.get("HOME"))}, not ${t.home}`);
    check(vars.has("PATH"), "the program has no PATH");
    const extra = [...vars.keys()].filter((name) => !BASE_ENV.includes(name) && name !== "AGENTRUN_CONFORMANCE");
    check(extra.length === 0, `the program got more of the daemon's environment than PATH, HOME, USER and LOGNAME: ${extra.join(", ")}`);
  }),

  conformanceCase("exec.timeout", "core", EXEC, async (t) => {
    const started = Date.now();
    const ran = await run(t.client, ["sleep", "60"], { signal: t.signal, timeoutMs: 1500 });
    const took = Date.now() - started;
    check(ran.timedOut, `a sleep 60 with timeoutMs 1500 did not time out: ${shown({ exitCode: ran.exitCode, signal: ran.signal })}`);
    check(took < 15_000, `the timeout of 1.5 s took ${took} ms to answer`);
  }),

  conformanceCase("exec.abort", "core", EXEC, async (t) => {
    const mark = marker();
    const abort = new AbortController();
    const onCase = () => abort.abort();
    t.signal.addEventListener("abort", onCase, { once: true });
    const sent = t.client.call("exec.run", { argv: ["sleep", mark.seconds], timeoutMs: 60_000 }, { signal: abort.signal });
    const seen = await until(
      () => holding(t.client, mark, t.signal),
      (pids) => pids.length > 0,
      30_000,
      t.signal,
      200,
    );
    abort.abort();
    t.signal.removeEventListener("abort", onCase);
    await callFails("an exec.run cancelled with $/cancelRequest", sent, ["aborted"]);
    check(seen.length > 0, "the program never started, so the cancel proved nothing");
    const left = await until(
      () => holding(t.client, mark, t.signal),
      (pids) => pids.length === 0,
      8_000,
      t.signal,
    );
    check(left.length === 0, `the cancelled program still runs (pid ${left.join(", ")}) 8 s after the cancel`);
  }),

  conformanceCase("exec.truncation", "core", EXEC, async (t) => {
    const whole = await run(t.client, ["head", "-c", String(MAX_OUTPUT_BYTES + 40_000), "/dev/zero"], { signal: t.signal });
    check(
      whole.bytes === MAX_OUTPUT_BYTES && whole.truncated,
      `400 KiB of output came back as ${whole.bytes} bytes, truncated ${whole.truncated}; the spec keeps ${MAX_OUTPUT_BYTES} and says truncated`,
    );
    const small = await run(t.client, ["head", "-c", "5000", "/dev/zero"], { signal: t.signal, maxOutput: 1000 });
    check(small.bytes === 1000 && small.truncated, `maxOutput 1000 kept ${small.bytes} bytes, truncated ${small.truncated}`);
    const fits = await run(t.client, ["head", "-c", "1000", "/dev/zero"], { signal: t.signal, maxOutput: 1000 });
    check(fits.bytes === 1000 && !fits.truncated, `1000 bytes under maxOutput 1000 read ${fits.bytes}, truncated ${fits.truncated}`);
  }),

  conformanceCase("exec.setsid-escapee", "core", EXEC, async (t) => {
    const mark = marker();
    // setsid and a double fork: both leave the program's group and session, and are orphaned.
    const script = `setsid sleep ${mark.inScript} & ( sleep ${mark.inScript} & ) ; sleep 0.5; echo started`;
    const out = await output(t.client, ["sh", "-c", script], { signal: t.signal });
    check(out.trim() === "started", `the script printed ${shown(out)}`);
    const left = await until(
      () => holding(t.client, mark, t.signal),
      (pids) => pids.length === 0,
      8_000,
      t.signal,
    );
    check(left.length === 0, `what the run started with setsid and a double fork still runs after it (pid ${left.join(", ")})`);
  }),

  conformanceCase("exec.unprivileged", "core", EXEC, async (t) => {
    const { status, problems } = await privilegeOf(t.client, t.signal);
    const ids = idsOf(status);
    check(ids !== undefined, "/proc/self/status reports no Uid or Gid");
    check(ids.uid !== 0, "exec.run runs as root (uid 0) with no user asked for; a computer is never root unless its spec asks");
    check(problems.length === 0, `a program of the computer holds privilege: ${problems.join("; ")}`);
  }),

  conformanceCase("exec.user", "core", EXEC, async (t) => {
    const ids = idsOf(await output(t.client, ["cat", "/proc/self/status"], { signal: t.signal }));
    check(ids !== undefined, "/proc/self/status reports no Uid");
    const other = ids.uid === 0 ? "65534" : "0";
    await callFails(
      `exec.run as user ${other} by a daemon with no capability`,
      t.client.call("exec.run", { argv: ["true"], user: other, timeoutMs: 10_000 }, { signal: t.signal }),
      ["denied"],
    );
  }),
];
