"""One process at a time on a file: an exclusive advisory lock on an open
file descriptor, released by the operating system when the process dies
(``kill -9`` included), so that a crashed run never looks like a live one.

The only module that touches the platform's locking: ``fcntl.flock`` on
POSIX, ``msvcrt.locking`` on the file's first byte on Windows (where
``fcntl`` does not exist), imported when a lock is taken, so that importing
tablebench never needs either (docs/controller-testing.md, "Windows").
"""

from __future__ import annotations

import os
import sys
import time

WAIT_POLL_S = 0.05      # Windows has no blocking lock without a timeout: it is polled


def try_lock(fd: int) -> bool:
    """Take the lock without waiting: True if taken, False if another process holds it."""
    try:
        import fcntl
    except ImportError:
        return _windows_lock(fd)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:      # BlockingIOError where the lock is held; EWOULDBLOCK or EACCES on some systems
        return False
    return True


def lock(fd: int) -> None:
    """Take the lock, waiting as long as another process holds it."""
    try:
        import fcntl
    except ImportError:
        while not _windows_lock(fd):
            time.sleep(WAIT_POLL_S)
        return
    fcntl.flock(fd, fcntl.LOCK_EX)


def _windows_lock(fd: int) -> bool:
    import msvcrt      # the platform's own: no fcntl means Windows here
    if sys.platform != "win32":
        # Not reached, msvcrt being Windows' alone; the check tells mypy, run on another platform, which stubs apply.
        raise ImportError("msvcrt is only on Windows")
    os.lseek(fd, 0, os.SEEK_SET)
    try:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True
