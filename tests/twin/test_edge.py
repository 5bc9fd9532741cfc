"""twin edge: a player who knows nothing wins the house edge, one who can
predict wins more; the observer's errors shrink to nothing with a perfect
camera; bad input is refused with one line. Fixed seeds, small campaigns:
the figures for the shipped designs are in benchmarks/edge_bench.py."""

import dataclasses
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from twin.edge.estimate import latest_safe_cutoff, scaled_hits_edge
from twin.edge.observer import Camera, observe
from twin.edge.payouts import dice_game, straight_payouts
from twin.edge.tower import tower_bet_table, tower_edge
from twin.edge import bets
from twin.edge.wheel import predict_spin, predicted_pocket
from twin.wheel import load_design
from twin.wheel.spin import draw_launch, rotor_at
from twin.wheel.track import LeavingMap, TrackModel
from tests.json_schemas import json_record, json_records

ROOT = Path(__file__).resolve().parents[2]
LEVEL = str(ROOT / "fixtures/wheels/standard.yaml")
TILTED = str(ROOT / "fixtures/wheels/tilted.yaml")
CHUTE = str(ROOT / "fixtures/towers/straight-chute.yaml")


def test_lucky_numbers_bring_a_straight_up_to_the_published_return():
    table = straight_payouts()
    assert 1 + table["lightning-lucky"].house_edge == pytest.approx(0.9710, abs=5e-4)
    assert table["lightning"].house_edge == pytest.approx(30 / 37 - 1)
    assert table["classic"].house_edge == pytest.approx(-1 / 37)
    with pytest.raises(ValueError, match="617c.3\\(d\\)"):
        straight_payouts(mean_count=6)


def test_tower_paytable_house_edges_match_fair_dice():
    bets = tower_bet_table(dice_game())
    edges = dict(zip(bets.names, bets.fair_return))
    assert edges["low"] == pytest.approx(-1 / 36) and edges["high"] == pytest.approx(-1 / 36)
    assert edges["total:10"] == pytest.approx(27 / 216 * (1 + 4) - 1)      # 625b.2(f): 4 to 1
    assert all(e < 0 for e in edges.values())


def _spins(offsets, informed=None, place=None):
    offsets = np.asarray(offsets, dtype=int)
    n = offsets.size
    informed = np.ones(n, dtype=bool) if informed is None else np.asarray(informed)
    place = np.zeros(n, dtype=int) if place is None else np.asarray(place)
    return bets.Spins(offsets, informed, np.zeros(n, dtype=int), place)


def _edge_of(fit, held, pays=30):
    strategy, _, _, kept = bets.choose(fit, pays)
    got = bets.measure(fit, held, strategy, kept)
    return strategy, scaled_hits_edge(got.hits, got.bets, pays / strategy.numbers, 0.99, 30 / 37 - 1, len(fit)), got


def test_a_player_who_knows_nothing_wins_the_house_edge_and_a_predictor_wins():
    rng = np.random.default_rng(1)
    blind_fit, blind_held = _spins(rng.integers(0, 37, 2000), np.zeros(2000, bool)), _spins(rng.integers(0, 37, 2000),
                                                                                            np.zeros(2000, bool))
    strategy, blind, _ = _edge_of(blind_fit, blind_held)
    assert blind.low < 30 / 37 - 1 < blind.high and blind.high < 0
    # the ball lands within two pockets of the predicted one half the time
    def near(n):
        return [int(o) if rng.random() < 0.5 else int(rng.integers(0, 37)) for o in rng.integers(-2, 3, n) % 37]
    strategy, sharp, _ = _edge_of(_spins(near(2000)), _spins(near(2000)))
    assert strategy.numbers <= 6 and sharp.low > 0.5


def test_with_nothing_to_predict_the_player_is_not_talked_into_a_few_numbers_or_a_lucky_class():
    # a few numbers, or a few spins of one class, chosen on a lucky fit have a wide interval
    # that alone would decide a verdict
    chosen = []
    for s in range(12):
        rng = np.random.default_rng(s)
        fit = _spins(rng.integers(0, 37, 2000), place=rng.integers(0, 3, 2000))
        chosen.append(bets.choose(fit, 30)[0])
    assert min(c.numbers for c in chosen) > 3 and sum(c.numbers == 18 for c in chosen) >= 9
    assert not any(c.skip for c in chosen)


def test_a_player_who_may_skip_bets_only_where_the_ball_is_predictable():
    rng = np.random.default_rng(3)
    def spins(n):
        place = rng.integers(0, 3, n)
        scattered = rng.integers(0, 37, n)
        tight = rng.integers(-1, 2, n) % 37
        return _spins(np.where((place == 1) & (rng.random(n) < 0.4), tight, scattered), place=place)
    strategy, edge, got = _edge_of(spins(3000), spins(3000))
    assert strategy.condition == "place" and strategy.skip
    assert 0.25 < got.bets / got.spins < 0.45 and edge.low > 0


def test_latest_safe_cutoff_is_where_the_interval_first_reaches_zero():
    # 18 straight ups a spin at 29 to 1: a hit returns 30/18 of the stake
    edges = [scaled_hits_edge(h, 1000, 30 / 18, 0.99, -0.19, 1000) for h in (486, 486, 500, 700, 450)]
    assert [e.high < 0 for e in edges] == [True, True, True, False, True]
    assert latest_safe_cutoff([0, 2, 4, 6, 8], edges) == 4
    assert latest_safe_cutoff([0, 2], [edges[3], edges[0]]) is None


def _truth(design, seed):
    """The pocket under the point where the spin's ball really leaves the track."""
    launch = draw_launch(design, seed)
    exit_, _ = TrackModel.for_spin(design, seed).ride(launch.ball_angle_rad, launch.ball_speed_m_s)
    phi, _ = rotor_at(design, launch, exit_.time_s)
    return round(-(exit_.angle_rad - phi) / (2 * math.pi / 37)) % 37


def test_a_perfect_camera_sees_the_state_and_negative_noise_is_refused():
    design = dataclasses.replace(load_design(LEVEL), track_noise=None)   # the player's model is then exact
    launch = draw_launch(design, 3)
    model = TrackModel(design)
    exit_, solution = model.ride(launch.ball_angle_rad, launch.ball_speed_m_s)

    def ball(t):
        y = solution.sol(t)
        return y[0], y[1]

    def rotor(t):
        tau = design.rotor.decay_time_s
        return (launch.rotor_angle_rad + launch.rotor_speed_rad_s * tau * (1 - np.exp(-t / tau)),
                launch.rotor_speed_rad_s * np.exp(-t / tau))

    rng = np.random.default_rng(0)
    for mode in ("frames", "passages"):
        est = observe(Camera(frame_s=1 / 60 if mode == "frames" else 0, angle_res_deg=0, mode=mode), 6.0,
                      ball, rotor, model.r, rng)
        theta, v = ball(np.array([est.t_s]))
        assert est.ball_angle_rad == pytest.approx(theta[0], abs=1e-6)
        assert est.ball_speed_m_s == pytest.approx(v[0], rel=1e-6)
        # the track model carried forward lands on the pocket the ball really leaves over
        assert predicted_pocket(design, LeavingMap(model), est)[0] == _truth(design, 3)
    assert observe(Camera(), 0.0, ball, rotor, model.r, rng) is None      # nothing seen at the launch
    with pytest.raises(ValueError, match="0 or more"):
        Camera(angle_res_deg=-1)


def test_the_camera_predicts_the_leaving_pocket_better_after_a_few_turns():
    design = dataclasses.replace(load_design(LEVEL), track_noise=None)
    errors = {1.0: [], 4.0: []}
    for seed in range(8):
        truth = _truth(design, seed)
        got = predict_spin(design, seed, [1.0, 4.0], Camera())["predicted"]
        for c, p in zip((1.0, 4.0), got):
            errors[c].append(18 if p is None else min((p - truth) % 37, (truth - p) % 37))
    assert np.mean(errors[4.0]) <= 1.5
    assert np.mean(errors[1.0]) > 2 * np.mean(errors[4.0])


def _leaving_pocket_errors(path: str, cutoff_s: float, camera: Camera, seeds) -> list[int]:
    """Pockets between the predicted and the true pocket under the leaving point (informed spins)."""
    design = load_design(path)
    out = []
    for seed in seeds:
        truth = _truth(design, seed)
        p = predict_spin(design, seed, [cutoff_s], camera)["predicted"][0]
        if p is not None:
            out.append(min((p - truth) % 37, (truth - p) % 37))
    return out


def test_a_tilted_wheel_gives_its_leaving_pocket_away_after_a_second():
    # Thorp's zone: the ball leaves from the low side whatever its speed, so an error in the
    # timed speed moves the leaving moment but hardly the leaving point (tracked by the ODE)
    level = _leaving_pocket_errors(LEVEL, 1.0, Camera(), range(30))
    tilted = _leaving_pocket_errors(TILTED, 1.0, Camera(), range(30))
    assert len(level) >= 10 and len(tilted) >= 10
    assert np.mean(np.asarray(tilted) <= 2) > 0.6 > 0.5 > np.mean(np.asarray(level) <= 2)


def test_the_rotor_watched_before_the_launch_is_known_better_early():
    design = load_design(LEVEL)
    launch = draw_launch(design, 2)

    def rotor(t):
        tau = design.rotor.decay_time_s
        return (launch.rotor_angle_rad + launch.rotor_speed_rad_s * tau * (1 - np.exp(-t / tau)),
                launch.rotor_speed_rad_s * np.exp(-t / tau))

    def ball(t):                      # a steady 3 rev/s: past the mark at 0.33 s and 0.66 s
        t = np.asarray(t, dtype=float)
        return 6 * math.pi * t + 0.1, np.full_like(t, 6 * math.pi * 0.4)

    def speed_error(lead):
        errors = []
        for k in range(40):
            est = observe(Camera(rotor_lead_s=lead), 0.7, ball, rotor, 0.4, np.random.default_rng(k))
            errors.append(abs(est.rotor_speed_rad_s - rotor(np.array([est.t_s]))[1][0]))
        return np.mean(errors)
    assert speed_error(4.0) < speed_error(0.0) / 5
    # the rotor alone tells nothing of where the ball will leave: at the launch the player knows nothing
    assert observe(Camera(rotor_lead_s=4.0), 0.0, ball, rotor, 0.4, np.random.default_rng(0)) is None
    with pytest.raises(ValueError, match="rotor-lead-s"):
        Camera(rotor_lead_s=-1)


def test_loaded_faces_pay_when_the_dice_keep_them_and_not_otherwise():
    rng = np.random.default_rng(5)
    loads = [list(map(int, rng.integers(1, 7, 3))) for _ in range(2000)]
    keep = [{"seed": i, "loaded": load, "faces": load, "no_roll": False} for i, load in enumerate(loads)]
    fair = [{"seed": i, "loaded": load, "faces": list(map(int, rng.integers(1, 7, 3))), "no_roll": False}
            for i, load in enumerate(loads)]
    assert tower_edge(keep, 0.99).edge.low > 1.0
    fair_edge = tower_edge(fair, 0.99).edge
    assert fair_edge.low < fair_edge.house_edge < fair_edge.high


def _edge(*args, cwd):
    return subprocess.run([sys.executable, "-m", "twin.cli", "edge", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=240)


@pytest.mark.parametrize("args, words", [
    (["--cutoff-s", "0,400"], "past the spin"),
    (["--cutoff-s", "-1"], "before the launch"),
    (["--angle-res-deg", "-0.5"], "0 or more"),
    (["--frame-s=-1/60"], "0 or more"),
    (["--rotor-lead-s=-2"], "0 or more"),
])
def test_bad_input_exits_2_with_one_line(tmp_path, args, words):
    done = _edge(LEVEL, *args, "--runs", "4", "--results", str(tmp_path / "r.jsonl"), cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    last = [line for line in done.stderr.splitlines() if not line.startswith("pybullet build")]
    assert len(last) == 1 and words in last[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "r.jsonl").exists()      # refused before any spin


def test_unknown_design_kind_exits_2(tmp_path):
    odd = tmp_path / "odd.yaml"
    odd.write_text("name: a slot machine\nreels: 5\n", encoding="utf-8")
    done = _edge(str(odd), cwd=tmp_path)
    assert done.returncode == 2 and "neither a tower" in done.stderr


def test_cli_json_lines_and_a_self_contained_report(tmp_path):
    done = _edge(LEVEL, "--runs", "8", "--workers", "1", "--cutoff-s", "0,6", "--payout", "lightning", "--json",
                 "--report", str(tmp_path / "rep"), "--results", str(tmp_path / "r.jsonl"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    cutoffs = json_records(done.stdout, "edge", "cutoff")
    assert [x["cutoff_s"] for x in cutoffs] == [0.0, 6.0]
    assert all(x["runs"] == 4 and x["fit_runs"] == 4 for x in cutoffs)     # odd seeds held out
    verdict = json_record(done.stdout, "edge", "verdict")
    assert verdict["passed"] and verdict["payout"] == "lightning" and verdict["spins"] == 8
    assert "latest_safe_call_s" in verdict and len(verdict["latest_safe_call_interval_s"]) == 2
    page = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert 'src="data:image/svg+xml;base64,' in page
    again = _edge(LEVEL, "--runs", "8", "--workers", "1", "--cutoff-s", "0,6", "--payout", "lightning", "--json",
                  "--results", str(tmp_path / "r.jsonl"), cwd=tmp_path)
    assert again.stdout.splitlines()[:-1] == done.stdout.splitlines()[:-1]   # resumed: nothing run twice, same figures


def test_the_straight_chute_pays_a_player_who_sees_the_loading(tmp_path):
    done = _edge(CHUTE, "--runs", "60", "--workers", "1", "--json", "--results", str(tmp_path / "r.jsonl"),
                 cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    verdict = json_record(done.stdout, "edge", "verdict")
    assert verdict["low"] > 1.0 and verdict["house_edge"] < 0
