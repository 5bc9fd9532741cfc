"""The folder a session writes into (``bench run --out``), held for the whole
session so that no journal is ever lost.

A folder that already holds a session is refused, and so is one whose session
is still running: a lock file (``session.lock``, holding the pid) that the
running bench keeps locked (``tablebench_io.locking``). The system drops the lock when its
process dies, even by ``kill -9``, so a crashed session's folder is not taken
for a running one. ``force=True`` moves a finished or crashed session aside
under a new name (``DIR.old-1``, ``DIR.old-2``, ...) and starts afresh; a
running session is never moved.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from bench.errors import BenchError
from tablebench_io.locking import try_lock

LOCK = "session.lock"
# What a session leaves in its folder: any of them means the folder is taken.
SESSION_FILES = ("session.jsonl", "session.head", "summary.json", "junit.xml")


def _lock(folder: Path) -> int:
    """The folder's lock, taken without waiting; BenchError if a running session holds it."""
    fd = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    if not try_lock(fd):
        try:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "another process"
        finally:
            os.close(fd)
        raise BenchError(f"{folder}: --out: a session is running in this folder (pid {holder}); "
                         "choose another --out") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
    return fd


def _release(folder: Path, fd: int) -> None:
    try:
        os.unlink(folder / LOCK)
    except OSError:
        pass
    os.close(fd)


def _aside(folder: Path) -> Path:
    n = 1
    while (target := folder.with_name(f"{folder.name}.old-{n}")).exists():
        n += 1
    return target


@contextmanager
def claimed(folder: str | os.PathLike[str], *, force: bool = False) -> Iterator[Path | None]:
    """Hold ``folder`` for a session; yields where an earlier session was moved
    (with ``force``), or None. Raises BenchError (one line) if the folder holds
    a session and ``force`` is not given, or a session is running in it."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise BenchError(f"{folder}: --out: not a folder")
    fd: int | None      # the folder's lock; None while the folder is moved aside and not yet locked again
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = _lock(folder)
    except OSError as err:      # under a regular file, a read-only file system, no permission
        raise BenchError(f"{folder}: --out: cannot write a session here: {err.strerror or err}") from None
    moved = None
    try:
        taken = [name for name in SESSION_FILES if (folder / name).exists()]
        if taken:
            if not force:
                raise BenchError(f"{folder}: --out: the folder holds a session ({', '.join(taken)}); "
                                 "choose another --out, or --force to move it aside")
            moved = _aside(folder)
            # Renamed with the lock held: the old folder (and its lock file) goes
            # aside whole; a fresh folder and lock take its place.
            try:
                folder.rename(moved)
            except OSError as err:
                raise BenchError(f"{folder}: --force: cannot move the session aside to {moved}: "
                                 f"{err.strerror or err}") from None
            old_fd, fd = fd, None
            _release(moved, old_fd)
            try:
                folder.mkdir(parents=True, exist_ok=True)
                fd = _lock(folder)
            except OSError as err:
                raise BenchError(f"{folder}: --out: cannot write a session here: {err.strerror or err}") from None
        yield moved
    finally:
        if fd is not None:
            _release(folder, fd)


RESERVE = ".disk-reserve"
RESERVE_BYTES = 1024 * 1024


class Reserve:
    """Room kept on the session's disk for its ending: a file of
    ``RESERVE_BYTES`` (allocated, not merely sized) made when the session
    starts and removed when it ends, or at once when the disk fills, so that
    the session-end record, the head, the summary and JUnit still fit. A disk
    too full to hold it at the start goes without."""

    def __init__(self, folder: Path):
        self.path: Path | None = Path(folder) / RESERVE     # None: no reserve (none made, or released)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        except OSError:
            self.path = None
            return
        try:
            os.posix_fallocate(fd, 0, RESERVE_BYTES)
        except (OSError, AttributeError):     # no room, or a file system without fallocate: no reserve
            os.close(fd)
            self.release()
            return
        os.close(fd)

    def release(self) -> None:
        if self.path is not None:
            try:
                os.unlink(self.path)
            except OSError:
                pass
            self.path = None
