"""examples/python, followed as its README says, through the real Pulumi engine: the Automation API
in Python (an inline program over pulumi_agentrun) makes a task environment on each computer of a
Fleet, runs and grades each agent, and reads the grades from the stack's outputs; a preview with
refresh finds it as declared, a change by hand inside a computer is exit 7 naming the resource and
the file, and down leaves no computer. One stack; every computer it named is removed by its exact
name, pass or fail."""

import os
import re
import shutil
import subprocess

from conftest import ROOT

EXAMPLE = ROOT / "examples" / "python"
# The layout a fresh clone has beside the example, linked into the copy it runs from.
LINKED = ["dist", "provider", "package.json", "node_modules"]


def readme_steps() -> list[str]:
    block = re.search(r"```sh\n(.*?)```", (EXAMPLE / "README.md").read_text(), re.S)
    assert block, "examples/python/README.md has no sh block"
    return [line for line in block.group(1).split("\n") if line.strip() and not line.startswith("npm run setup")]


def test_the_python_harness_as_its_readme_says(tmp_path):
    (tmp_path / "examples").mkdir()
    shutil.copytree(EXAMPLE, tmp_path / "examples" / "python", ignore=shutil.ignore_patterns(".pulumi", "__pycache__"))
    for name in LINKED:
        (tmp_path / name).symlink_to(ROOT / name)
    steps = readme_steps()
    # One shell for every line, as a reader's terminal is; each line's exit code marked after it.
    script = "\n".join(f'{line}\necho "::step {n} $?" >&2' for n, line in enumerate(steps))
    env = {**os.environ, "PULUMI_HOME": str(tmp_path / "home"), "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true"}
    ran = None
    try:
        ran = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
        said = ran.stdout + ran.stderr
        codes = [(steps[int(n)], int(code)) for n, code in re.findall(r"^::step (\d+) (\d+)$", ran.stderr, re.M)]
        assert codes == [(step, 0) for step in steps], said
        # Each agent graded by its verifier, read back from the stack's outputs.
        assert re.search(r"^ranker: passed, reward 1, answered 'ada' on computer-[0-9a-f]{12}$", ran.stdout, re.M), said
        assert re.search(r"^first-row: failed, reward 0, answered 'grace' on computer-[0-9a-f]{12}$", ran.stdout, re.M), said
        # Clean first; after the change by hand, the one resource it touched, by name, field and file.
        assert ran.stdout.count("as declared\n") == 1, said
        drifted = ran.stdout.split("drifted:\n", 1)[1].split("destroyed r1")[0].strip().split("\n")
        assert len(drifted) == 1, said
        assert re.fullmatch(
            r"ranker-task \(agentrun:index:ComputerFiles\) update \[drift\]: task/scores\.csv was changed inside the computer .*",
            drifted[0],
        ), said
        assert "destroyed r1" in ran.stdout, said
        for name in set(re.findall(r"computer-[0-9a-f]{12}", ran.stdout)):
            assert subprocess.run(["docker", "inspect", name], capture_output=True).returncode != 0, f"{name} is still there"
    finally:
        teardown(tmp_path, env, ran)


def teardown(root, env, ran) -> None:
    """Whatever a failed line left: the stack destroyed as the README's last line would, then every computer it named."""
    folder = root / "examples" / "python"
    if (folder / ".pulumi" / ".pulumi" / "stacks").exists() and "destroyed r1" not in (ran.stdout if ran else ""):
        down = ". ../../dist/toolchain.env && export PULUMI_BACKEND_URL=file://$PWD/.pulumi PULUMI_CONFIG_PASSPHRASE=local && "
        subprocess.run(["bash", "-c", down + '"$AGENTRUN_PYTHON" harness.py down r1'], cwd=folder, env=env, capture_output=True, timeout=600)
    names = set(re.findall(r"computer-[0-9a-f]{12}", (ran.stdout + ran.stderr) if ran else ""))
    if names:
        subprocess.run(["docker", "rm", "--force", *names], capture_output=True, timeout=120)
