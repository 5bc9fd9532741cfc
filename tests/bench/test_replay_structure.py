"""Without the head, replay still checks the structure a bench writes: the
header first, rounds in order, exactly one session-end record and nothing
after it; and the status the journal claims against the one its rounds give."""

import json

import pytest

from bench.journal.chain import JournalWriter
from bench.journal.replay import replay
from bench.session.runner import SessionConfig, run_session
from tests import console


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("session")
    return run_session(SessionConfig(game="sic-bo", rounds=3, seed=5, out=str(out / "s"), progress=False,
                                     probes=False))


def records_of(recorded):
    return [json.loads(line) for line in recorded.journal.read_text().splitlines()]


def rewrite(records, path):
    """``records`` as a new, internally consistent hash chain (what a forger can do without the head)."""
    with JournalWriter(path) as journal:
        for record in records:
            journal.append(record["kind"], **{k: v for k, v in record.items()
                                              if k not in ("kind", "seq", "prev", "hash")})
    return path


def test_the_untouched_journal_is_intact(recorded):
    outcome = replay(recorded.journal)
    assert outcome.intact and outcome.passed and outcome.ending == "completed"


@pytest.mark.parametrize("change", ["after-end", "two-ends", "end-in-the-middle", "rounds-swapped",
                                    "second-header", "status-changed", "verdict-dropped"])
def test_a_rechained_journal_out_of_shape_fails(recorded, tmp_path, change):
    records = records_of(recorded)
    end, rounds = records[-1], [r for r in records if r["kind"] == "round"]
    if change == "after-end":
        records.append(rounds[-1])
    elif change == "two-ends":
        records.append(end)
    elif change == "end-in-the-middle":
        records.insert(2, end)
    elif change == "rounds-swapped":
        records[1], records[2] = records[2], records[1]
    elif change == "second-header":
        records.insert(2, records[0])
    elif change == "status-changed":
        rounds[1]["failure"] = "round 2: no message ('SETTLED',) from the controller within 3.0 s"
    elif change == "verdict-dropped":
        rounds[0]["verdicts"] = [{"clause": "625a.6(b)(2)", "message": "forged", "round": 1, "frame": None,
                                  "record": None, "wire": None}]
    path = rewrite(records, tmp_path / "j.jsonl")
    outcome = replay(path)
    assert outcome.chain.ok, "the forger's chain is consistent"
    assert not outcome.intact and outcome.exit_status == 1 and not outcome.passed
    result = console.bench("replay", path)
    assert result.returncode == 1 and "structure:" in result.stdout and "FAIL" in result.stdout


def test_a_journal_cut_off_before_its_end_fails_saying_so(recorded, tmp_path):
    path = rewrite(records_of(recorded)[:-1], tmp_path / "j.jsonl")
    outcome = replay(path)
    assert outcome.ending == "cut-off" and outcome.exit_status == 1
    assert any("cut off" in note for note in outcome.notes)


@pytest.mark.parametrize("header", [{"kind": "session"}, {"kind": "session", "game": 7},
                                    {"kind": "session", "game": "poker"},
                                    {"kind": "session", "game": "sic-bo", "phases": {"reply_s": "soon"}},
                                    {"kind": "session", "game": "sic-bo", "paytable": ["x"]}])
def test_a_header_without_a_game_it_can_judge_is_refused_in_one_line(tmp_path, header):
    path = rewrite([header], tmp_path / "j.jsonl")
    result = console.bench("replay", path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert "j.jsonl: line 1:" in result.stderr


def test_a_header_naming_a_device_as_its_submission_is_not_read(tmp_path):
    """/dev/zero never ends: replay must not try to digest it."""
    path = rewrite([{"kind": "session", "game": "sic-bo", "paytable": "A", "submission": "/dev/zero",
                     "submission_sha256": "0" * 64}], tmp_path / "j.jsonl")
    result = console.bench("replay", path)
    assert result.returncode == 1 and "/dev/zero" in result.stdout and "judged by the regulation" in result.stdout
