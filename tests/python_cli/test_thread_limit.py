"""A process/thread limit (ulimit -u, RLIMIT_NPROC) below the threads asked for: the CLI stops with its own
one-line message and exit code 1 (docs/reliability.md), not with the OpenMP runtime's line and an abort.

RLIMIT_NPROC does not apply to root, so the CLI runs as the unprivileged user nobody (setpriv) with a limit
of the tasks nobody already has plus 2 (the process itself and one more thread); skipped, with the reason,
where that cannot be arranged. Needs only the CLI (MIXGRAPH_CLI or build/tools/mixgraph)."""

import os
import pathlib
import shutil

import pytest

from nobody_limit import asan_without_leaks, nobody_folder, run_limited, tasks_of

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("MIXGRAPH_CLI") or str(ROOT / "build" / "tools" / "mixgraph")
if not os.path.exists(CLI):
    pytest.skip("the mixgraph CLI is not built (set MIXGRAPH_CLI)", allow_module_level=True)


@pytest.fixture
def as_nobody():
    with nobody_folder("mixgraph-nproc-", "the CLI") as (nobody, d):
        exe = os.path.join(d, "mixgraph")
        shutil.copy2(CLI, exe)  # the build tree may not be readable by nobody
        os.chmod(exe, 0o755)
        env = dict(os.environ, ASAN_OPTIONS=asan_without_leaks(os.environ))

        def run(args, limit):
            return run_limited(nobody, d, [exe, *args], limit, env)

        run.uid = nobody.pw_uid
        probe = run(["--version"], None)
        if probe.returncode != 0:  # e.g. a shared library of the build tree that nobody cannot read
            pytest.skip(f"the CLI does not run as the user nobody here: {probe.stderr.strip()[:200]}")
        yield run


def test_thread_limit_gives_the_cli_message(as_nobody):
    args = ["distances", "-p", "sq1+cache", "-n", "1024", "--all-pairs", "--summary", "--threads", "8"]
    limit = tasks_of(as_nobody.uid) + 2
    r = as_nobody(args, limit)
    if r.returncode == 0:
        pytest.skip(f"the limit of {limit} tasks did not bind here (other tasks of nobody came and went?)")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1, r.stderr
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("mixgraph: error: cannot start 8 worker threads"), r.stderr
    assert "ulimit -u" in lines[0] and "give --threads" in lines[0], r.stderr
    assert "libgomp" not in r.stderr
    # the limit was the cause: the same run with the threads it names succeeds
    fewer = lines[0].split("give --threads ")[1].split()[0]
    ok = as_nobody([*args[:-1], fewer], limit)
    assert ok.returncode == 0, ok.stderr
