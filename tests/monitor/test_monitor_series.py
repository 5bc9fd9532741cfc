"""The monitor's journals and reports, fed with the bytes of a recorded
session (no processes, simulated time): rotation only at round boundaries,
each file replaying on its own and the series giving the session's rounds
and verdicts; a report per interval that adds up; a tap attached in the
middle of a round judging nothing it did not hear whole; a flood of noise on
the controller's line costing bounded journal and no verdict."""

from __future__ import annotations

import json
import os
import random
from collections import Counter

import pytest

from bench.adapters.sentence import AsciiSentence
from bench.journal.keys import new_key
from bench.journal.replay import replay
from bench.monitor.sources import CONTROLLER, Chunk
from bench.monitor.watch import BEFORE_SYNC
from bench.rules.submission import load_submission
from bench.session.runner import SessionConfig, run_session
from tests.monitor.conftest import ROOT, records, verdicts
from tests.monitor.recorded import GAME, chunks, watch


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    root = tmp_path_factory.mktemp("recorded")
    made = {}
    for name, misbehave in (("compliant", None), ("pays-on-no-roll", "pay-on-no-roll")):
        made[name] = run_session(SessionConfig(game=GAME, rounds=6, plant="dice", seed=4, misbehave=misbehave,
                                               out=str(root / name), progress=False))
    return made


def test_journals_rotate_at_round_boundaries_and_each_replays_on_its_own(tmp_path, sessions):
    run = sessions["pays-on-no-roll"]
    outcome, _ = watch(tmp_path, chunks(run.journal), rotate_bytes=4096)
    parts = [path for path, _ in outcome.journals]
    assert len(parts) >= 5, "a 4 KiB limit rotates after nearly every round"
    rounds, found = [], []
    for number, (path, head) in enumerate(outcome.journals, 1):
        again = replay(path, expected_head=head)
        assert again.intact, again.structure_problems + again.decode_problems
        header = json.loads(path.read_text().splitlines()[0])
        assert header["monitor"]["part"] == number
        if number > 1:
            assert (header["monitor"]["previous"], header["monitor"]["previous_head"]) == \
                (parts[number - 2].name, outcome.journals[number - 2][1])
        rounds += [r.round for r in again.oracle.rounds]
        found += [(v.round, v.clause, v.message) for v in again.oracle.violations]
    assert rounds == [r.round for r in run.oracle.rounds]
    assert sorted(found) == verdicts(parts) == verdicts([run.journal])
    assert outcome.status == 1 and outcome.rounds == 6


def test_sealed_journals_are_each_sealed_to_their_end_by_the_key(tmp_path, sessions):
    fingerprint = new_key(tmp_path / "key", sessions=8)
    outcome, _ = watch(tmp_path / "m", chunks(sessions["compliant"].journal), rotate_bytes=8192,
                       key=str(tmp_path / "key" / "bench.key"))
    assert len(outcome.journals) >= 2
    for path, head in outcome.journals:
        again = replay(path, expected_head=head, pubkey=fingerprint)
        assert again.intact and again.passed and again.seals.final and again.seals.unsealed_records == 0


def test_a_report_each_interval_adds_up_to_the_session(tmp_path, sessions):
    run = sessions["pays-on-no-roll"]
    rows = chunks(run.journal)
    outcome, said = watch(tmp_path, rows, every_s=(rows[-1].mono - rows[0].mono) / 4)
    reports = [json.loads(line) for line in (tmp_path / "hourly.jsonl").read_text().splitlines()]
    assert len(reports) >= 3 and outcome.reports == len(reports)
    assert sum(r["rounds"] for r in reports) == 6
    clauses = Counter()
    for report in reports:
        clauses.update(report["violations"])
    assert dict(clauses) == dict(Counter(v.clause for v in run.oracle.violations)) == outcome.violations
    assert sum(r["frames"]["host"] + r["frames"]["controller"] for r in reports) == len(rows)
    assert any("rounds" in line and "625b.2(d)(5)" in line for line in said)


def test_a_tap_attached_mid_round_judges_only_what_it_heard_whole(tmp_path, sessions):
    run = sessions["compliant"]
    rows = chunks(run.journal)
    nomore = next(i for i, c in enumerate(rows) if b" NOMORE round=2" in c.data)
    outcome, _ = watch(tmp_path, rows[nomore + 1:])
    [(journal, head)] = outcome.journals
    again = replay(journal, expected_head=head)
    assert again.intact and again.passed
    assert [r.round for r in again.oracle.rounds] == [3, 4, 5, 6] and outcome.violations == {}
    kinds = Counter(row[1] for record in records([journal]) for row in record.get("wire") or ())
    assert kinds[BEFORE_SYNC] > 10          # round 2's rest: journalled, not judged


def test_a_controller_running_other_rules_than_judged_by_is_said_at_once(tmp_path, sessions):
    other = load_submission(str(ROOT / "fixtures" / "submissions" / "lightning-dice.yaml"))
    outcome, said = watch(tmp_path, chunks(sessions["compliant"].journal), rules=other)
    warnings = [line for line in said if "WARNING" in line]
    assert len(warnings) == 1 and "its rules digest is default" in warnings[0]
    [(journal, _)] = outcome.journals
    notes = [note for record in records([journal]) for note in record.get("monitor_notes") or ()]
    assert notes and "rules digest" in notes[0]


def test_traffic_in_another_wire_format_is_said_to_be_so(tmp_path, sessions):
    outcome, said = watch(tmp_path, chunks(sessions["compliant"].journal), adapter=AsciiSentence())
    assert (outcome.ending, outcome.status, outcome.rounds) == ("link-lost", 3, 0)
    assert "not one frame of ascii-sentence/1.0" in outcome.reason


def test_a_flood_of_noise_costs_bounded_journal_and_no_verdict(tmp_path, sessions):
    run = sessions["compliant"]
    rows = chunks(run.journal)
    at = next(i for i, c in enumerate(rows) if b" OPEN round=3" in c.data)
    noise = random.Random(1).randbytes(2_000_000).replace(b"$", b"#")
    flood = [Chunk(CONTROLLER, noise[i:i + 65536], rows[at].mono, rows[at].wall) for i in range(0, len(noise), 65536)]
    outcome, _ = watch(tmp_path, rows[:at + 1] + flood + rows[at + 1:])
    [(journal, head)] = outcome.journals
    assert os.path.getsize(journal) < os.path.getsize(run.journal) + 1_200_000     # noise kept: 1 MiB at most
    again = replay(journal, expected_head=head)
    assert again.intact and again.passed and [r.round for r in again.oracle.rounds] == [1, 2, 3, 4, 5, 6]
    assert outcome.status == 0
