"""Writers reached from Python under a file-size limit (RLIMIT_FSIZE): the write fails with a Python exception
that names the file and says "File too large", and no temporary file or staging folder is left, both with
CPython's own SIGXFSZ disposition (ignored) and with the default one restored by the user (which would
otherwise kill the interpreter)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

mixgraph = pytest.importorskip("mixgraph", reason="the mixgraph Python package is not built / not on PYTHONPATH")

from conftest import child_env  # noqa: E402


CHILD = textwrap.dedent(
    r"""
    import json, os, resource, signal, sys
    import mixgraph
    if sys.argv[1] == "default":
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_FSIZE, (20000, resource.RLIM_INFINITY))
    try:
        mixgraph.report("rep", ["pow2"], 16)
        out = {"raised": None}
    except Exception as e:
        out = {"raised": type(e).__name__, "message": str(e),
               "runtime": isinstance(e, RuntimeError), "mixgraph": isinstance(e, mixgraph.MixgraphError)}
    out["left"] = sorted(os.listdir("."))
    print(json.dumps(out), flush=True)
    """
)


@pytest.mark.parametrize("disposition", ["python", "default"])
def test_report_past_the_file_size_limit(tmp_path, disposition):
    r = subprocess.run([sys.executable, "-c", CHILD, disposition], cwd=tmp_path, env=child_env(),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"the interpreter died (rc {r.returncode}): {r.stderr[-1000:]}"
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["raised"] is not None and out["mixgraph"] and out["runtime"], out
    assert "File too large" in out["message"] and "error while writing" in out["message"], out
    assert out["left"] == [], out  # no rep/, no .rep.staging.*, no .*.tmp.*
    # the limit was the cause: the same report without it is written whole
    mixgraph.report(tmp_path / "rep", ["pow2"], 16)
    assert (tmp_path / "rep" / "report.json").exists()
