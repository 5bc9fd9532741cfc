"""bench run --camera (issue 38.1): a recogniser's mistake is a verdict naming
the clause and the round; one that cannot read follows the documented policy
(docs/camera.md) instead of crashing; replay judges both again and agrees."""

import json
import subprocess
import sys

from bench.oracle.feed import judged_camera


def _bench(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "bench.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


def _recogniser(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(body)
    return f"{sys.executable} {path}"


def _plants(out):
    records = [json.loads(line) for line in (out / "session.jsonl").read_text().splitlines()]
    return [p for r in records for p in (r.get("plants") or [])]


LIAR = """import json
print(json.dumps({"dice": [{"face": 1, "flat": True, "centre_px": [100 * i, 10]} for i in range(3)]}))
"""


def test_a_lying_recogniser_fails_the_session_naming_clause_and_round(tmp_path):
    out = tmp_path / "s"
    liar = _recogniser(tmp_path, "liar.py", LIAR)
    done = _bench("run", "--rounds", "3", "--seed", "3", "--out", str(out), "--camera", "--recognizer", liar,
                  "--no-progress")
    assert done.returncode == 1, done.stdout + done.stderr
    # round 1 rests on 4-1-5, read 1-1-1; round 2 is the staged cocked die (bench.play.coverage), sent as a roll
    assert "round 1, frame None: 625b.2(d)(4): the recogniser sent dice [1, 1, 1]; the dice came to rest " \
           "showing [4, 1, 5]" in done.stdout
    assert "round 2, frame None: 625b.2(d)(5): the recogniser sent a roll [1, 1, 1] on dice that did not " \
           "all land flat" in done.stdout
    plant = _plants(out)[0]
    camera = plant["detail"]["camera"]
    assert camera["call"] == "read" and camera["truth"]["dice"] == [4, 1, 5] and plant["dice"] == [1, 1, 1]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["passed"] is False and summary["camera"]["recognizer"] == liar
    assert summary["camera"]["scores"]["misread"] == 3 and summary["camera"]["scores"]["right"] == 0
    assert "3 misread" in (out / "report.html").read_text()

    again = _bench("replay", str(out / "session.jsonl"), "--round", "2")
    assert again.returncode == 1, again.stdout + again.stderr
    assert "oracle: 3 rounds re-verified, 3 violations" in again.stdout
    assert "structure:" not in again.stdout          # replay finds the verdicts the bench journalled
    assert "round 2: camera frame round-00002-0.jpg: truth dice [4, 5, 3] flat [False, True, True]; " \
           "sent dice [1, 1, 1] flat [True, True, True], the recogniser's reading" in again.stdout
    assert "judged again: 625b.2(d)(5)" in again.stdout


def test_a_recogniser_that_never_answers_follows_the_policy_and_fails_the_session(tmp_path):
    """Dice: each frame asked three times, then the dealer's call, a no roll
    (every wager returned as 625b.2(d)(5) returns them). Where the dice had
    made a roll, that no roll voided it: a violation of 625b.2(d)(5) naming
    the round, so a session whose recogniser never reads does not pass."""
    out = tmp_path / "s"
    silent = _recogniser(tmp_path, "silent.py", "print('')\n")
    done = _bench("run", "--rounds", "2", "--seed", "5", "--out", str(out), "--camera", "--recognizer", silent,
                  "--no-progress")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 rounds settled, 2 no rolls" in done.stdout
    assert "625b.2(d)(5): the recogniser could not read the frame after 2 re-reads; the policy's no roll " \
           "voided a roll the dice made" in done.stdout
    for plant in _plants(out):
        camera = plant["detail"]["camera"]
        assert camera["call"] == "unread" and camera["rereads"] == 2 and camera["unread"] == ["an empty reply"] * 3
        assert plant["flat"] == [False, False, False]
    summary = json.loads((out / "summary.json").read_text())
    scores = summary["camera"]["scores"]
    assert summary["passed"] is False
    assert scores["unread"] == 2 and scores["rereads"] == 4 and scores["read"] == 0 and scores["misread"] == 0
    assert scores["rolls_voided_unread"] == scores["truth_rolls"] > 0
    page = (out / "report.html").read_text()     # the page names them among the violations, as the verdict does
    assert f"violations: {scores['rolls_voided_unread']} rolls it voided, 625b.2(d)(5)" in page
    again = _bench("replay", str(out / "session.jsonl"), "--round", "1")
    assert again.returncode == 1, again.stdout + again.stderr
    assert "the policy's call (the recogniser could not read), after 2 re-reads" in again.stdout


def test_a_wheel_recogniser_that_never_reads_a_pocket_voids_the_round(tmp_path):
    """The croupier spins again (617a.5) ten times, then the round is void: a
    failed round naming the clause, exit 1, never exit 5 with a traceback."""
    out = tmp_path / "s"
    silent = _recogniser(tmp_path, "silent.py", "print('{}')\n")
    done = _bench("run", "--game", "lightning-roulette", "--rounds", "1", "--seed", "3", "--out", str(out),
                  "--camera", "--recognizer", silent, "--no-progress")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "round 1 failed: [617a.5] round 1: the recogniser read no pocket in 10 spins" in done.stdout
    again = _bench("replay", str(out / "session.jsonl"))
    assert again.returncode == 1 and "round 1 failed: [617a.5]" in again.stdout


def test_a_camera_record_from_before_recognition_was_judged_is_left_unjudged():
    """A camera plant record without a ``call`` (written before this bench
    judged recognition) gives the judge nothing to judge, where the same
    record with its call does. (Only the record is tried here: no journal of
    that age is kept among the fixtures to replay whole.)"""
    old = {"round": 1, "dice": [1, 1, 1], "flat": [True] * 3,
           "detail": {"camera": {"frame": "f.jpg", "truth": {"dice": [4, 1, 5], "flat": [True] * 3}, "reading": {}}}}
    assert judged_camera(old) is None
    new = {**old, "detail": {"camera": {**old["detail"]["camera"], "call": "read", "rereads": 0}}}
    row = judged_camera(new)
    assert row.truth["dice"] == [4, 1, 5] and row.sent["dice"] == [1, 1, 1] and row.round == 1
