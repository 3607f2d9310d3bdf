#!/usr/bin/env bash
# The README's main command: set-up, then `pulumi up` of the root stack (Pulumi.yaml) with a
# local file backend in .pulumi/ and, unless you set PULUMI_CONFIG_PASSPHRASE, a default
# passphrase for local state. No prompts. It refreshes first, so what drifted by hand since the
# last run is put back as declared. Extra arguments go to `pulumi up`.
# A person sees one line per set-up step with its time; the steps' own output (Go module
# downloads, compilers, apt) goes to a log it names. It ends with what was made and what to run next.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
t_all=$SECONDS
mkdir -p .pulumi
log="$ROOT/.pulumi/setup.log"
: >"$log"
say "the set-up's own output goes to $log"
AGENTRUN_SETUP_LOG="$log" bash scripts/setup.sh
local_backend
stack="${AGENTRUN_STACK:-dev}"
pulumi stack select --create --non-interactive "$stack" >/dev/null
t_up=$SECONDS
pulumi up --yes --non-interactive --refresh --stack "$stack" "$@"
say "pulumi up done in $((SECONDS - t_up)) s (all of npm run up: $((SECONDS - t_all)) s)"

# What was made, from the stack's outputs, and the commands to try next.
outputs="$(pulumi stack output --json --stack "$stack")"
node -e '
const o = JSON.parse(process.argv[1]);
const names = Array.isArray(o.computers) ? o.computers : [];
const lines = [];
if (names.length > 0) lines.push(`made ${names.length} computer${names.length === 1 ? "" : "s"}: ${names.join(", ")}`);
if (o.runFolder) lines.push(`their run folder (at /workspace in each): ${o.runFolder}`);
if (o.deadline) lines.push(`they run until ${o.deadline}`);
const next = [["npx agentrun ls", "the computers, their state and drift"]];
if (names[0]) next.push([`npx agentrun shell ${names[0]}`, "a terminal in one"], [`npx agentrun exec ${names[0]} -- uname -a`, "one program, its exit code yours"]);
next.push(["npm run down", "tear them down"]);
const width = Math.max(...next.map(([command]) => command.length));
lines.push("next:", ...next.map(([command, why]) => `  ${command.padEnd(width)}   # ${why}`));
process.stdout.write(lines.join("\n") + "\n");
' "$outputs"
