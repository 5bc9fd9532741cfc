"""The oracle's log of every round settled gives back what it was given, in
order, however many of its blocks went to its temporary file (issue 42:
memory flat over any session), and loses nothing when the file cannot be
written."""

from __future__ import annotations

import random
import tempfile
from dataclasses import replace

import pytest

from bench.oracle.records import RoundSummary
from bench.oracle.round_log import RoundLog
from bench.rules import Lucky


def _summaries(count: int, seed: int = 7) -> list[RoundSummary]:
    rng = random.Random(seed)
    rounds = []
    for n in range(1, count + 1):
        kind = rng.random()
        outcome = (None if kind < 0.05 else rng.randrange(37) if kind < 0.3
                   else ((rng.randint(1, 6), rng.randint(1, 6)), (rng.randint(1, 2), rng.randint(1, 2))) if kind < 0.4
                   else tuple(rng.randint(1, 6) for _ in range(3)))
        lucky = tuple(Lucky(f"total:{rng.randint(4, 17)}", rng.choice((49, 99, 149, 999)))
                      for _ in range(rng.choice((0, 2, 3, 4))))
        throws = ({"dice": [rng.randint(1, 6) for _ in range(3)], "flat": [True, True, rng.random() < 0.9]},)
        rounds.append(RoundSummary(round=n, outcome=outcome, no_roll=rng.random() < 0.02, lucky=lucky,
                                   staked=rng.randrange(0, 10**6), returned=rng.randrange(0, 10**7),
                                   expected=rng.randrange(0, 10**7), wagers=rng.randrange(20),
                                   violations=rng.randrange(3), throws=throws))
    rounds[11] = replace(rounds[11], returned=10**30)     # a controller's absurd SETTLE: past 64 bits
    return rounds


def _logged(rounds: list[RoundSummary], block_rows: int) -> RoundLog:
    log = RoundLog(block_rows=block_rows)
    for summary in rounds:
        log.append(summary)
    return log


def test_every_round_comes_back_as_it_went_in_across_written_blocks():
    rounds = _summaries(1000)
    log = _logged(rounds, block_rows=64)
    assert log._written, "the test needs blocks on the file"
    assert len(log) == 1000 and list(log) == rounds
    assert log[11].returned == 10**30
    assert log[-1] == rounds[-1] and log[500] == rounds[500] and log[63] == rounds[63] and log[64] == rounds[64]
    assert log[100:260:3] == rounds[100:260:3]
    with pytest.raises(IndexError):
        log[1000]


def test_memory_keeps_one_block_of_rows_however_many_rounds(monkeypatch):
    log = _logged(_summaries(3000), block_rows=100)
    assert len(log._tail.columns["round"]) == 3000 % 100
    assert len(log._written) == 30 and not log._kept
    # the kinds are the values seen, not the rounds: 3 dice, a pocket, a roll pair, Lucky Numbers
    assert len(log._lucky.values) <= 14 * 4


def test_a_file_that_cannot_be_written_keeps_every_round_in_memory(monkeypatch):
    rounds = _summaries(500)
    log = RoundLog(block_rows=50)
    for summary in rounds[:120]:
        log.append(summary)
    assert len(log._written) == 2

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(log._file, "write", full)
    for summary in rounds[120:]:
        log.append(summary)
    assert len(log._written) == 2 and len(log._kept) == 8
    assert list(log) == rounds


def test_no_temporary_folder_at_all_loses_nothing(monkeypatch):
    def none(*args, **kwargs):
        raise FileNotFoundError(2, "No usable temporary directory found")
    monkeypatch.setattr(tempfile, "TemporaryFile", none)
    rounds = _summaries(300)
    log = _logged(rounds, block_rows=40)
    assert list(log) == rounds and not log._written


def test_a_long_session_adds_no_memory_a_round():
    """25,600 more rounds, once every kind of outcome and reading has been seen,
    add only their blocks' places: memory is flat (a list of the summaries grew
    about 135 bytes a round, 3.4 MB here)."""
    import tracemalloc
    rounds = _summaries(30_720)
    log = RoundLog(block_rows=1024)
    for summary in rounds[:5120]:
        log.append(summary)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for summary in rounds[5120:]:
        log.append(summary)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert len(log) == 30_720 and len(log._written) == 30 and log[30_000] == rounds[30_000]
    assert grown < 64_000, f"{grown} bytes for 25,600 rounds"
