"""Fixtures of the output-format tests: the CLI (MIXGRAPH_CLI or build/tools/mixgraph) and the schemas."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "docs" / "schemas"


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("MIXGRAPH_CLI") or str(ROOT / "build" / "tools" / "mixgraph")
    if not os.path.exists(path):
        pytest.skip("the mixgraph CLI is not built (set MIXGRAPH_CLI)")

    def run(args, fmt):
        out = subprocess.run([path, *args, "--format", fmt], capture_output=True, text=True)
        assert out.returncode == 0, f"{args}: exit {out.returncode}: {out.stderr}"
        return out.stdout

    run.path = path
    return run


def load_schema(stem):
    with open(SCHEMAS / f"mixgraph.{stem}.schema.json") as f:
        return json.load(f)
