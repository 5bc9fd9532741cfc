"""Helpers for the monitor tests: ``bench monitor`` as its own process (the
address it announces read with a timeout), and what a journal (or a series
of them) recorded: its rounds, its verdicts, its bytes each way."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def monitor_process(*args):
    """``bench monitor ARGS``; yields (process, the first stdout line); killed afterwards if still running."""
    proc = subprocess.Popen([sys.executable, "-m", "bench.cli", "monitor", *map(str, args)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = select.select([proc.stdout], [], [], 30)[0]
        assert ready, "bench monitor said nothing within 30 s"
        first = proc.stdout.readline().strip()
        yield proc, first
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def finished(proc, timeout: float = 30.0) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def records(journals) -> list[dict]:
    found = []
    for journal in journals:
        found += [json.loads(line) for line in Path(journal).read_text().splitlines() if line.strip()]
    return found


def verdicts(journals) -> list[tuple]:
    """(round, clause, message) of every verdict the journals hold, sorted."""
    return sorted((v["round"], v["clause"], v["message"]) for r in records(journals) for v in r.get("verdicts") or ())


def bytes_each_way(journals) -> dict[str, bytes]:
    """Every byte the journals recorded, by direction, in order."""
    out = {"tx": b"", "rx": b""}
    for record in records(journals):
        for row in record.get("wire") or ():
            out[row[0]] += row[5].encode("latin-1")
    return out
