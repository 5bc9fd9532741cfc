"""A monitor's journals: a series of files, each a journal ``bench replay``
verifies and judges on its own (its header, its oracle from the first round
it holds, its session-end record, its head file and, with a key, its seals),
rotated when it passes a size or an age.

``DIR/monitor-0001.jsonl`` (and ``.head``), ``monitor-0002.jsonl``, ... Each
header names the file before it and that file's head, so the series is
chained as a whole: a file removed from the middle shows. A new file starts
only at a round's boundary (the OPEN of the next round, the previous one
cleared), so that every round is judged whole in one file.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from bench.journal.chain import JournalWriter
from bench.journal.ending import write_durably
from bench.journal.recorder import Recorder
from bench.journal.seal import sealer_for
from bench.oracle import Oracle
from tablebench_io.commandline import signals_held

PREFIX = "monitor-"


def part_name(number: int) -> str:
    return f"{PREFIX}{number:04d}.jsonl"


@dataclass
class Part:
    number: int
    path: Path
    writer: JournalWriter
    oracle: Oracle
    recorder: Recorder
    opened: float                   # monotonic
    seal: dict | None

    @property
    def head_path(self) -> Path:
        return self.path.with_suffix(".head")

    def size(self) -> int:
        try:
            return os.path.getsize(self.path)
        except OSError:
            return 0


class Series:
    def __init__(self, out: Path, *, header: dict, game: str, rules, reply_s: float, key: str | None,
                 seal_every: int, rotate_bytes: int, rotate_s: float, clock=time.monotonic):
        if rotate_bytes < 4096:
            raise ValueError(f"--rotate-mb: a journal of at least 4 KiB, got {rotate_bytes} bytes")
        if not rotate_s > 0:
            raise ValueError(f"--rotate-hours must be positive, got {rotate_s / 3600!r}")
        self.out = Path(out)
        self.header = header
        self.game, self.rules, self.reply_s = game, rules, reply_s
        self.key, self.seal_every = key, seal_every
        self.rotate_bytes, self.rotate_s = rotate_bytes, rotate_s
        self.clock = clock
        self.parts: list[tuple[Path, str]] = []      # (file, head) of every part finished
        self.part: Part | None = None

    def open(self) -> Part:
        """A new part, its header written. SIGINT and SIGTERM wait for the file
        and ``self.part`` together: between them, the monitor's end found no
        part open and opened the same file again, which a sealed journal refuses."""
        with signals_held():
            return self._open()

    def _open(self) -> Part:
        number = len(self.parts) + 1
        path = self.out / part_name(number)
        sealer = sealer_for(self.key, self.seal_every)
        writer = JournalWriter(path, defer_fsync=True, sealer=sealer)
        previous = self.parts[-1] if self.parts else None
        monitor = {"part": number, "previous": previous[0].name if previous else None,
                   "previous_head": previous[1] if previous else None}
        writer.append("session", seal=sealer.header if sealer else None, monitor=monitor, **self.header)
        writer.sync()
        oracle = Oracle(self.game, self.rules, response_timeout=self.reply_s)
        seal = {"fingerprint": sealer.fingerprint, "session": sealer.session, "every": sealer.every} if sealer else None
        self.part = Part(number, path, writer, oracle, Recorder(writer, oracle), self.clock(), seal)
        return self.part

    def due(self) -> bool:
        """Past its size or its age: the next round boundary starts a new file."""
        part = self.part
        if part is None:
            raise RuntimeError("the monitor has no journal part open")
        return part.size() >= self.rotate_bytes or self.clock() - part.opened >= self.rotate_s

    def close(self) -> str:
        """Close the current part (its session-end record already written); its
        head goes beside it. A part whose final seal or fsync failed (a full
        disk) still gets its head, the head of what it holds, and the error.
        SIGINT and SIGTERM wait for all of it: between ``self.part = None`` and
        the head, the part's head was lost."""
        with signals_held():
            return self._close()

    def _close(self) -> str:
        part, self.part = self.part, None
        if part is None:
            raise RuntimeError("the monitor has no journal part open")
        error = None
        try:
            part.writer.close()
        except OSError as err:
            error = err
        head = part.writer.head
        self.parts.append((part.path, head))
        write_durably(part.head_path, head + "\n")
        if error is not None:
            raise error
        return head
