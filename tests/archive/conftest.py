"""Short labelled journals for the archive's tests, made once per test run:
bench run against the emulated controller with the fair-dice plant, a few
rounds each (the archive's work is per journal, not per round)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def bench(*args, cwd=ROOT, timeout=120):
    return subprocess.run([sys.executable, "-m", "bench.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)


@pytest.fixture(scope="session")
def made_journals(tmp_path_factory):
    """Three sessions of 4 rounds: tables T1 and T2 (T1 with a dealer), and T3."""
    root = tmp_path_factory.mktemp("journals")
    made = []
    for seed, table, more in ((1, "T1", ("--dealer", "ann")), (2, "T2", ()), (3, "T3", ())):
        out = root / table
        ran = bench("run", "--plant", "dice", "--rounds", 4, "--seed", seed, "--no-probes", "--out", out,
                    "--table", table, *more)
        assert ran.returncode == 0, ran.stderr
        made.append(out / "session.jsonl")
    return made


@pytest.fixture
def journals(made_journals, tmp_path):
    """Copies a test may change, each with its .head beside it."""
    copies = []
    for journal in made_journals:
        target = tmp_path / "in" / journal.parent.name / journal.name
        target.parent.mkdir(parents=True)
        shutil.copy(journal, target)
        shutil.copy(journal.with_suffix(".head"), target.with_suffix(".head"))
        copies.append(target)
    return copies
