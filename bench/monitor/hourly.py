"""The monitor's report per interval (an hour unless ``--report-every`` says
otherwise): rounds seen, rounds voided, violations by clause, frames, bytes
and rejected frames each way, connections; and what the monitor could not
judge: monitoring faults by kind, messages the tap did not hear, rounds not
judged, bytes the copy dropped (the judge behind the link) and bytes heard
after the judge failed, each counted in the interval it happened in. One
JSON line an interval in ``DIR/hourly.jsonl`` (fsynced: it survives a crash)
and one line of text for the person watching."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.monitor.sources import CONTROLLER, HOST
from tablebench_io.commandline import signals_held


@dataclass
class Tally:
    started_wall: float
    rounds: int = 0
    voided: int = 0
    violations: Counter = field(default_factory=Counter)
    frames: Counter = field(default_factory=Counter)       # by sender
    bytes: Counter = field(default_factory=Counter)        # by sender
    rejected: Counter = field(default_factory=Counter)     # by sender
    dropped: Counter = field(default_factory=Counter)      # bytes the copy dropped, by sender
    flooded: Counter = field(default_factory=Counter)      # frames past a flooded round's ceiling, by sender
    connections: int = 0
    mismatched_hellos: int = 0       # controller HELLOs naming other rules than the monitor judges by
    faults: Counter = field(default_factory=Counter)       # monitoring faults, by kind (bench.monitor.faults)
    unheard: Counter = field(default_factory=Counter)      # messages that crossed the link, not intact to the tap
    unjudged_rounds: int = 0         # rounds the tap lost sight of: journalled, not judged
    unjudged_bytes: Counter = field(default_factory=Counter)   # bytes heard and not judged (the judge failed or stopped)

    def as_json(self, ended_wall: float) -> dict:
        return {"from": _iso(self.started_wall), "to": _iso(ended_wall),
                "seconds": round(ended_wall - self.started_wall, 3), "rounds": self.rounds, "voided": self.voided,
                "violations": dict(sorted(self.violations.items())),
                "frames": {s: self.frames[s] for s in (HOST, CONTROLLER)},
                "bytes": {s: self.bytes[s] for s in (HOST, CONTROLLER)},
                "rejected": {s: self.rejected[s] for s in (HOST, CONTROLLER)},
                "dropped_bytes": {s: self.dropped[s] for s in (HOST, CONTROLLER)},
                "flooded_frames": {s: self.flooded[s] for s in (HOST, CONTROLLER)},
                "connections": self.connections, "mismatched_hellos": self.mismatched_hellos,
                "monitoring_faults": dict(sorted(self.faults.items())),
                "unheard_messages": {s: self.unheard[s] for s in (HOST, CONTROLLER)},
                "unjudged_rounds": self.unjudged_rounds,
                "unjudged_bytes": {s: self.unjudged_bytes[s] for s in (HOST, CONTROLLER)}}


def _append_whole(path: Path, data: bytes) -> None:
    """One line appended and fsynced, or nothing: a write that fails part-way
    (a full disk) is cut back, so that the file stays one report a line and
    the interval can be written again once there is room."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except OSError:
            try:
                os.ftruncate(fd, size)
            except OSError:
                pass
            raise
    finally:
        os.close(fd)


def _iso(wall: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(wall))


def line(report: dict) -> str:
    """One line for a person: the interval, rounds, violations by clause and monitoring faults by kind."""
    violations = report["violations"]
    said = ", ".join(f"{clause} x{n}" for clause, n in violations.items()) if violations else "none"
    faults = report.get("monitoring_faults") or {}
    not_judged = (f"; monitoring faults: {', '.join(f'{kind} x{n}' for kind, n in faults.items())}, "
                  f"{report.get('unjudged_rounds', 0)} rounds not judged" if faults else "")
    return (f"{report['from']} .. {report['to']}: {report['rounds']} rounds ({report['voided']} voided), "
            f"violations: {said}; frames host {report['frames'][HOST]} controller {report['frames'][CONTROLLER]}, "
            f"rejected {sum(report['rejected'].values())}, dropped {sum(report['dropped_bytes'].values())} bytes"
            + not_judged)


class Hourly:
    def __init__(self, path: Path, every_s: float, *, clock=time.monotonic, wall=time.time):
        if not every_s > 0:
            raise ValueError(f"--report-every must be a positive number of seconds, got {every_s!r}")
        self.path = Path(path)
        self.every_s = every_s
        self.clock, self.wall = clock, wall
        self.tally = Tally(wall())
        self.totals = Tally(self.tally.started_wall)
        self._next = clock() + every_s
        self.intervals = 0

    def due(self) -> bool:
        return self.clock() >= self._next

    def emit(self) -> dict:
        """Close the interval: its report is written, returned, and a new one begins."""
        ended = self.wall()
        report = self.tally.as_json(ended)
        # The line and the new interval together: a SIGTERM between them had the end report
        # the same interval again, counted twice.
        with signals_held():
            _append_whole(self.path, (json.dumps(report, sort_keys=True) + "\n").encode())
            self.intervals += 1
            self.tally = Tally(ended)
            self._next = self.clock() + self.every_s
        return report

    # -- counting (each goes into the interval and the totals) ----------------------
    def count(self, attribute: str, key: str | None = None, n: int = 1) -> None:
        for tally in (self.tally, self.totals):
            if key is None:
                setattr(tally, attribute, getattr(tally, attribute) + n)
            else:
                getattr(tally, attribute)[key] += n
