"""The oracle's one feed (bench.oracle.feed): a session judged live, its
journal replayed and its report read judge the same frames, so a verdict
names the same frame in all three, on a noisy link where the journal holds
retransmissions, duplicates and damaged bytes the oracle must pass over."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from bench.journal.chain import WIRE_COLUMNS
from bench.journal.replay import replay
from bench.oracle import feed
from bench.report.session_facts import read_session
from bench.session.runner import SessionConfig, run_session

# A misbehaviour that breaks a clause in every round, on a link that damages,
# drops and repeats frames (bench.emulator.faults), from fixed seeds.
NOISE = ("--fault", "corrupt=0.05", "--fault", "duplicate=0.1", "--fault", "drop=0.03")


@pytest.fixture(scope="module")
def noisy_session(tmp_path_factory):
    out = tmp_path_factory.mktemp("noisy")
    config = SessionConfig(game="lightning-dice", rounds=4, seed=5, out=str(out), progress=False, plant="dice",
                           misbehave="lucky-odds-out-of-range", emulator_args=NOISE)
    return run_session(config)


def verdicts(oracle):
    return [(v.clause, v.round, v.frame, v.message) for v in oracle.violations]


def test_the_feed_reads_the_journals_columns():
    """The feed reads a wire row by place; the journal's schema names them."""
    assert feed.ROW_WIDTH == len(WIRE_COLUMNS)
    places = {"dir": feed.DIR, "frame": feed.FRAME, "mono": feed.MONO, "wall": feed.WALL, "raw": feed.RAW,
              "message": feed.MESSAGE}
    assert {name: WIRE_COLUMNS[place] for name, place in places.items()} == {name: name for name in places}


def test_only_first_sends_and_accepted_messages_are_judged():
    message = {"type": "WAGER"}
    rows = [["tx", kind, 1.0, 2.0, 0.0, "$x*0000", message, None]
            for kind in ("send", "retransmit", "ack", "nak")]
    rows += [["rx", kind, 1.0, 2.0, 0.0, "$x*0000", message, None]
             for kind in ("message", "duplicate", "ack", "nak", "rejected", "out-of-order")]
    rows += [["rx", "message", 1.0, 2.0, 0.0, "$x*0000", None, None]]        # no message decoded
    judged = list(feed.judged_rows(rows))
    assert [(j.index, j.direction, j.problem) for j in judged] == [(0, "tx", None), (4, "rx", None)]


def test_a_hand_made_row_is_named_and_not_judged():
    rows = [["tx", "send", "soon", 2.0, 0.0, "$x*0000", {"type": "WAGER"}, None], ["tx", "send"]]
    assert [j.problem for j in feed.judged_rows(rows)] == [
        "not a frame as a bench records one: its monotonic time is str", "not a frame of 8 columns"]


def test_live_and_replayed_verdicts_are_the_same_on_a_noisy_link(noisy_session):
    outcome = noisy_session
    records = [json.loads(line) for line in outcome.journal.read_text().splitlines()]
    kinds = Counter((row[0], row[1]) for r in records for row in r.get("wire", ()))
    # the noise reached the journal: frames the feed must pass over
    assert kinds[("tx", "retransmit")] + kinds[("rx", "duplicate")] + kinds[("rx", "rejected")] > 0, kinds
    live = verdicts(outcome.oracle)
    assert {clause for clause, *_ in live} >= {"625b.2(g)(3)"}, live   # the misbehaviour was caught
    replayed = replay(outcome.journal, outcome.head)
    assert replayed.chain.ok and not replayed.decode_problems
    assert verdicts(replayed.oracle) == live
    assert replayed.oracle.frames == outcome.oracle.frames
    assert sum(kinds[k] for k in feed.JUDGED_FRAMES) >= outcome.oracle.frames


def test_a_verdict_names_the_same_frame_live_and_in_the_report(noisy_session):
    """The journal's verdicts say where their frame is (written live); the
    report, reading the journal, finds each verdict's frame in the same place."""
    outcome = noisy_session
    records = [json.loads(line) for line in outcome.journal.read_text().splitlines()]
    placed = {v["frame"]: (v["record"], v["wire"]) for r in records for v in r.get("verdicts", ())
              if v["frame"] is not None}
    assert placed
    facts = read_session(outcome.journal, outcome.head)
    assert {index: (facts.frames[index].record, facts.frames[index].place) for index in placed} == placed
