"""A process/thread limit (ulimit -u, RLIMIT_NPROC) below the threads a call asks for: the package raises its
own RuntimeFailure with one line naming the threads that could start (docs/reliability.md), instead of the
OpenMP runtime printing its line and ending the interpreter, or a raw std::system_error.

RLIMIT_NPROC does not apply to root, so a child interpreter runs as the unprivileged user nobody (setpriv)
with a limit of the tasks nobody already has plus 2 (the interpreter and one more thread: the call's
worker); skipped, with the reason, where that cannot be arranged."""

import os
import pathlib
import shutil
import sys
import textwrap

import pytest

mixgraph = pytest.importorskip("mixgraph", reason="the mixgraph Python package is not built / not on PYTHONPATH")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python_cli"))  # shared with the CLI's test
from nobody_limit import asan_without_leaks, make_readable, nobody_folder, run_limited, tasks_of  # noqa: E402

CHILD = textwrap.dedent(
    """
    import sys
    import mixgraph
    try:
        s = mixgraph.distances('sq1+cache', 1024, all_pairs=True, summary=True, threads=int(sys.argv[1]))
        print("ok", s.diameter if hasattr(s, "diameter") else "")
    except mixgraph.RuntimeFailure as e:
        print("RuntimeFailure:", e)
    """
)


@pytest.fixture
def as_nobody():
    with nobody_folder("mixgraph-nproc-py-", "Python") as (nobody, d):
        # the package as imported here (the build tree may not be readable by nobody)
        shutil.copytree(os.path.dirname(mixgraph.__file__), os.path.join(d, "mixgraph"))
        make_readable(d)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": d, "HOME": d,
               "OPENBLAS_NUM_THREADS": "1",  # numpy's BLAS would start its own threads at import
               "ASAN_OPTIONS": asan_without_leaks(os.environ)}

        def run(args, limit):
            return run_limited(nobody, d, [sys.executable, "-c", CHILD, *args], limit, env)

        run.uid = nobody.pw_uid
        probe = run(["1"], None)
        if probe.returncode != 0 or not probe.stdout.startswith("ok"):
            pytest.skip(f"the package does not run as the user nobody here: {probe.stderr.strip()[-300:]}")
        yield run


def test_thread_limit_gives_the_package_error(as_nobody):
    limit = tasks_of(as_nobody.uid) + 2
    r = as_nobody(["8"], limit)
    if r.returncode == 0 and r.stdout.startswith("ok"):
        pytest.skip(f"the limit of {limit} tasks did not bind here (other tasks of nobody came and went?)")
    assert r.returncode == 0, f"the interpreter died (rc {r.returncode}): {r.stderr[-2000:]}"
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("RuntimeFailure: cannot start 8 worker threads"), r.stdout
    assert "ulimit -u" in lines[0] and "give threads=" in lines[0], lines[0]
    assert "libgomp" not in r.stderr and "system_error" not in r.stdout + r.stderr
    # the limit was the cause: the same call with the threads the message names succeeds
    fewer = lines[0].split("give threads=")[1].split()[0]
    ok = as_nobody([fewer], limit)
    assert ok.returncode == 0 and ok.stdout.startswith("ok"), ok.stdout + ok.stderr


def test_no_thread_at_all_gives_the_package_error(as_nobody):
    """Not even the call's worker thread can start (a limit of the tasks nobody has plus 1)."""
    limit = tasks_of(as_nobody.uid) + 1
    r = as_nobody(["1"], limit)
    if r.returncode == 0 and r.stdout.startswith("ok"):
        pytest.skip(f"the limit of {limit} tasks did not bind here (other tasks of nobody came and went?)")
    assert r.returncode == 0, f"the interpreter died (rc {r.returncode}): {r.stderr[-2000:]}"
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("RuntimeFailure: cannot start a worker thread ("), r.stdout
    assert "ulimit -u" in lines[0] and "system_error" not in r.stdout + r.stderr
