"""A console script's command run through its own ``main`` in the test's
process: its exit status and what it writes to stdout and stderr, as a
process would give them (a ``subprocess.CompletedProcess``), without an
interpreter's start-up a call. A test of the command's contract as a user
runs it keeps a process of its own."""

from __future__ import annotations

import io
import subprocess
from contextlib import redirect_stderr, redirect_stdout


def bench(*args: object) -> subprocess.CompletedProcess[str]:
    """``bench ARGS...`` in this process."""
    from bench.cli import main
    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    return subprocess.CompletedProcess(["bench", *argv], status, out.getvalue(), err.getvalue())
