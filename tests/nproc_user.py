"""Running a command as the unprivileged user nobody under a process limit (RLIMIT_NPROC, `ulimit -u`): the
thread-limit tests of the CLI (tests/python_cli/) and of the Python package (tests/python/) share it.
RLIMIT_NPROC does not bind root, hence the other user; its limit counts the tasks (threads) the user owns."""

import os
import pwd
import shutil

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


def nobody_or_skip(what):
    """The user nobody's passwd entry; skips, with the reason, where `what` cannot run as nobody."""
    if os.geteuid() != 0:
        pytest.skip(f"needs root to run {what} as an unprivileged user (RLIMIT_NPROC does not bind root)")
    if not shutil.which("setpriv"):
        pytest.skip("setpriv (util-linux) is not installed")
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("there is no user nobody")


def as_user(user, limit, argv):
    """The command line that runs argv as `user` (no groups) with at most `limit` tasks (None: no limit)."""
    script = 'exec "$0" "$@"' if limit is None else f'ulimit -u {limit} && exec "$0" "$@"'
    return ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "bash", "-c",
            script, *argv]
