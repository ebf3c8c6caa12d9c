"""Errors arrive as Python exceptions by kind, with the CLI's message."""

import subprocess

import pytest

import mixgraph


def cli_error(cli, *args):
    out = subprocess.run([cli.path, *map(str, args)], capture_output=True, text=True)
    assert out.returncode != 0
    return out.returncode, out.stderr.strip().removeprefix("mixgraph: error: ")


def test_class_hierarchy():
    assert issubclass(mixgraph.UsageError, ValueError) and issubclass(mixgraph.InputError, ValueError)
    assert issubclass(mixgraph.MemoryRefused, MemoryError)
    assert issubclass(mixgraph.RuntimeFailure, RuntimeError) and issubclass(mixgraph.GpuRequired, RuntimeError)
    for e in (mixgraph.UsageError, mixgraph.InputError, mixgraph.MemoryRefused, mixgraph.RuntimeFailure,
              mixgraph.GpuRequired):
        assert issubclass(e, mixgraph.MixgraphError) and e.__doc__


def test_usage_errors_carry_the_cli_message(cli):
    with pytest.raises(mixgraph.UsageError) as e:
        mixgraph.Pattern("nosuch", 10)
    code, msg = cli_error(cli, "pattern", "-p", "nosuch", "-n", 10)
    assert code == 2 and str(e.value) == msg
    with pytest.raises(ValueError, match="32 bits"):
        mixgraph.Pattern("pow2", 5000000000)
    with pytest.raises(ValueError):
        mixgraph.Pattern("pow2", 0)
    with pytest.raises(ValueError, match="n is required"):
        mixgraph.Pattern("pow2")
    with pytest.raises(mixgraph.UsageError, match="outside 1..10"):
        mixgraph.Pattern("pow2", 10).reads(11)
    with pytest.raises(mixgraph.UsageError, match="outside"):
        mixgraph.distances("pow2", 10, source=0)


def test_input_errors(cli, tmp_path):
    upper = tmp_path / "upper.mtx"
    upper.write_text("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 1\n")
    with pytest.raises(mixgraph.InputError) as e:
        mixgraph.Pattern(f"mtx:{upper}")
    code, msg = cli_error(cli, "pattern", "-p", f"mtx:{upper}")
    assert code == 3 and str(e.value) == msg
    with pytest.raises(ValueError, match="cannot open"):
        mixgraph.Pattern("mtx:/nonexistent.mtx")


def test_memory_refusal(cli):
    with pytest.raises(mixgraph.MemoryRefused) as e:
        mixgraph.Pattern("sq1+cache", "1e6", mem_limit="1M")
    code, msg = cli_error(cli, "pattern", "-p", "sq1+cache", "-n", "1e6", "--mem-limit", "1M")
    assert code == 1 and "refused before allocating" in msg
    assert str(e.value).split(" needs about")[0] == msg.split(" needs about")[0]
    assert isinstance(e.value, MemoryError)
