"""One machine-readable shape for every command that reports (issue 41,
docs/json.md): ``--json`` writes JSON Lines, each with the ``schema`` of its
kind (``tablebench.replay/1``) and its ``record``, the last the verdict with
``passed`` and the exit ``status``; each kind's lines validate against the
JSON Schema shipped in schemas/. Every command is run here as a user runs it,
on the smallest input that gives its real output (a few rounds, one drop)."""

from __future__ import annotations

import argparse
import json
import socket
from pathlib import Path

import pytest

import bench.commands
import twin.commands
from bench.cli import main as bench_main
from tablebench_io.commandline import Exit, build_parser
from tablebench_io.json_lines import load_schema
from tests.json_schemas import assert_json_lines, json_record, json_records
from tests.monitor.conftest import finished, monitor_process
from twin.cli import main as twin_main

REPO = Path(__file__).resolve().parents[2]
# The commands that report nothing to read by a program: what they print is the thing itself.
NOT_REPORTING = {
    "bench docs": "prints a shipped document",
    "bench emulate": "a controller serving a link until stopped; its one line says where to connect",
}
SCRIPTS = {"bench": bench.commands, "twin": twin.commands}


def leaf_commands() -> dict[str, argparse.ArgumentParser]:
    """Every command a user can run, nested ones (bench key show) by their whole name."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(name: str, parser: argparse.ArgumentParser) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            found[name] = parser
            return
        for child, sub in subs[0].choices.items():
            walk(f"{name} {child}", sub)

    for script, commands in SCRIPTS.items():
        walk(script, build_parser(commands, script, ""))
    return found


COMMANDS = leaf_commands()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_that_reports_takes_json_with_a_shipped_schema(name):
    parser = COMMANDS[name]
    options = {o for a in parser._actions for o in a.option_strings}
    if name in NOT_REPORTING:
        assert "--json" not in options, f"{name} has --json now: take it off NOT_REPORTING"
        return
    assert "--json" in options, f"{name}: a command that reports takes --json (docs/json.md)"
    kind = parser.get_default("json_kind")
    if kind is not None:            # set by json_lines.add_json_option: the schema must ship
        schema = load_schema(kind)
        assert schema["properties"]["schema"] == {"const": f"tablebench.{kind}/1"}
        assert "verdict" in schema["properties"]["record"]["enum"]


def run(capfd, main, *args) -> tuple[int, str]:
    status = main([str(a) for a in args])
    out, _ = capfd.readouterr()
    return status, out


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """Two rounds of fair dice, for run's output and replay's input."""
    out = tmp_path_factory.mktemp("json") / "s"
    status = bench_main(["run", "--plant", "dice", "--rounds", "2", "--no-probes", "--seed", "5",
                         "--out", str(out), "--no-progress"])
    assert status == Exit.OK
    return out


def test_run(capfd, tmp_path):
    status, out = run(capfd, bench_main, "run", "--plant", "dice", "--rounds", "2", "--no-probes", "--seed", "5",
                      "--out", tmp_path / "s", "--json")
    assert status == Exit.OK
    summary = json_record(out, "run", "summary")
    verdict = json_record(out, "run", "verdict")
    assert summary["rounds"] == 2 and summary["seed"] == 5
    assert verdict == {**verdict, "passed": True, "status": 0, "ending": "completed"}
    assert json.loads((tmp_path / "s" / "summary.json").read_text())["rounds"] == 2    # the file keeps its shape


def test_replay_says_the_journal_the_summary_and_its_verdict(capfd, session):
    status, out = run(capfd, bench_main, "replay", session / "session.jsonl", "--json")
    assert status == Exit.OK
    said = json_record(out, "replay", "replay")
    verdict = json_record(out, "replay", "verdict")
    assert said["chain"]["ok"] and said["judgement"] == "caution" and said["replayed_at"].endswith("Z")
    assert verdict["judgement"] == "caution" and verdict["passed"] and verdict["anchors"] == []
    assert json_record(out, "replay", "summary")["rounds"] == 2


def test_a_changed_journal_replays_to_a_failed_verdict(capfd, session, tmp_path):
    journal = tmp_path / "changed.jsonl"
    journal.write_bytes((session / "session.jsonl").read_bytes().replace(b'"duration_s":2.0', b'"duration_s":9.0', 1))
    status, out = run(capfd, bench_main, "replay", journal, "--json")
    verdict = json_record(out, "replay", "verdict")
    assert status == Exit.VIOLATION and (verdict["passed"], verdict["status"], verdict["judgement"]) == \
        (False, 1, "fail")


def test_conformance_verdict_says_passed_once(capfd):
    status, out = run(capfd, bench_main, "conformance", "--controller", "emulated", "--protocol", "1",
                      "--check", "rejects-bad-crc", "--json")
    assert status == Exit.OK
    [check] = json_records(out, "conformance", "check")
    verdict = json_record(out, "conformance", "verdict")
    assert check["check"] == "rejects-bad-crc[v1]" and check["status"] == "pass"
    # it said "verdict": true beside "passed": false; the record says it is the verdict now
    assert "verdict" not in verdict and verdict["passed"] is True and verdict["checks"] == 1


def test_monitor_says_where_it_listens_and_ends_with_its_verdict(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    with monitor_process("--game", "lightning-dice", "--relay", "127.0.0.1:0", "--to", f"socket://127.0.0.1:{port}",
                         "--out", tmp_path / "m", "--json") as (proc, first):
        listening = json.loads(first)
        host, relay_port = listening["address"].split("//")[1].split(":")
        with socket.create_connection((host, int(relay_port)), timeout=5):
            status, out, err = finished(proc)
    assert status == Exit.LINK, err
    lines = assert_json_lines(first + "\n" + out, "monitor")
    assert lines[0]["record"] == "listening"
    summary = json_record(first + "\n" + out, "monitor", "summary")
    assert summary["ending"] == "link-lost" and summary["journals"][0]["path"].endswith("monitor-0001.jsonl")
    assert (lines[-1]["passed"], lines[-1]["status"]) == (False, Exit.LINK)


def test_recognize_and_frames(capfd, tmp_path):
    status, out = run(capfd, twin_main, "frames", "towers/standard", "--count", "1", "--out", tmp_path / "f", "--json")
    assert status == Exit.OK and json_record(out, "frames", "summary")["frames"] == 1
    status, out = run(capfd, bench_main, "recognize", tmp_path / "f", "--recognizer", "reference", "--json",
                      "--require", "face_accuracy=0.5")
    scores = json_record(out, "recognize", "scores")
    verdict = json_record(out, "recognize", "verdict")
    assert status == Exit.OK and scores["frames"] == 1 and scores["recognizer"]
    assert verdict["passed"] and verdict["required"] == {"face_accuracy": 0.5} and verdict["unmet"] == []


def test_rtp_a_line_a_submission_and_a_bad_one_named(capfd):
    status, out = run(capfd, bench_main, "rtp", "sic-bo-A", "no-such-submission", "--json")
    [submission] = json_records(out, "rtp", "submission")
    [error] = json_records(out, "rtp", "error")
    assert status == Exit.BAD_INPUT and json_record(out, "rtp", "verdict")["status"] == Exit.BAD_INPUT
    assert {b["bet"]: b["house_edge"] for b in submission["bets"]}["small"] == "1/36"
    assert error["given"] == "no-such-submission"


def test_settle_json_lines(capfd, monkeypatch):
    import io
    import sys
    rounds = ('{"game": "sic-bo", "paytable": "A", "dice": [2, 2, 5], '
              '"wagers": [{"id": "w1", "bet": "single:2", "stake": 100}]}\nnot json\n')
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(rounds.encode())))
    status, out = run(capfd, bench_main, "settle", "--json")
    [settled] = json_records(out, "settle", "settlement")
    [bad] = json_records(out, "settle", "error")
    assert status == Exit.BAD_INPUT and settled["settlements"][0]["returned"] == 300 and bad["line"] == 2
    assert json_record(out, "settle", "verdict")["settled"] == 1


def test_adapters_listed_shown_and_templated(capfd, tmp_path):
    status, out = run(capfd, bench_main, "adapters", "--json")
    assert status == Exit.OK and "tablebench" in {a["name"] for a in json_records(out, "adapters", "adapter")}
    status, out = run(capfd, bench_main, "adapters", "ascii-sentence", "--json")
    assert status == Exit.OK and json_record(out, "adapters", "adapter")["timeouts"]["retries"] >= 0
    status, out = run(capfd, bench_main, "adapters", "--template", tmp_path / "new", "--json")
    assert status == Exit.OK and json_record(out, "adapters", "template")["install"] == f"pip install {tmp_path / 'new'}"


def test_key_new_and_show(capfd, tmp_path):
    status, out = run(capfd, bench_main, "key", "new", tmp_path / "k", "--sessions", "4", "--json")
    made = json_record(out, "key", "key")
    status, out = run(capfd, bench_main, "key", "show", tmp_path / "k" / "bench.key", "--json")
    shown = json_record(out, "key", "key")
    assert status == Exit.OK and shown["fingerprint"] == made["fingerprint"]
    assert (shown["sessions_used"], shown["sessions"]) == (0, 4)


def test_features(capfd, tmp_path):
    status, out = run(capfd, bench_main, "features", tmp_path / "sc", "--json")
    files = json_records(out, "features", "file")
    assert status == Exit.OK and all(f["written"] for f in files)
    assert json_record(out, "features", "verdict")["written"] == len(files) == len(list((tmp_path / "sc").iterdir()))


def test_drop_and_spin_a_line_each_then_the_totals(capfd):
    status, out = run(capfd, twin_main, "drop", "standard", "--count", "2", "--json")
    drops = json_records(out, "drop", "drop")
    assert status == Exit.OK and [d["seed"] for d in drops] == [0, 1]
    assert json_record(out, "drop", "verdict")["drops"] == 2
    status, out = run(capfd, twin_main, "spin", "standard", "--json")
    assert status == Exit.OK and json_records(out, "spin", "spin")[0]["seed"] == 0


def test_validate_and_edge(capfd, tmp_path):
    status, out = run(capfd, twin_main, "validate", "towers/standard", "--drops", "6", "--workers", "1",
                      "--results", tmp_path / "r.jsonl", "--json")
    checks = json_records(out, "validate", "check")
    verdict = json_record(out, "validate", "verdict")
    assert status in (Exit.OK, Exit.VIOLATION) and verdict["status"] == status and verdict["runs"] == 6
    assert verdict["passed"] == (status == Exit.OK) and {c["key"] for c in checks} >= {"totals"}
    status, out = run(capfd, twin_main, "edge", "towers/standard", "--runs", "6", "--workers", "1",
                      "--results", tmp_path / "r.jsonl", "--json")
    assert status == Exit.OK and json_record(out, "edge", "verdict")["kind"] == "tower"


def test_bad_input_still_ends_with_a_verdict_naming_the_error(capfd, tmp_path):
    status, out = run(capfd, bench_main, "replay", tmp_path / "missing.jsonl", "--json")
    verdict = json_record(out, "replay", "verdict")
    assert status == Exit.BAD_INPUT and (verdict["passed"], verdict["status"]) == (False, 2)
    assert "missing.jsonl" in verdict["error"]


@pytest.mark.parametrize("kind", ["conformance", "replay", "run", "drop"])
def test_a_verdict_may_not_carry_a_verdict_field(kind):
    """The shape the issue found: a line saying both "verdict": true and "passed": false."""
    from jsonschema import Draft202012Validator
    line = {"schema": f"tablebench.{kind}/1", "record": "verdict", "passed": False, "status": 1, "verdict": True}
    assert list(Draft202012Validator(load_schema(kind)).iter_errors(line))


def test_a_figure_with_no_finite_value_is_null_not_nan():
    """A session staking nothing has no return to divide out; Python would write NaN, which JSON readers refuse."""
    import io

    from tablebench_io.json_lines import JsonLines
    out = io.StringIO()
    JsonLines("run", out=out).write("summary", observed_rtp=float("nan"), edges=[float("inf"), 0.5])
    assert json.loads(out.getvalue()) == {"schema": "tablebench.run/1", "record": "summary", "observed_rtp": None,
                                          "edges": [None, 0.5]}
