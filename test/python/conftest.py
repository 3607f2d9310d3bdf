"""The Python side's tests: what the set-up made (dist/toolchain.json), and the repository's root.
Run by npm test with the set-up's venv (scripts/test.sh), or alone:
`. dist/toolchain.env && "$AGENTRUN_PYTHON" -m pytest test/python`."""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def toolchain() -> dict:
    made = ROOT / "dist" / "toolchain.json"
    if not made.exists():
        pytest.fail("dist/toolchain.json is missing: run `bash scripts/setup.sh --tests` (npm test runs it) first")
    return json.loads(made.read_text())
