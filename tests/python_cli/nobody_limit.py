"""Running a command as the unprivileged user nobody under a process/thread limit (ulimit -u, RLIMIT_NPROC),
for the thread-limit tests of the CLI (tests/python_cli/test_thread_limit.py) and of the Python package
(tests/python/test_thread_limit.py). RLIMIT_NPROC does not apply to root, hence setpriv; every check that
cannot be arranged here skips the test with the reason. Needs nothing built."""

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile

import pytest


def tasks_of(uid):
    """Threads (tasks) now owned by uid: what RLIMIT_NPROC counts."""
    n = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid:
                n += len(os.listdir(f"/proc/{pid}/task"))
        except OSError:
            pass
    return n


@contextlib.contextmanager
def nobody_folder(prefix, what):
    """(user, folder): the user nobody and a fresh folder it can read, removed afterwards; skips the test
    (`what` names what would run) where nobody cannot be used."""
    if os.geteuid() != 0:
        pytest.skip(f"needs root to run {what} as an unprivileged user (RLIMIT_NPROC does not bind root)")
    if not shutil.which("setpriv"):
        pytest.skip("setpriv (util-linux) is not installed")
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("there is no user nobody")
    d = tempfile.mkdtemp(prefix=prefix)
    os.chmod(d, 0o755)
    try:
        yield nobody, d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def make_readable(d):
    """Everything under d readable (and executable) by nobody."""
    for root, dirs, files in os.walk(d):
        for x in dirs + files:
            os.chmod(os.path.join(root, x), 0o755)


def run_limited(nobody, cwd, argv, limit, env):
    """argv run as nobody in cwd, with at most `limit` tasks of nobody's (None: no limit)."""
    script = 'exec "$0" "$@"' if limit is None else f'ulimit -u {limit} && exec "$0" "$@"'
    cmd = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups", "bash", "-c",
           script, *argv]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


def asan_without_leaks(env):
    """ASAN_OPTIONS of env plus detect_leaks=0: in the sanitizer build LeakSanitizer starts a thread at exit,
    which the process limit forbids (the leak check is left to the other tests)."""
    return (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
