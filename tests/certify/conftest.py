"""Tiny plans for the certify tests: few rounds, few drops, the emulated controller."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.journal.keys import new_key

TINY = """\
plan: 1
lab: Test Lab
controller: {{url: emulated{misbehave}}}
game: lightning-dice
submission: lightning-dice
designs: [standard]
jurisdiction: pennsylvania
conformance: {{run: {conformance}, protocol: 2}}     # both versions: tests/conformance
scenarios: {{run: {scenarios}, seed: 7}}
sessions: {{count: {sessions}, rounds: {rounds}, first_seed: 1}}
validate: {{runs: {runs}}}
edge: {{runs: {edge}}}
recognize: {{frames: {frames}}}
rng: {{run: {rng}, collect: {collect}}}
campaigns: {{workers: 1}}
"""


def tiny_plan(folder: Path, *, misbehave: str | None = None, conformance: bool = False, scenarios: bool = True,
              sessions: int = 1, rounds: int = 4, runs: int = 0, edge: int = 0, frames: int = 0,
              collect: int | None = None, name: str = "plan.yaml") -> Path:
    """A plan as small as its test needs; ``collect``: the RNG step, with that many values collected over
    the link from the emulated controller (None: no RNG step)."""
    path = folder / name
    path.write_text(TINY.format(misbehave=f", misbehave: {misbehave}" if misbehave else "",
                                conformance=str(conformance).lower(), scenarios=str(scenarios).lower(),
                                sessions=sessions, rounds=rounds, runs=runs, edge=edge, frames=frames,
                                rng=str(collect is not None).lower(), collect=collect or 0))
    return path


def certify(*args, timeout: float = 240) -> subprocess.CompletedProcess:
    """``bench certify`` as a user runs it, in a process of its own."""
    return subprocess.run([sys.executable, "-m", "bench.cli", "certify", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ, PYTHONUNBUFFERED="1"))


def start(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bench.cli", "certify", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="session")
def bench_key(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("key") / "bench"
    new_key(folder, sessions=64)
    return folder
