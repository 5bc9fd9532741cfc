"""The emulated controller in its own process: start ``bench emulate``, read
the address it announces, and always stop it afterwards.

This is how the embedded default works: the emulated controller sits behind a
real link (a pty where the system has them, else a TCP port on the loopback:
Windows), never behind a function call.

The child is started with ``python -P``: the working directory is not put
first on its ``sys.path``, so a project's own ``bench/`` package (a common
name) never stands in for tablebench's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager
from typing import Iterator, Sequence

from bench.errors import BenchError
from bench.protocol.link import pty_available

ANNOUNCE_TIMEOUT_S = 30.0
MAX_ANNOUNCEMENT = 4096       # bytes of the child's first line read at most
PR_SET_PDEATHSIG = 1          # linux/prctl.h


def default_listen() -> str:
    """Where the emulated controller listens unless told: a fresh pty, or where
    the system has none (Windows) a free TCP port on the loopback."""
    return "pty" if pty_available() else "127.0.0.1:0"


def child_command(*args: str) -> list[str]:
    """``bench ARGS`` as a child process of this Python, whatever the working
    directory holds (``-P``: it is not put on ``sys.path``)."""
    return [sys.executable, "-P", "-m", "bench.cli", *args]


@contextmanager
def emulator_process(args: Sequence[str], *, listen: str | None = None,
                     stderr_path: str | None = None) -> Iterator[str]:
    """Run ``bench emulate ARGS --listen LISTEN`` (``default_listen()`` unless
    given) and yield the URL it announces; stop it afterwards whatever
    happened. Its stderr goes to ``stderr_path`` (or a temporary file) and
    is quoted if it fails to start."""
    cmd = child_command("emulate", *args, "--listen", listen or default_listen())
    errors = open(stderr_path, "ab") if stderr_path else tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errors, stdin=subprocess.DEVNULL,
                            preexec_fn=_die_with_parent(os.getpid()))
    assert proc.stdout is not None, "started with stdout=PIPE"
    try:
        line = _announcement(proc, errors)
        if not line.startswith("listening "):
            raise BenchError(f"bench emulate did not announce an address: {line!r}{_tail(errors)}")
        yield line.split(" ", 1)[1]
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=3)
        proc.stdout.close()
        errors.close()


@contextmanager
def emulated_controller(game: str, *, seed: int, listen: str | None = None, submission: str | None = None,
                        misbehave: str | None = None, extra: tuple[str, ...] = (),
                        stderr_path: str | None = None) -> Iterator[str]:
    """Yield the URL of a freshly started emulated controller for ``game``."""
    args = ["--game", game, "--seed", str(seed)]
    if submission:
        args += ["--submission", submission]
    if misbehave:
        args += ["--misbehave", misbehave]
    with emulator_process([*args, *extra], listen=listen, stderr_path=stderr_path) as url:
        yield url


def _die_with_parent(parent: int):
    """For the child, before it runs: on Linux, ask the kernel to kill it when
    the bench dies, however it dies (``kill -9`` included), so that no
    emulated controller is left holding a pty or a port. Where prctl is not
    available the bench's own clean-up (SIGTERM, then SIGKILL) is all."""
    if not sys.platform.startswith("linux"):
        return None

    def arm() -> None:
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            return
        if os.getppid() != parent:      # the bench died before the request took effect
            os._exit(1)
    return arm


def _tail(errors) -> str:
    try:
        errors.flush()
        errors.seek(max(0, errors.seek(0, os.SEEK_END) - 2000))
        text = errors.read().decode(errors="replace").strip()
    except (OSError, ValueError):
        return ""
    return f"; its stderr: {text}" if text else ""


def _announcement(proc: subprocess.Popen, errors) -> str:
    """The child's first line, waited for at most ANNOUNCE_TIMEOUT_S. Read on a
    thread: a pipe cannot be waited on with select() everywhere (Windows)."""
    lines: list[bytes] = []
    stdout = proc.stdout
    assert stdout is not None, "emulator_process starts the child with stdout=PIPE"
    reader = threading.Thread(target=lambda: lines.append(stdout.readline(MAX_ANNOUNCEMENT)), daemon=True)
    reader.start()
    reader.join(ANNOUNCE_TIMEOUT_S)
    if reader.is_alive():          # the caller's clean-up stops the child, which ends the read
        raise BenchError(f"bench emulate announced no address within {ANNOUNCE_TIMEOUT_S:.0f} s{_tail(errors)}")
    if not lines or not lines[0].endswith(b"\n"):
        raise BenchError(f"bench emulate exited with status {proc.wait(timeout=3)} before listening"
                         f"{_tail(errors)}")
    return lines[0].decode(errors="replace").strip()
