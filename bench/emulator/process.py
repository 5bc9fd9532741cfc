"""The emulated controller in its own process: start ``bench emulate``, read
the address it announces, and always stop it afterwards.

This is how the embedded default works: the emulated controller sits behind a
real link (a pty by default), never behind a function call.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from typing import Iterator, Sequence

from bench.errors import BenchError

ANNOUNCE_TIMEOUT_S = 30.0
PR_SET_PDEATHSIG = 1          # linux/prctl.h


@contextmanager
def emulator_process(args: Sequence[str], *, listen: str = "pty",
                     stderr_path: str | None = None) -> Iterator[str]:
    """Run ``bench emulate ARGS --listen LISTEN`` and yield the URL it
    announces; stop it afterwards whatever happened. Its stderr goes to
    ``stderr_path`` (or a temporary file) and is quoted if it fails to start."""
    cmd = [sys.executable, "-m", "bench.cli", "emulate", *args, "--listen", listen]
    errors = open(stderr_path, "ab") if stderr_path else tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errors, stdin=subprocess.DEVNULL,
                            preexec_fn=_die_with_parent(os.getpid()))
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
def emulated_controller(game: str, *, seed: int, listen: str = "pty", submission: str | None = None,
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
    deadline = time.monotonic() + ANNOUNCE_TIMEOUT_S
    buffer = b""
    while not buffer.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
            raise BenchError(f"bench emulate announced no address within {ANNOUNCE_TIMEOUT_S:.0f} s{_tail(errors)}")
        chunk = os.read(proc.stdout.fileno(), 256)
        if not chunk:
            raise BenchError(f"bench emulate exited with status {proc.wait(timeout=3)} before listening"
                             f"{_tail(errors)}")
        buffer += chunk
    return buffer.decode(errors="replace").splitlines()[0].strip()
