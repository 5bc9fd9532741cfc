"""How a session ended, and the exit status that says so.

``bench run`` writes the ending in the journal's ``session-end`` record and
exits with its status; ``bench replay`` works the same ending out again from
the journal with ``verdict`` and exits with the same status, so that a run
and its replay cannot disagree on what happened.
"""

from __future__ import annotations

import os
from pathlib import Path

from tablebench_io.commandline import Exit

COMPLETED = "completed"            # every round played and compliant
VIOLATION = "violation"            # every round played; the oracle found a violation
FAILED_ROUNDS = "failed-rounds"    # every round played; some failed or were voided
LINK_LOST = "link-lost"            # the controller died, went silent or flooded the link
INTERRUPTED = "interrupted"        # SIGINT or SIGTERM
CRASHED = "crashed"                # the bench failed (a bug)
REFUSED = "refused"                # the controller refused the session or runs another game
DISK_FULL = "disk-full"            # the disk holding the session's folder filled up

# A session stopped early: the ending overrides what the rounds came to.
# The statuses are the one exit-status table of both scripts (``tablebench_io.commandline.Exit``).
STOPPED_STATUS = {REFUSED: Exit.BAD_INPUT, CRASHED: Exit.INTERNAL, INTERRUPTED: Exit.INTERRUPTED,
                  LINK_LOST: Exit.LINK, DISK_FULL: Exit.DISK_FULL}
STATUS = {COMPLETED: Exit.OK, VIOLATION: Exit.VIOLATION, FAILED_ROUNDS: Exit.VIOLATION, **STOPPED_STATUS}


def verdict(stopped: str | None, violations: int, failed_rounds: int) -> tuple[str, int]:
    """(ending, exit status) of a session that stopped early (``stopped``, one
    of ``STOPPED_STATUS``) or played every round (None)."""
    if stopped is not None:
        if stopped not in STOPPED_STATUS:
            raise ValueError(f"not an early ending: {stopped!r}")
        ending = stopped
    elif violations:
        ending = VIOLATION
    elif failed_rounds:
        ending = FAILED_ROUNDS
    else:
        ending = COMPLETED
    return ending, STATUS[ending]


def write_durably(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` so that a crash leaves either the old file or
    the new one, never a torn one: a temporary file beside it, fsynced,
    renamed over it, and the folder fsynced so that the rename itself stays."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)     # a full disk leaves neither a torn file nor its temporary
        raise
    fsync_folder(path.parent)


def fsync_folder(folder: str | os.PathLike[str]) -> None:
    """Make a file created or renamed in ``folder`` survive a power loss: the
    folder's own entry list is flushed too."""
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
