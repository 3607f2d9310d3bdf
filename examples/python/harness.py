"""A run harness in Python, as an agent framework's user writes one: a task environment (the task's
files, an app the agents answer through, a verifier that grades) on each computer of a Fleet, one
agent's command run on each, every agent graded, the results read from the stack's outputs.

The program is inline (Pulumi's Automation API runs it in this process: no language host) and its
resources come from pulumi_agentrun, the SDK generated from this project's schema.

    python harness.py up RUN          # makes it all, runs and grades each agent, prints the results
    python harness.py check RUN       # reads everything back: exit 0 as declared, 7 drifted (named)
    python harness.py computer RUN A  # agent A's computer
    python harness.py down RUN        # destroys everything and removes the stack
"""

import json
import os
import re
import sys

import pulumi
import pulumi_agentrun as agentrun
from pulumi import automation as auto

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN = os.path.join(HERE, "..", "..", "provider", "bin")
PROJECT = "python-harness"

# The task: name the top scorer. Rows out of order, so a careless agent answers wrong.
SCORES = "id,name,score\n1,grace,0.87\n2,ada,0.91\n3,alan,0.78\n"

# The app: a small HTTP service on the computer's loopback that keeps the answer it is given.
APP = """
import http.server, os
class Answer(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open("answer.txt", "wb") as f:
            f.write(body)
        self.send_response(200); self.end_headers(); self.wfile.write(b"kept")
    def do_GET(self):
        answer = open("answer.txt", "rb").read() if os.path.exists("answer.txt") else b""
        self.send_response(200); self.end_headers(); self.wfile.write(answer)
http.server.HTTPServer(("127.0.0.1", int(os.environ["PORT"])), Answer).serve_forever()
"""

# Each agent's command (a stand-in for a model's): reads the task, answers through the app.
ANSWER = """
import csv, os, urllib.request
rows = list(csv.DictReader(open("task/scores.csv")))
top = {pick}
urllib.request.urlopen(os.environ["AGENTRUN_APP_SCORES_API_URL"] + "/answer", data=top.encode()).read()
print(top)
"""
AGENTS = {
    "ranker": ANSWER.format(pick='max(rows, key=lambda r: float(r["score"]))["name"]'),
    "first-row": ANSWER.format(pick='rows[0]["name"]'),
}

# The verifier: asks the app for the answer, writes its verdict and reward; a wrong answer exits 1.
VERIFY = """
import json, os, sys, urllib.request
answer = urllib.request.urlopen(os.environ["AGENTRUN_APP_SCORES_API_URL"] + "/answer").read().decode()
os.makedirs("results", exist_ok=True)
json.dump({"answer": answer, "expected": "ada"}, open("results/verdict.json", "w"))
open("results/reward", "w").write("1" if answer == "ada" else "0")
sys.exit(0 if answer == "ada" else 1)
"""


def program() -> None:
    fleet = agentrun.Fleet("agents", size=len(AGENTS), template=agentrun.ComputerTemplateArgs(lifetime_ms=3_600_000))
    for i, (agent, code) in enumerate(AGENTS.items()):
        computer = fleet.names.apply(lambda names, i=i: names[i])
        files = agentrun.ComputerFiles(
            f"{agent}-task", computer=computer, destination="task", files={"scores.csv": pulumi.StringAsset(SCORES)}
        )
        app = agentrun.ComputerApp(
            f"{agent}-app",
            computer=computer,
            name="scores-api",
            files=pulumi.AssetArchive({"serve.py": pulumi.StringAsset(APP)}),
            launch=agentrun.AppLaunchArgs(argv=["python3", "serve.py"], env={"PORT": "8080"}),
            port=8080,
        )
        apps = {"scores-api": app.address}
        run = agentrun.ComputerCommand(
            f"{agent}-run", computer=computer, apps=apps, command=["python3", "-c", code], triggers=[files.sources]
        )
        verify = agentrun.ComputerCommand(
            f"{agent}-verify",
            computer=computer,
            apps=apps,
            command=["python3", "-c", VERIFY],
            result_paths=["results/verdict.json"],
            reward_path="results/reward",
            allow_failure=True,
            triggers=[run.run_id],
        )
        pulumi.export(
            agent,
            {"computer": computer, "answer": run.stdout, "passed": verify.passed, "reward": verify.reward},
        )


def stack(run: str) -> auto.Stack:
    # The project's file, beside the harness: it names this repository's plugin and asks for a
    # refresh on every up, which the Automation API's ProjectSettings cannot say.
    work = os.path.join(HERE, ".pulumi", "workspace")
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "Pulumi.yaml"), "w", encoding="utf-8") as f:
        json.dump(
            {
                "name": PROJECT,
                "runtime": "python",
                "plugins": {"providers": [{"name": "agentrun", "path": PLUGIN}]},
                # Every up reads everything back first, so a plain up heals drift.
                "options": {"refresh": "always"},
            },
            f,
        )
    return auto.create_or_select_stack(
        stack_name=run,
        project_name=PROJECT,
        program=program,
        opts=auto.LocalWorkspaceOptions(work_dir=work, secrets_provider="passphrase"),
    )


def up(run: str) -> int:
    outputs = stack(run).up(color="never").outputs
    for agent in AGENTS:
        got = outputs[agent].value
        verdict = "passed" if got["passed"] else "failed"
        print(f"{agent}: {verdict}, reward {got['reward']:g}, answered {got['answer'].strip()!r} on {got['computer']}")
    return 0


CHANGES = (auto.OpType.CREATE, auto.OpType.UPDATE, auto.OpType.REPLACE, auto.OpType.DELETE)


def check(run: str) -> int:
    drifted = []

    def seen(event: auto.EngineEvent) -> None:
        meta = event.resource_pre_event and event.resource_pre_event.metadata
        # The steps the engine counts as changes (a default provider's own steps it does not).
        if meta and meta.op in CHANGES and not meta.type.startswith("pulumi:providers:"):
            drift = ((meta.old and meta.old.outputs) or {}).get("drift") or []
            name = meta.urn.split("::")[-1]
            drifted.append(f"{name} ({meta.type}) {meta.op.value} [{', '.join(meta.diffs or [])}]: {'; '.join(drift)}")

    try:
        stack(run).preview(refresh=True, expect_no_changes=True, color="never", on_event=seen)
    except auto.errors.CommandError as error:
        code = re.search(r"code: (\d+)", str(error))
        if not drifted or not code:
            raise
        print("drifted:\n  " + "\n  ".join(drifted))
        return int(code.group(1))  # the engine's: 7, changes where none were expected
    print("as declared")
    return 0


def computer(run: str, agent: str) -> int:
    print(stack(run).outputs()[agent].value["computer"])
    return 0


def down(run: str) -> int:
    s = stack(run)
    s.destroy(color="never")
    s.workspace.remove_stack(run)
    print(f"destroyed {run}")
    return 0


if __name__ == "__main__":
    commands = {"up": up, "check": check, "computer": computer, "down": down}
    if len(sys.argv) < 3 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    sys.exit(commands[sys.argv[1]](*sys.argv[2:]))
