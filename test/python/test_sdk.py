"""The Python SDK (provider/sdk/python, the package pulumi_agentrun) is what Pulumi's own Python code
generator makes of schema/schema.json: regenerated and compared file by file, so a schema changed
without its SDK fails here; and the SDK this tree installs carries every resource's inputs and outputs, typed
and with the schema's words, and the PyPI pulumi it runs on is the CLI's version."""

import copy
import importlib.metadata
import inspect
import json
import re
import subprocess
import typing

import pulumi
import pulumi_agentrun

from conftest import ROOT

SCHEMA = json.loads((ROOT / "schema" / "schema.json").read_text())


def gen_check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / "gen-sdk-python.sh"), "--check", *args], capture_output=True, text=True, timeout=600
    )


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def test_the_committed_sdk_is_what_the_schema_gives():
    run = gen_check()
    assert run.returncode == 0, run.stderr


def test_a_schema_the_sdk_was_not_made_from_fails_the_check(tmp_path):
    changed = copy.deepcopy(SCHEMA)
    computer = changed["resources"]["agentrun:index:Computer"]
    gpus = {"type": "integer", "description": "GPUs for the computer."}
    computer["inputProperties"]["gpus"] = gpus
    computer["properties"]["gpus"] = gpus
    (tmp_path / "schema.json").write_text(json.dumps(changed))
    run = gen_check("--schema", str(tmp_path / "schema.json"))
    assert run.returncode == 1
    assert "pulumi_agentrun/computer.py" in run.stderr
    assert "provider/sdk/python is not what" in run.stderr


def test_every_resource_takes_its_inputs_and_gives_its_outputs_typed_in_the_schemas_words():
    for token, resource in SCHEMA["resources"].items():
        name = token.split(":")[-1]
        args = getattr(pulumi_agentrun, f"{name}Args")
        params = inspect.signature(args.__init__).parameters
        required = set(resource.get("requiredInputs", []))
        for prop, spec in resource["inputProperties"].items():
            param = params[snake(prop)]
            # A required input has no default; an optional one defaults to None. Each is annotated.
            assert (param.default is inspect.Parameter.empty) == (prop in required), f"{name}.{prop}"
            assert param.annotation is not inspect.Parameter.empty, f"{name}.{prop}"
            if "description" in spec:
                doc = inspect.getdoc(getattr(args, snake(prop)))
                assert doc == spec["description"].strip(), f"{name}.{prop}"
        # Each output a typed Output, documented in the schema's words.
        for prop, spec in resource["properties"].items():
            getter = getattr(getattr(pulumi_agentrun, name), snake(prop))
            returns = inspect.signature(getter.fget).return_annotation
            assert typing.get_origin(returns) is pulumi.Output, f"{name}.{prop}: {returns}"
            if "description" in spec:
                assert inspect.getdoc(getter) == spec["description"].strip(), f"{name}.{prop}"
        # The resource's constructor is documented in the schema's words.
        assert resource["description"].strip() in inspect.getsource(getattr(pulumi_agentrun, name)), name
        # A component is made by the plugin's construct (a remote component), the rest are custom resources.
        base = pulumi.ComponentResource if resource.get("isComponent") else pulumi.CustomResource
        assert issubclass(getattr(pulumi_agentrun, name), base), name


def test_the_sdk_runs_on_pypis_pulumi_at_the_clis_version(toolchain):
    cli = subprocess.run([f"{toolchain['pulumiBin']}/pulumi", "version"], capture_output=True, text=True, timeout=120)
    assert cli.stdout.strip() == "v" + importlib.metadata.version("pulumi")
