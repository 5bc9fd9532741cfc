"""A session stops quickly however long it ran (issue 45, item 8): its report
is built from facts gathered as the journal was written
(``bench.report.live_facts``), not from the journal read again, and it is
the page ``bench replay --report`` writes from the journal, byte for byte."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.journal.chain import verify_journal
from bench.report import live_facts, session_facts
from bench.report.page import render, write_session_report
from bench.report.session_facts import read_session
from bench.session import runner
from bench.session.runner import SessionConfig, run_session
from tablebench_io.commandline import Exit

FILES = ("session.jsonl", "session.head", "summary.json", "junit.xml", "report.html")


def play(tmp_path, name="out", **kw):
    config = SessionConfig(out=str(tmp_path / name), seed=kw.pop("seed", 21), progress=False, plant="dice",
                           rounds=kw.pop("rounds", 20), probes=kw.pop("probes", False), **kw)
    return run_session(config)


def interrupt_in_round(monkeypatch, round_no: int) -> None:
    """SIGINT or SIGTERM (a KeyboardInterrupt) while round ``round_no`` is in
    flight: after its players' wagers, before the plant has read."""
    from bench.session.cycle import RoundCycle
    real = RoundCycle._read

    def read(self, number, attempt, throw):
        if number >= round_no:
            raise KeyboardInterrupt("SIGTERM")
        return real(self, number, attempt, throw)
    monkeypatch.setattr(RoundCycle, "_read", read)


def the_same_page_as_replay(outcome) -> str:
    live = render(outcome.report_facts())
    assert live == render(read_session(outcome.journal, outcome.head)), \
        "bench run's report is not the page bench replay --report writes from the journal"
    return live


@pytest.mark.parametrize("case", ["violations", "interrupted", "sealed"])
def test_the_report_from_the_session_s_own_facts_is_the_replayed_page(tmp_path, monkeypatch, case):
    if case == "violations":
        # Staged no rolls settled on the faces: violations in the few rounds the page shows in full.
        outcome = play(tmp_path, misbehave="pay-on-no-roll", probes=True, rounds=12)
        assert outcome.oracle.violation_count
    elif case == "interrupted":
        interrupt_in_round(monkeypatch, 9)
        outcome = play(tmp_path, misbehave="five-lucky-numbers")
        assert outcome.ending == "interrupted" and 9 in outcome.round_failures
    else:
        from bench.journal.keys import new_key
        new_key(tmp_path / "key", sessions=2)
        outcome = play(tmp_path, key=str(tmp_path / "key" / "bench.key"), seal_every=3, rounds=10)
        assert outcome.seal is not None
    page = the_same_page_as_replay(outcome)
    assert 'id="verdict"' in page


def test_a_record_read_half_when_the_session_was_stopped_sends_the_report_to_the_journal(tmp_path, monkeypatch):
    """A stop that lands while a record's facts are being gathered would leave
    them wrong: the report is then read from the journal, and still right."""
    real = live_facts.LiveFacts._read

    def read(self, offset, record):
        if record.get("kind") == "round" and record.get("round") == 6:
            raise KeyboardInterrupt("SIGTERM")
        return real(self, offset, record)
    monkeypatch.setattr(live_facts.LiveFacts, "_read", read)
    read_whole = []
    monkeypatch.setattr(session_facts, "read_session",
                        lambda *a, **k: read_whole.append(a) or read_session(*a, **k))
    outcome = play(tmp_path)
    assert outcome.ending == "interrupted"
    monkeypatch.setattr(live_facts.LiveFacts, "_read", real)
    the_same_page_as_replay(outcome)
    assert read_whole, "the report was built from facts gathered half"


def test_the_report_of_a_long_session_costs_what_a_short_one_s_does(tmp_path, monkeypatch):
    """Its facts gathered as the journal was written, the report of 300
    rounds reads again only the records it shows (those of a few rounds with
    violations), where reading it from the journal replays all 300."""
    parsed = []
    real_parse = live_facts._parse
    monkeypatch.setattr(live_facts, "_parse", lambda line: parsed.append(len(line)) or real_parse(line))
    outcome = play(tmp_path, misbehave="pay-on-no-roll", probes=True, rounds=300, seed=5)
    assert outcome.oracle.violation_count and outcome.ending == "violation"
    started = time.process_time()
    facts = outcome.report_facts()
    live_cpu = time.process_time() - started
    started = time.process_time()
    again = read_session(outcome.journal, outcome.head)
    read_cpu = time.process_time() - started
    assert render(facts) == render(again)
    journal_bytes = outcome.journal.stat().st_size
    # The violations are in the staged rounds, all among the first 40: what is read again does not
    # grow with the 260 honest rounds after them.
    assert 0 < sum(parsed) < journal_bytes / 5, (sum(parsed), journal_bytes)
    # Growth, not time: against reading the journal, in the same process (measured: a fifteenth at 300 rounds).
    assert live_cpu < read_cpu / 4, (live_cpu, read_cpu)


def test_the_report_s_facts_are_gathered_at_the_bench_s_idle_moments_not_after(tmp_path, monkeypatch):
    """While the session plays, at most one record waits to be read for the
    report: the rest was read as it was written."""
    waiting = []
    real = runner._Play.round_end

    def round_end(self, round_no, failure, **fields):
        real(self, round_no, failure, **fields)
        waiting.append(len(self.live._queue))
    monkeypatch.setattr(runner._Play, "round_end", round_end)
    play(tmp_path, rounds=30)
    assert len(waiting) == 30 and max(waiting) <= 1, waiting


def _rounds_in(journal: Path) -> int:
    return journal.read_bytes().count(b'"kind":"round"') if journal.exists() else 0


def test_sigterm_ends_a_long_session_with_every_file(tmp_path):
    """SIGTERM after a few hundred rounds: exit 4 with the journal ended and
    verified, summary.json, junit.xml and the whole report, the page replay
    writes from the journal."""
    out = tmp_path / "out"
    bench = subprocess.Popen([sys.executable, "-m", "bench.cli", "run", "--rounds", "100000", "--seed", "4",
                              "--no-probes", "--plant", "dice", "--out", str(out)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    # Hang guards, not bounds on the bench's speed (250 rounds take 8 s here), and together well
    # inside pytest's own timeout: a bench that stalls or ignores SIGTERM fails this test with its
    # stderr, and is killed, rather than outliving it and its worker.
    try:
        deadline = time.monotonic() + 120
        while _rounds_in(out / "session.jsonl") < 250 and bench.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        played = _rounds_in(out / "session.jsonl")
        bench.send_signal(signal.SIGTERM)
        try:
            _, stderr = bench.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the bench had not ended 90 s after SIGTERM (at round {played})")
    finally:
        if bench.poll() is None:
            os.killpg(bench.pid, signal.SIGKILL)
            bench.communicate(timeout=10)
    assert played >= 250, f"only {played} rounds in 120 s: {stderr}"
    assert bench.returncode == Exit.INTERRUPTED, stderr
    for name in FILES:
        assert (out / name).exists(), f"{name} missing: {stderr}"
    head = (out / "session.head").read_text().strip()
    chain = verify_journal(out / "session.jsonl", expected_head=head)
    assert chain.ok and chain.ended
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ending"] == "interrupted" and summary["rounds"] >= 250
    assert '<testcase classname="bench.lightning-dice" name="session"><error' in (out / "junit.xml").read_text()
    again = write_session_report(out / "session.jsonl", tmp_path / "replayed.html", head)
    assert (out / "report.html").read_bytes() == again.read_bytes()
    assert "warning" not in stderr and "short" not in stderr


def test_a_long_session_s_table_of_rounds_shows_its_start_its_end_and_its_violations():
    from types import SimpleNamespace

    from bench.report.page import ROUNDS_FIRST, ROUNDS_LAST, ROUNDS_MARKED, _rounds_shown
    violating = {400, 5_000, 12_345}
    rounds = [SimpleNamespace(round=n, violations=int(n in violating)) for n in range(1, 20_001)]
    shown = _rounds_shown(rounds)
    listed = [item.round for item in shown if not isinstance(item, int)]
    assert listed == (list(range(1, ROUNDS_FIRST + 1)) + sorted(violating)
                      + list(range(20_001 - ROUNDS_LAST, 20_001)))
    assert sum(item for item in shown if isinstance(item, int)) + len(listed) == 20_000
    # However many rounds break a rule, the table stays bounded.
    every = [SimpleNamespace(round=n, violations=1) for n in range(1, 20_001)]
    assert len(_rounds_shown(every)) <= ROUNDS_FIRST + ROUNDS_MARKED + ROUNDS_LAST + 1


def test_a_session_summed_up_twice_goes_over_its_rounds_for_coverage_once(tmp_path, monkeypatch):
    """summary.json and the report's facts each sum the session up: the
    outcome classes' account of every round is made once, and each is given
    its own copy (bench run adds the classes the plan could not stage to its
    own)."""
    from bench.report import summary as summary_module
    outcome = play(tmp_path, probes=True, rounds=12)
    made = []
    real = summary_module.coverage
    monkeypatch.setattr(summary_module, "coverage", lambda *a, **k: made.append(1) or real(*a, **k))
    oracle = outcome.oracle
    first = summary_module.summarise(oracle.game, oracle.rules, oracle, {}, {}, staged=True)
    first.coverage.unstaged["a-class"] = "why"
    second = outcome.report_facts().summary
    assert len(made) <= 1, "the rounds were gone over again for the outcome classes"
    assert second.coverage is not first.coverage and "a-class" not in second.coverage.unstaged
    assert second.coverage.covered == first.coverage.covered and second.coverage.rounds == 12


def test_junit_cases_of_passed_rounds_are_elementtree_s_own(tmp_path):
    """A passed round's case is written from a text made once per outcome:
    byte for byte what ElementTree writes for it, beside failed rounds' cases."""
    import xml.etree.ElementTree as ET

    from bench.oracle import PHASE_CLAUSES
    from bench.report import summary as summary_module
    outcome = play(tmp_path, misbehave="pay-on-no-roll", probes=True, rounds=12)
    summary = outcome.summary
    assert summary.violation_count and any(not summary.clauses_by_round.get(r.round) for r in summary.played)
    assert not summary.failures          # a case a round played, in order
    cases = list(summary_module._junit_text(summary, "bench run", None, None))[1:-1]
    judged_by = sorted(set(PHASE_CLAUSES[summary.game].values()))
    for played, case in zip(summary.played, cases):
        if summary.clauses_by_round.get(played.round):
            assert "<failure" in case
            continue
        expected = ET.Element("testcase", classname=f"bench.{summary.game}", name=f"round {played.round}")
        summary_module._properties(expected, judged_by, outcome=summary_module._outcome_words(played))
        assert case == ET.tostring(expected, encoding="unicode")


def test_sigterm_while_a_record_is_read_for_the_report_waits_until_it_is_read_whole(tmp_path):
    """The signal comes while the report's facts take a record: it is raised
    (as SIGTERM's KeyboardInterrupt) once the record is read whole, and the
    facts stay good."""

    from bench.journal.chain import JournalWriter
    from tablebench_io.commandline import terminate_as_interrupt
    live = live_facts.LiveFacts(tmp_path / "j.jsonl")
    with JournalWriter(tmp_path / "j.jsonl") as journal:
        live.written(0, journal.append("session", game="lightning-dice"))
        live.catch_up()
        record = journal.append("round", round=1, wire=[], plants=[], verdicts=[])
    real = live.reader.record

    def record_and_signal(body):
        os.kill(os.getpid(), signal.SIGTERM)        # mid-read
        time.sleep(0.05)
        real(body)
    live.reader.record = record_and_signal
    with terminate_as_interrupt():
        live.written(100, record)
        with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
            live.catch_up()
    assert not live.torn and live.records == 2 and list(live.rounds) == [live_facts.NO_ROUND, 1]
