"""The records of a monitor's run: when it stops by itself (``Limits``:
a time, a count of rounds, of relayed host connections) and what it came to
(``MonitorOutcome``: its ending and exit status, its rounds and violations,
its journal parts, reports, faults and what could not be written).

Apart from the watcher's loop (``bench.monitor.watch``): plain values its
callers (``bench monitor``, the tests, the benchmarks) make and read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Limits:
    """When a monitor stops by itself (otherwise: a signal, or a line lost)."""
    seconds: float | None = None
    rounds: int | None = None
    connections: int | None = None     # relay: stop when this many host connections have ended


@dataclass
class MonitorOutcome:
    ending: str
    status: int
    reason: str | None
    rounds: int
    voided: int
    violations: dict[str, int]
    journals: list[tuple[Path, str]]       # (file, head) of every part
    reports: int                           # interval reports written
    dropped: dict[str, int] = field(default_factory=dict)
    faults: dict[str, int] = field(default_factory=dict)     # monitoring faults by kind
    unjudged_rounds: int = 0               # rounds the tap lost sight of: journalled, not judged
    missing: list[str] = field(default_factory=list)          # files that could not be written
