"""Every session is bounded: wagers a round by what the protocol and the
phases carry, the journal and the judged frames by a ceiling past which the
session ends as a link fault with every file, memory flat over long
sessions, JUnit and the report bounded however many violations there are."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from bench.cli import main as bench_main
from bench.emulator.misbehaviours import Policy
from bench.emulator.threaded import threaded_controller
from bench.journal.replay import replay
from bench.journal.wire_budget import MAX_WAGERS
from bench.rules.submission import default_rules
from bench.session.runner import SessionConfig, run_session
from tablebench_io.commandline import Exit


def said(capsys) -> list[str]:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return [line for line in captured.err.splitlines() if line and not line.startswith("pybullet build time")]


@pytest.mark.parametrize("wagers", [MAX_WAGERS + 1, 20_000, 1_000_000, 0])
def test_more_wagers_a_round_than_the_protocol_carries_are_refused_at_once(capsys, tmp_path, wagers):
    started = time.process_time()    # CPU seconds: no million wagers made first (a loaded machine's wall clock is no bound)
    status = bench_main(["run", "--players", "random", "--wagers", str(wagers), "--rounds", "1",
                         "--out", str(tmp_path / "s")])
    lines = said(capsys)
    assert status == Exit.BAD_INPUT and len(lines) == 1, lines
    assert f"--wagers {wagers}" in lines[0] and f"1 to {MAX_WAGERS}" in lines[0], lines
    assert time.process_time() - started < 5 and not (tmp_path / "s").exists()     # nothing started


class SettleFlood(Policy):
    """A controller that settles each round's first wager again ``extra``
    times over: valid frames, in sequence, each one judged (issue 26 probed
    it at 49,000 a round)."""

    name = "settle-flood"

    def __init__(self, extra: int):
        self.extra = extra

    def settle_frames(self, ctrl, wagers, returned):
        frames = super().settle_frames(ctrl, wagers, returned)
        return frames + frames[:1] * self.extra


def flooded_session(tmp_path, extra: int, rounds: int = 3, **config):
    rules = default_rules("lightning-dice")
    with threaded_controller("lightning-dice", rules, seed=5, policy=SettleFlood(extra)) as url:
        return run_session(SessionConfig(controller=url, rounds=rounds, seed=5, out=str(tmp_path / "s"),
                                         progress=False, probes=False, plant="dice", **config))


def assert_every_file_and_replay_agrees(outcome):
    out = Path(outcome.config.out)
    for name in ("session.jsonl", "session.head", "summary.json", "junit.xml"):
        assert (out / name).exists(), name
    replayed = replay(outcome.journal, expected_head=outcome.head)
    assert replayed.intact, replayed.structure_problems
    assert (replayed.ending, replayed.exit_status) == (outcome.ending, outcome.status)
    return replayed


def test_a_flood_of_valid_messages_ends_the_session_as_a_link_fault_with_every_file(tmp_path):
    outcome = flooded_session(tmp_path, extra=5_000)
    assert (outcome.ending, outcome.status) == ("link-lost", Exit.LINK), outcome.reason
    assert "link flooded" in outcome.reason and "messages in one round" in outcome.reason
    assert_every_file_and_replay_agrees(outcome)
    assert outcome.journal.stat().st_size < 2_000_000      # the flood is cut at its first thousand messages


def test_repeated_violations_are_counted_not_listed_in_junit_and_the_report(tmp_path):
    """500 extra SETTLEs a round (under the flood ceiling): 1,500 violations of one clause."""
    from bench.report.page import read_session, render
    outcome = flooded_session(tmp_path, extra=500)
    assert outcome.ending == "violation"
    assert outcome.summary.violations_by_clause["625b.2(d)(6)"] >= 1_500
    assert len(outcome.oracle.violations) <= 100 and outcome.oracle.violation_count >= 1_500
    junit = (Path(outcome.config.out) / "junit.xml").read_text()
    cases = ET.fromstring(junit).findall("testcase")
    assert [c.get("name") for c in cases] == ["round 1", "round 2", "round 3"]
    assert all("violations in this round (every one is in the journal)" in c.find("failure").text for c in cases)
    assert "… and 490 more" in cases[0].find("failure").text          # ten written out, the rest counted
    assert len(junit) < 30_000, len(junit)
    page = render(read_session(outcome.journal, outcome.head))
    assert len(page) < 600_000, len(page)
    assert f"{outcome.oracle.violation_count} violations of 1 clause" in page
    assert_every_file_and_replay_agrees(outcome)


@pytest.mark.parametrize("ceiling", ["max_frames", "max_journal_bytes"])
def test_past_its_ceiling_a_session_ends_as_a_link_fault_with_every_file(tmp_path, ceiling):
    limit = {"max_frames": 500, "max_journal_bytes": 60_000}[ceiling]
    outcome = run_session(SessionConfig(rounds=20, seed=5, out=str(tmp_path / "s"), progress=False, probes=False,
                                        plant="dice", **{ceiling: limit}))
    assert (outcome.ending, outcome.status) == ("link-lost", Exit.LINK)
    assert "ceiling" in outcome.reason and ("--max-frames" in outcome.reason or "--max-journal-mb" in outcome.reason)
    assert 0 < len(outcome.oracle.rounds) < 20
    assert_every_file_and_replay_agrees(outcome)
    if ceiling == "max_journal_bytes":
        assert outcome.journal.stat().st_size < limit + 40_000     # a round past it, and the session's end


_MEASURE_ROUNDS = """
import gc, sys, tracemalloc
from bench.journal.recorder import Recorder
from bench.play.players import PlayerMix
from bench.session.runner import SessionConfig, run_session
sizes = {}
original = Recorder.on_round_end

def measured(self, round_no, failure, **fields):
    original(self, round_no, failure, **fields)
    if round_no in (60, 120):
        gc.collect()
        sizes[round_no] = tracemalloc.get_traced_memory()[0]

Recorder.on_round_end = measured
tracemalloc.start()
run_session(SessionConfig(rounds=120, seed=5, out=sys.argv[1], progress=False, probes=False,
                          plant="dice", players=PlayerMix.default("lightning-dice", 10)))
print((sizes[120] - sizes[60]) / 60)
"""


def test_memory_stays_flat_over_a_long_session(tmp_path):
    """What an honest round leaves behind once it is journalled: nothing that
    grows with the rounds (27 KB a round before: answered wagers' queues,
    every judged frame's place, refused wagers' offers). Measured in a fresh
    process: in a test worker, caches other tests left cold fill in the
    measured rounds and read as growth."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", _MEASURE_ROUNDS, str(tmp_path / "s")], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    per_round = float(done.stdout.strip().splitlines()[-1])
    assert per_round < 2_500, f"{per_round:.0f} bytes a round"
