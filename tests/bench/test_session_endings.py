"""Every session ends with its files and its exit status, however it ends,
and replaying its journal gives the same status and the same clauses."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.session.cycle import Phases, RoundCycle, RoundFailed
from tablebench_io.commandline import Exit
from bench.journal.chain import verify_journal
from bench.journal.replay import replay
from bench.session.runner import SessionConfig, run_session

FILES = ("session.jsonl", "session.head", "summary.json", "junit.xml")
QUICK = Phases(reply_s=0.3)


def play(tmp_path, name="out", **kw):
    config = SessionConfig(out=str(tmp_path / name), seed=kw.pop("seed", 11), progress=False,
                           rounds=kw.pop("rounds", 3), probes=kw.pop("probes", False), **kw)
    return run_session(config)


def assert_ends_with_its_files(outcome):
    out = Path(outcome.config.out)
    for name in FILES:
        assert (out / name).exists(), f"{name} missing after a session that ended {outcome.ending}"
    head = (out / "session.head").read_text().strip()
    chain = verify_journal(out / "session.jsonl", expected_head=head)
    assert chain.ok and chain.ended
    end = json.loads((out / "session.jsonl").read_text().splitlines()[-1])
    assert end["kind"] == "session-end" and end["ending"] == outcome.ending and end["status"] == outcome.status
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["ending"], summary["status"]) == (outcome.ending, outcome.status)
    assert not list(out.glob(".*.tmp")), "a temporary file of an atomic write was left behind"


def assert_replay_agrees(outcome):
    replayed = replay(outcome.journal, expected_head=outcome.head)
    assert replayed.intact, replayed.structure_problems + replayed.decode_problems
    assert (replayed.ending, replayed.exit_status) == (outcome.ending, outcome.status)
    assert sorted(v.clause for v in replayed.oracle.violations) == sorted(v.clause for v in outcome.oracle.violations)
    assert replayed.failed_rounds == outcome.round_failures
    return replayed


def test_a_compliant_session_completes_and_replays_to_pass(tmp_path):
    outcome = play(tmp_path)
    assert (outcome.ending, outcome.status) == ("completed", Exit.OK)
    assert_ends_with_its_files(outcome)
    assert assert_replay_agrees(outcome).passed


@pytest.mark.parametrize("fault", ["corrupt=1", "drop=1"], ids=["only-bad-crcs", "silent"])
def test_a_controller_that_cannot_be_heard_is_a_lost_link_not_bad_input(tmp_path, fault):
    # That it ends at all is pytest-timeout's to guard (pyproject.toml): a wall-clock bound here is one
    # a loaded machine breaks. The session gave up on the link itself, at its own timeouts:
    outcome = play(tmp_path, emulator_args=("--fault", fault), phases=QUICK)
    assert (outcome.ending, outcome.status) == ("link-lost", Exit.LINK)
    assert "not acknowledged" in outcome.reason or "no message" in outcome.reason
    assert_ends_with_its_files(outcome)
    assert_replay_agrees(outcome)


def _children() -> set[int]:
    found = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        found |= {int(p) for p in (task / "children").read_text().split()}
    return found


def test_a_controller_killed_mid_session_is_a_lost_link_with_every_file(tmp_path, monkeypatch):
    from bench.play import round_script
    real = round_script.sensor_fields
    before = _children()

    def kill_controller_in_round_2(round_no, *args):
        if round_no == 2:
            for pid in _children() - before:
                os.kill(pid, signal.SIGKILL)
            time.sleep(0.2)
        return real(round_no, *args)

    monkeypatch.setattr(round_script, "sensor_fields", kill_controller_in_round_2)
    outcome = play(tmp_path, phases=QUICK, probes=False)
    assert (outcome.ending, outcome.status) == ("link-lost", Exit.LINK)
    assert 2 in outcome.round_failures
    assert_ends_with_its_files(outcome)
    assert_replay_agrees(outcome)


def test_failed_rounds_fail_the_run_and_the_replay(tmp_path, monkeypatch):
    """A round the controller did not play (here: the late wager's reply never
    counted) fails the session; a replay of it fails with the same status."""
    def never_answered(self, wager_id):
        raise RoundFailed(f"no reply to {wager_id} within {self.phases.reply_s} s")

    monkeypatch.setattr(RoundCycle, "_expect_reply_to", never_answered)
    outcome = play(tmp_path, rounds=2, probes=False)
    assert (outcome.ending, outcome.status) == ("failed-rounds", Exit.VIOLATION)
    assert_ends_with_its_files(outcome)
    replayed = assert_replay_agrees(outcome)
    assert not replayed.passed and set(replayed.failed_rounds) == set(outcome.round_failures)


def test_a_failure_of_the_bench_itself_still_writes_every_file(tmp_path, monkeypatch):
    from bench.oracle import Oracle
    real = Oracle.observe

    def broken(self, direction, message, mono):
        if message.type == "NOMORE" and message["round"] == 2:
            raise RuntimeError("a bug in the oracle")
        return real(self, direction, message, mono)

    monkeypatch.setattr(Oracle, "observe", broken)
    outcome = play(tmp_path, probes=False)
    assert (outcome.ending, outcome.status) == ("crashed", Exit.INTERNAL)
    assert "a bug in the oracle" in (Path(outcome.config.out) / "crash.txt").read_text()
    assert_ends_with_its_files(outcome)
    monkeypatch.undo()
    replayed = replay(outcome.journal, expected_head=outcome.head)
    assert (replayed.ending, replayed.exit_status) == ("crashed", Exit.INTERNAL)


def test_a_controller_reset_voids_the_round_and_play_goes_on_at_once(tmp_path):
    """docs/protocol.md, Reset: the controller voids round 2 itself and opens
    round 3; the bench neither waits out a reply deadline nor sends a RESET
    of its own that would void round 3 too."""
    outcome = play(tmp_path, rounds=3, emulator_args=("--fault", "reset=2"), phases=Phases(reply_s=2.0))
    # Voided by the RESET it took, not failed by a reply deadline it waited out ("no message ... within 2.0 s").
    assert list(outcome.round_failures) == [2] and "voided" in outcome.round_failures[2]
    assert "within" not in outcome.round_failures[2]
    assert (outcome.ending, outcome.status) == ("failed-rounds", Exit.VIOLATION)
    records = [json.loads(line) for line in outcome.journal.read_text().splitlines()]
    rounds = {r["round"]: r for r in records if r["kind"] == "round"}
    assert rounds[2]["void"] is True and "failure" not in rounds[3]
    assert not any(row[6] and row[6]["type"] == "RESET" for row in rounds[2]["wire"] + rounds[3]["wire"]
                   if row[0] == "tx"), "the bench sent a RESET of its own"
    assert 3 in [r.round for r in outcome.oracle.rounds if r.outcome is not None]      # round 3 was played
    assert_replay_agrees(outcome)


def _bench(tmp_path, *args):
    return subprocess.Popen([sys.executable, "-m", "bench.cli", "run", "--seed", "4", "--no-probes", "--out",
                             str(tmp_path / "out"), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def _wait_for_rounds(journal: Path, rounds: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_bytes().count(b'"kind":"round"') >= rounds:
            return
        time.sleep(0.05)
    raise AssertionError(f"{journal}: {rounds} rounds not journalled in {timeout} s")


def _emulator_of(pid: int) -> int:
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split()
        if children:
            return int(children[0])
    raise AssertionError("the bench started no emulated controller")


def _gone(pid: int, timeout: float = 60) -> bool:       # timeout: a hang guard; gone at once, it returns at once
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":          # dead, waiting for its parent to reap it
            return True
        time.sleep(0.05)
    return False


def test_sigterm_stops_the_session_like_ctrl_c_with_every_file(tmp_path):
    bench = _bench(tmp_path, "--rounds", "500")
    out = tmp_path / "out"
    _wait_for_rounds(out / "session.jsonl", 2)
    emulator = _emulator_of(bench.pid)
    bench.send_signal(signal.SIGTERM)
    _, stderr = bench.communicate(timeout=60)
    assert bench.returncode == Exit.INTERRUPTED, stderr
    assert "SIGTERM" in stderr and "Traceback" not in stderr
    assert _gone(emulator)
    for name in FILES:
        assert (out / name).exists(), name
    assert json.loads((out / "summary.json").read_text())["ending"] == "interrupted"
    head = (out / "session.head").read_text().strip()
    replayed = subprocess.run([sys.executable, "-m", "bench.cli", "replay", str(out / "session.jsonl"),
                               "--head", head], capture_output=True, text=True, timeout=120)
    assert replayed.returncode == Exit.INTERRUPTED, replayed.stdout
    assert "interrupted" in replayed.stdout


def test_the_emulated_controller_dies_with_the_bench_even_on_kill_9(tmp_path):
    bench = _bench(tmp_path, "--rounds", "500")
    _wait_for_rounds(tmp_path / "out" / "session.jsonl", 1)
    emulator = _emulator_of(bench.pid)
    bench.kill()
    bench.communicate(timeout=30)
    assert _gone(emulator), "the emulated controller outlived the bench"
    # What was journalled stands; replay says the session was cut off and fails.
    replayed = subprocess.run([sys.executable, "-m", "bench.cli", "replay", str(tmp_path / "out" / "session.jsonl")],
                              capture_output=True, text=True, timeout=120)
    assert replayed.returncode == Exit.VIOLATION
    assert "cut off" in replayed.stdout and "FAIL" in replayed.stdout


def _hanging_controller(monkeypatch, *, answers_hello: bool):
    """The emulated controller (on a thread of this process) stops playing in
    its second round: no RELEASE for the TRIGGER, no answer to RESET, and,
    unless ``answers_hello``, none to HELLO either. Its link layer still
    acknowledges. The round it hung in is kept in ``hung["round"]``."""
    from bench.emulator.controller import EmulatedController
    hung = {"on": False, "triggers": 0}
    real_trigger, real_hello = EmulatedController._on_trigger, EmulatedController._on_hello

    def trigger(self, m):
        hung["triggers"] += 1
        if hung["triggers"] == 2 and not hung.get("done"):
            hung["on"], hung["round"] = True, m["round"]
            return None
        return real_trigger(self, m)

    def hello(self, m):
        if hung["on"]:
            if not answers_hello:
                return None
            hung["on"], hung["done"] = False, True   # greeted again: it plays on
        return real_hello(self, m)

    monkeypatch.setattr(EmulatedController, "_on_trigger", trigger)
    monkeypatch.setattr(EmulatedController, "_on_reset", lambda self, m: None)
    monkeypatch.setattr(EmulatedController, "_on_hello", hello)
    return hung


@pytest.mark.parametrize("answers_hello", [False, True], ids=["hangs", "answers-a-new-hello"])
def test_a_controller_that_stops_answering_even_the_reset_is_greeted_again_or_lost(tmp_path, monkeypatch,
                                                                                 answers_hello):
    """A round the controller stops playing fails; the bench's RESET goes
    unanswered; a new HELLO either brings the controller back (play goes on)
    or does not (the link is lost: exit 3, never the bench's own failure)."""
    from bench.emulator.threaded import threaded_controller
    from bench.rules.submission import default_rules
    hung = _hanging_controller(monkeypatch, answers_hello=answers_hello)
    with threaded_controller("lightning-dice", default_rules("lightning-dice"), seed=3) as url:
        outcome = play(tmp_path, controller=url, rounds=4, phases=QUICK)     # it ends: pytest-timeout guards it
    assert hung["round"] in outcome.round_failures
    if answers_hello:
        # Its silence is the oracle's finding too; the rounds after it are played.
        assert (outcome.ending, outcome.status) == ("violation", Exit.VIOLATION), outcome.reason
        assert set(outcome.round_failures) == {hung["round"]}
        assert {v.round for v in outcome.oracle.violations} == {hung["round"]}, outcome.oracle.violations
        # The other three rounds are each read to their own CLEARED (the voided
        # round's, which comes after the new HELLO, is not taken for the next's).
        assert [s.round for s in outcome.summary.played] == [r for r in range(1, 5) if r != hung["round"]]
    else:
        assert (outcome.ending, outcome.status) == ("link-lost", Exit.LINK)
        assert "neither the bench's RESET" in outcome.reason and "nor a new HELLO" in outcome.reason
    assert not (Path(outcome.config.out) / "crash.txt").exists()
    assert_ends_with_its_files(outcome)
    assert_replay_agrees(outcome)
