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
import time
from contextlib import contextmanager
from typing import Iterator

from bench.errors import BenchError

ANNOUNCE_TIMEOUT_S = 30.0


@contextmanager
def emulated_controller(game: str, *, seed: int, listen: str = "pty", submission: str | None = None,
                        misbehave: str | None = None, extra: tuple[str, ...] = (),
                        stderr_path: str | None = None) -> Iterator[str]:
    """Yield the URL of a freshly started emulated controller."""
    cmd = [sys.executable, "-m", "bench.cli", "emulate", "--game", game, "--listen", listen, "--seed", str(seed)]
    if submission:
        cmd += ["--submission", submission]
    if misbehave:
        cmd += ["--misbehave", misbehave]
    cmd += list(extra)
    errors = open(stderr_path, "ab") if stderr_path else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errors, stdin=subprocess.DEVNULL)
    try:
        line = _announcement(proc)
        if not line.startswith("listening "):
            raise BenchError(f"bench emulate did not announce an address: {line!r}")
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
        if stderr_path:
            errors.close()


def _announcement(proc: subprocess.Popen) -> str:
    deadline = time.monotonic() + ANNOUNCE_TIMEOUT_S
    buffer = b""
    while not buffer.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
            raise BenchError(f"bench emulate announced no address within {ANNOUNCE_TIMEOUT_S:.0f} s")
        chunk = os.read(proc.stdout.fileno(), 256)
        if not chunk:
            raise BenchError(f"bench emulate exited with status {proc.wait(timeout=3)} before listening")
        buffer += chunk
    return buffer.decode(errors="replace").splitlines()[0].strip()
