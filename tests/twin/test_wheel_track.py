"""The track phase: realistic times, and a tilt that shows in where the ball leaves."""

import dataclasses
from pathlib import Path

import pytest

from twin.wheel import load_design
from twin.wheel.spin import draw_launch
from twin.wheel.track import TrackModel

WHEELS = Path(__file__).resolve().parents[2] / "fixtures" / "wheels"
SEEDS = range(150)


def leaving(design):
    model = TrackModel(design)
    return [model.ride(launch.ball_angle_rad, launch.ball_speed_m_s)[0]
            for launch in (draw_launch(design, seed) for seed in SEEDS)]


def arc_holding_all(angles_deg):
    """The smallest arc of the stator that holds every leaving angle."""
    points = sorted(a % 360.0 for a in angles_deg)
    gaps = [b - a for a, b in zip(points, points[1:])] + [points[0] + 360.0 - points[-1]]
    return 360.0 - max(gaps)


@pytest.fixture(scope="module")
def level():
    return leaving(load_design(WHEELS / "standard.yaml"))


def test_ball_rides_the_track_a_realistic_time(level):
    # Real spins vary: the ball circles roughly 10-25 s. The launches must
    # span that range, not sit in a narrow band, and a longer ride is more turns.
    times = [e.time_s for e in level]
    assert all(e.left for e in level)
    assert 9.0 <= min(times) and max(times) <= 25.0
    assert max(times) - min(times) >= 8.0
    revolutions = [e.revolutions for e in level]
    assert 5.0 <= min(revolutions) and max(revolutions) <= 25.0
    by_time = [r for _, r in sorted(zip(times, revolutions))]
    assert by_time == sorted(by_time)


def test_level_wheel_ball_leaves_anywhere(level):
    assert arc_holding_all(e.angle_deg for e in level) > 330.0


def test_tilted_wheel_ball_leaves_over_a_narrower_arc(level):
    tilted = leaving(load_design(WHEELS / "tilted.yaml"))   # 0.5 degrees, low side at 0
    level_arc = arc_holding_all(e.angle_deg for e in level)
    tilted_arc = arc_holding_all(e.angle_deg for e in tilted)
    assert tilted_arc < 0.5 * level_arc
    # the ball leaves on the rising half, before the high side at 180 degrees
    assert all(0.0 < e.angle_deg < 200.0 for e in tilted)


def test_two_tenths_of_a_degree_already_makes_a_forbidden_zone():
    design = load_design(WHEELS / "tilted.yaml")
    design = dataclasses.replace(design, tilt=dataclasses.replace(design.tilt, angle_deg=0.2))
    # Thorp: a zone of the track the ball never leaves from
    assert 360.0 - arc_holding_all(e.angle_deg for e in leaving(design)) > 90.0


def test_same_launch_same_leaving_point():
    design = load_design(WHEELS / "tilted.yaml")
    model = TrackModel(design)
    first, _ = model.ride(1.0, 5.0)
    again, _ = TrackModel(design).ride(1.0, 5.0)
    assert first == again
