"""A console script's command run through its own ``main`` in the test's
process: its exit status and what it writes to stdout and stderr, as a
process would give them (a ``subprocess.CompletedProcess``), without an
interpreter's start-up a call. A test of the command's contract as a user
runs it keeps a process of its own.

What the command writes below Python (a C library printing to file
descriptor 1 or 2, as PyBullet does) is caught too and added to the
stream's text, so that "one line on stderr" is judged on everything a user
would see. The call's time is bounded by pytest's own timeout (pyproject's
``timeout``): a second alarm here would replace pytest-timeout's."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tempfile
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from typing import Iterator


@contextmanager
def _descriptor_caught(fd: int, into: list[str]) -> Iterator[None]:
    """Whatever is written to ``fd`` meanwhile, appended to ``into`` as text."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(fd)
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), fd)
        try:
            yield
        finally:
            os.dup2(saved, fd)
            os.close(saved)
            caught.seek(0)
            into.append(caught.read().decode(errors="replace"))


def bench(*args: object) -> subprocess.CompletedProcess[str]:
    """``bench ARGS...`` in this process."""
    from bench.cli import main
    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    below_out: list[str] = []
    below_err: list[str] = []
    with _descriptor_caught(1, below_out), _descriptor_caught(2, below_err), \
            redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    return subprocess.CompletedProcess(["bench", *argv], status, out.getvalue() + "".join(below_out),
                                       err.getvalue() + "".join(below_err))
