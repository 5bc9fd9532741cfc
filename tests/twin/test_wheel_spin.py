"""Whole spins: deterministic across processes, realistic, bounded, pictured."""

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from twin.wheel import load_design, spin, trace
from twin.wheel.picture import MARK, save_gif, save_png
from tests.json_schemas import json_records

ROOT = Path(__file__).resolve().parents[2]
STANDARD = ROOT / "fixtures" / "wheels" / "standard.yaml"
TWIN = [sys.executable, "-c", "import sys; from twin.cli import main; sys.exit(main())"]


def run_twin(*args):
    done = subprocess.run(TWIN + list(args), capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def design():
    return load_design(STANDARD)


@pytest.fixture(scope="module")
def results(design):
    return [spin(design, seed) for seed in range(10, 14)]


def test_same_seed_same_spin_in_other_processes(results):
    first = run_twin("spin", str(STANDARD), "--seed", "10", "--count", "4", "--json")
    second = run_twin("spin", str(STANDARD), "--seed", "10", "--count", "4", "--json")
    assert first == second
    said = json_records(first, "spin", "spin")
    assert [{k: v for k, v in line.items() if k not in ("schema", "record")} for line in said] == \
        [json.loads(r.to_json()) for r in results]


def test_spins_are_valid_and_land_in_a_pocket(results):
    assert [r.seed for r in results] == [10, 11, 12, 13]
    for result in results:
        assert result.valid and result.settled and result.invalid_reason is None
        assert 0 <= result.number <= 36
        assert 0.0 <= result.leave_angle_deg < 360.0


def test_spins_take_a_realistic_time(results):
    # real spins last roughly 10-25 s: the ball circles, then 1-5 s to come to rest
    for result in results:
        descent = result.spin_time_s - result.track_time_s
        assert 9.0 <= result.track_time_s <= 25.0
        assert 0.8 <= descent <= 8.0
        assert 5.0 <= result.ball_revolutions <= 25.0
        assert 3.0 <= result.rotor_revolutions <= 15.0


def test_json_line_carries_every_field(results):
    fields = json.loads(results[0].to_json())
    assert set(fields) == {"seed", "valid", "number", "invalid_reason", "leave_angle_deg",
                           "track_time_s", "spin_time_s", "ball_revolutions",
                           "rotor_revolutions", "settled", "rotor_speed_rev_s", "leave_pocket", "hit_pocket",
                           "hit_time_s"}


def test_a_ball_that_cannot_settle_makes_an_invalid_spin_not_a_hang(design):
    # at rest for 5 s is required, but the descent is cut after 2 s
    impatient = dataclasses.replace(design, simulation=dataclasses.replace(
        design.simulation, max_descent_time_s=2.0, settle_time_s=5.0))
    result = spin(impatient, 10)
    assert not result.valid and not result.settled and result.number is None
    assert "did not settle" in result.invalid_reason
    assert result.spin_time_s == pytest.approx(result.track_time_s + 2.0, abs=0.05)


def test_pictures_show_the_wheel_and_the_winning_pocket(design, results, tmp_path):
    traced = trace(design, 10)
    assert traced.result == results[0]
    save_png(design, traced, tmp_path / "rest.png")
    save_gif(design, traced, tmp_path / "spin.gif")
    with Image.open(tmp_path / "rest.png") as picture:
        colours = {colour for _, colour in picture.convert("RGB").getcolors(maxcolors=1 << 16)}
    assert MARK in colours                   # the winning pocket is ringed
    with Image.open(tmp_path / "spin.gif") as animation:
        frames = animation.n_frames
    # the track phase at 4 frames a second plus the descent at 15
    assert frames > 4 * results[0].track_time_s
