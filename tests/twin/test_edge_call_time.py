"""The verdict of twin edge: the latest safe call with its interval on one line,
--call-time-s's exit statuses, and comparisons stated only when the calls part by more than their errors.

The campaigns here are written out as files (records and predictions), as a
finished run leaves them, so the command runs no physics: a wheel where the
resting pocket cannot be told from the prediction, and one where it can."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from twin.edge.observer import Camera
from twin.edge.pipeline import prediction_settings, predictions_path
from twin.edge.verdict import Verdict, compare, interval
from twin.validate.campaign import Plan
from twin.wheel import load_design
from tests.json_schemas import json_record

ROOT = Path(__file__).resolve().parents[2]
LEVEL = ROOT / "fixtures" / "wheels" / "standard.yaml"
SPINS = 16000
CUTOFFS = [0.0, 2.0]


def cached_campaign(folder: Path, predictable: bool) -> Path:
    """A finished campaign's two files; at 2 s the player knows the resting pocket
    (``predictable``) or guesses at random."""
    design = load_design(LEVEL)
    text = LEVEL.read_text(encoding="utf-8")
    plan = Plan("wheel", str(LEVEL), text, 0, SPINS)
    results = folder / "r.jsonl"
    rng = np.random.default_rng(9)
    rest = rng.integers(0, 37, SPINS)
    with results.open("w", encoding="utf-8") as out:
        out.write(json.dumps(plan.header(), sort_keys=True) + "\n")
        for seed in range(SPINS):
            out.write(json.dumps({"seed": seed, "valid": True, "number": design.pockets[rest[seed]]}) + "\n")
    settings = prediction_settings(plan, CUTOFFS, Camera(), 0)
    guess = rest if predictable else rng.integers(0, 37, SPINS)
    with predictions_path(results, settings).open("w", encoding="utf-8") as out:
        out.write(json.dumps(settings, sort_keys=True) + "\n")
        for seed in range(SPINS):
            out.write(json.dumps({"seed": seed, "track_time_s": 15.0, "predicted": [None, int(guess[seed])],
                                  "leave_deg": [None, 100.0], "rotor_rev_s": [None, 0.4]}) + "\n")
    return results


def edge(folder: Path, *args):
    done = subprocess.run([sys.executable, "-m", "twin.cli", "edge", str(LEVEL), "--runs", str(SPINS), "--workers", "1",
                           "--cutoff-s", "0", "--payout", "lightning", "--resamples", "8", "--results", "r.jsonl",
                           *args], cwd=folder, capture_output=True, text=True, timeout=300)
    return done


@pytest.mark.parametrize("predictable, shown", [(False, True), (True, False)])
def test_the_verdict_line_and_the_call_times_exit_status(tmp_path, predictable, shown):
    cached_campaign(tmp_path, predictable)
    done = edge(tmp_path, "--call-time-s", "2", "--json")
    assert done.returncode == (0 if shown else 1), done.stderr
    verdict = json_record(done.stdout, "edge", "verdict")
    assert verdict["passed"] is shown and verdict["status"] == done.returncode
    assert verdict["spins"] == SPINS and verdict["payout"] == "lightning"
    assert verdict["call_time_s"] == 2.0 and verdict["call_time_shown_safe"] is shown
    if shown:          # nothing to predict: safe at every rung, in every resample too
        assert verdict["latest_safe_call_s"] == 2.0 and verdict["latest_safe_call_interval_s"] == [2.0, 2.0]
    else:              # the pocket is known at 2 s: only the launch is safe, and surely so
        assert verdict["latest_safe_call_s"] == 0.0 and verdict["latest_safe_call_interval_s"] == [0.0, 0.0]
    if not shown:                  # the text says what the line says (once: each run resamples anew)
        text = edge(tmp_path, "--call-time-s", "2")
        assert text.returncode == 1 and "'no more bets' at 2 s: NOT shown safe" in text.stdout


def test_too_few_spins_to_show_a_call_safe_is_not_shown():
    few = Verdict("lightning", 2.0, (0.0, 2.0), 400, 100, 0.95)
    assert not few.shows_safe(2.0) and few.shows_safe(0.0)
    assert not Verdict("lightning", None, (None, None), 400, 100, 0.95).shows_safe(0.0)
    assert not Verdict("lightning", 1.0, (None, None), 400, 0, 0.95).shows_safe(0.5)   # no interval: not shown


def test_interval_orders_not_safe_at_all_below_every_cutoff():
    assert interval([None] * 4 + [1.0] * 92 + [3.0] * 4, 0.90) == (1.0, 1.0)
    assert interval([None] * 10 + [1.0] * 90, 0.95) == (None, 1.0)
    assert interval([2.0] * 100) == (2.0, 2.0)


def test_two_wheels_are_compared_only_when_their_calls_part_by_more_than_their_errors():
    # each campaign's own error is half its splits' differences (twin.edge.verdict)
    ladder = (0.0, 0.5, 0.75, 1.0, 1.25, 1.5)
    level = Verdict("lightning", 1.25, (1.0, 1.5), 16000, 100, 0.95, ladder, (0, 1, -1, 0) * 12)
    tilted = Verdict("lightning", 0.5, (0.5, 0.75), 16000, 100, 0.95, ladder, (0, 1, -1, 0) * 12)
    close = Verdict("lightning", 1.0, (0.75, 1.25), 8000, 100, 0.95, ladder, (0, 2, -2, 0) * 12)
    assert compare("tilted", tilted, "level", level).startswith("tilted must close betting earlier than level")
    assert compare("level", level, "tilted", tilted).startswith("tilted must close betting earlier than level")
    assert compare("level", level, "other", close).startswith("not distinguishable at 8000 spins")
