"""bench run through an adapter (docs/adapters.md): against the emulated
controller speaking the example protocol a session passes, and fails naming
the clause under a misbehaviour; replay decodes the journal's raw vendor
bytes again with the adapter the header names and agrees; a lossy link is
survived by the adapter's own retries."""

from __future__ import annotations

import json

import pytest

from bench.adapters.registry import AdapterError
from bench.cli import main
from bench.journal.replay import replay
from bench.play.players import PlayerMix
from bench.session.runner import SessionConfig, run_session

ADAPTER = "ascii-sentence"


def session(tmp_path, name="out", **kw):
    return run_session(SessionConfig(out=str(tmp_path / name), seed=kw.pop("seed", 11), progress=False,
                                     adapter=ADAPTER, plant="dice", **kw))


def wire(journal):
    rows = []
    for line in journal.read_text().splitlines():
        rows += json.loads(line).get("wire") or []
    return rows


@pytest.mark.parametrize("game", ["lightning-dice", "lightning-roulette"])
def test_a_compliant_controller_speaking_the_example_protocol_passes_and_replays(tmp_path, game):
    outcome = session(tmp_path, game=game, rounds=4)
    assert (outcome.ending, outcome.status) == ("completed", 0), outcome.oracle.violations
    header = json.loads(outcome.journal.read_text().splitlines()[0])
    assert (header["adapter"], header["adapter_version"]) == (ADAPTER, "1.0")
    sent = [row for row in wire(outcome.journal) if row[1] == "send"]
    # The journal keeps the vendor's bytes, and the message decoded from them.
    assert all(row[5].startswith("BN|") and row[5].endswith("|END\r\n") for row in sent)
    assert {row[6]["type"] for row in sent} >= {"HELLO", "WAGER", "CLOSE", "TRIGGER", "SENSOR"}
    replayed = replay(outcome.journal, expected_head=outcome.head, redecode=True)
    assert replayed.intact and replayed.passed and replayed.redecoded > 100


def test_a_misbehaving_controller_fails_naming_its_clause_and_replay_agrees(tmp_path):
    outcome = session(tmp_path, game="lightning-dice", rounds=3, misbehave="lucky-odds-out-of-range")
    clauses = {v.clause for v in outcome.oracle.violations}
    assert outcome.status == 1 and "625b.2(g)(3)" in clauses
    replayed = replay(outcome.journal, expected_head=outcome.head)
    assert replayed.intact and (replayed.ending, replayed.exit_status) == (outcome.ending, outcome.status)
    assert sorted(v.clause for v in replayed.oracle.violations) == sorted(v.clause for v in outcome.oracle.violations)


def test_a_lossy_line_is_survived_by_the_adapters_retries(tmp_path):
    outcome = session(tmp_path, game="sic-bo", rounds=3, probes=False, probe_wagers=False,
                      players=PlayerMix.default("sic-bo", 4),
                      emulator_args=("--fault", "corrupt=0.04", "--fault", "drop=0.04"))
    assert outcome.status == 0, (outcome.round_failures, outcome.oracle.violations)
    kinds = [row[1] for row in wire(outcome.journal)]
    assert "retransmit" in kinds or "rejected" in kinds          # the faults happened, and were repaired


def test_an_unknown_adapter_is_bad_input_in_one_line(tmp_path, capsys):
    with pytest.raises(AdapterError, match="no such adapter is installed .*ascii-sentence"):
        run_session(SessionConfig(out=str(tmp_path / "o"), adapter="acme-wheel", progress=False))
    assert main(["run", "--adapter", "acme-wheel", "--out", str(tmp_path / "p"), "--rounds", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "acme-wheel" in err[0] and not (tmp_path / "p" / "session.jsonl").exists()


def test_replay_without_the_adapter_installed_says_which_to_install(tmp_path, capsys):
    outcome = session(tmp_path, game="lightning-dice", rounds=1, probes=False)
    lines = outcome.journal.read_text().splitlines()
    header = json.loads(lines[0])
    header["adapter"] = "acme-wheel"                 # a journal from a machine with an adapter this one lacks
    forged = tmp_path / "other.jsonl"
    forged.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")
    assert main(["replay", str(forged)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "acme-wheel" in err[0] and "not installed" in err[0]
