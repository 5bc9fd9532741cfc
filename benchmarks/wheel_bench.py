"""Benchmark of the wheel twin: speed against real time, and invalid spins.

    .venv/bin/python benchmarks/wheel_bench.py [--design fixtures/wheels/standard.yaml]
                                               [--count 2000] [--seed 0] [--json FILE]
    .venv/bin/python benchmarks/wheel_bench.py --tilt-sweep 0 0.05 0.1 0.15 0.2 0.3 0.5 [--count 2000]
        [--quiet-track | --roll-noise SIGMA]   # without the track's noise, or a direction-free one

Runs the spins one after another in this one process (one core) and reports
simulated seconds per wall-clock second and per CPU second (CPU time is the
fairer figure on a shared machine), the invalid spins and their reasons, the
track-phase realism figures (with the arc of the stator that holds every
leaving point: a tilt narrows it) and a chi-square test of the pockets.
Targets: at least 20x real time, fewer than 0.1% invalid spins.
Not a timed test: results depend on the machine; docs/wheel.md records them.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import chisquare
from tqdm import tqdm

from twin.wheel import load_design, spin

ROOT = Path(__file__).resolve().parents[1]


def arc_holding_all(angles_deg: list[float]) -> float:
    """The smallest arc of the stator holding every leaving angle: 360 minus the widest empty gap."""
    points = sorted(a % 360.0 for a in angles_deg)
    gaps = [b - a for a, b in zip(points, points[1:])] + [points[0] + 360.0 - points[-1]]
    return 360.0 - max(gaps)


def spins_to_flag(design, tilt_deg: float, most: int, every: int, confidence: float = 0.99,
                  quiet: bool = False, roll_sigma: float = 0.0) -> dict:
    """For a wheel tilted ``tilt_deg`` (low side as in ``design``): the widest empty
    arc of leaving points (Thorp's forbidden zone) over the first 200 spins and over
    all ``most``, and the fewest spins (checked every ``every``) after which the
    validator's leaving-angle checks flag it at ``confidence``: the widest empty arc
    or twelve 30-degree bins. The track phase alone decides the leaving angle, so
    only it is run; each spin on its own noisy track (``quiet``: the design's;
    ``roll_sigma``: instead of the design's noise, a direction-free one, the rolling
    resistance drawn per spin log-normally with this sigma of its logarithm)."""
    import dataclasses

    from twin.stats import largest_empty_arc, uniformity
    from twin.wheel.spin import draw_launch
    from twin.wheel.track import LeavingMap, TrackModel

    design = dataclasses.replace(design, tilt=dataclasses.replace(design.tilt, angle_deg=tilt_deg))
    if quiet or roll_sigma:
        design = dataclasses.replace(design, track_noise=None)
    angles, times = [], []
    flagged = None
    arc_200 = None
    for seed in range(most):
        launch = draw_launch(design, seed)
        # the leaving map: the track's own model solved along the angle, 20 times faster
        # than the ride and the same to 0.01 degrees (tests/twin/test_wheel_track.py)
        model = TrackModel.for_spin(design, seed)
        if roll_sigma:
            model.mu_roll *= float(np.exp(np.random.default_rng([seed, 99]).normal(0.0, roll_sigma)))
        time_s, angle = LeavingMap(model).leave(launch.ball_angle_rad, launch.ball_speed_m_s)
        angles.append(math.degrees(angle) % 360.0)
        times.append(time_s)
        n = seed + 1
        if n == 200:
            arc_200 = round(360.0 - arc_holding_all(angles), 1)
        if flagged is None and n % every == 0:
            arc = largest_empty_arc("leaving angle", angles, confidence)
            bins = collections.Counter(int((a % 360.0) // 30) for a in angles)
            chi = uniformity("leaving angle bins", [bins[i] for i in range(12)], confidence)
            if not arc.passed or not chi.passed:
                flagged = {"flagged_after": n, "by": "empty arc" if not arc.passed else "bins",
                           "empty_arc_then_deg": round(arc.statistic, 1)}
    return {"tilt_deg": tilt_deg, "track_noise": "rolling" if roll_sigma else not quiet, "empty_arc_200_deg": arc_200,
            f"empty_arc_{most}_deg": round(360.0 - arc_holding_all(angles), 1),
            **(flagged or {"flagged_after": None, "by": None}),
            "track_time_s": [round(min(times), 1), round(max(times), 1)]}


def tilt_sweep(design, tilts: list[float], most: int, every: int, quiet: bool = False,
               roll_sigma: float = 0.0) -> list[dict]:
    rows = []
    for tilt in tqdm(tilts, desc="tilts", unit="tilt", file=sys.stderr):
        rows.append(spins_to_flag(design, tilt, most, every, quiet=quiet, roll_sigma=roll_sigma))
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tilt-sweep", metavar="DEG", type=float, nargs="+",
                        help="instead: for each tilt, the spins after which the leaving-angle checks flag it "
                             "at 99%% (up to --count, checked every 50)")
    parser.add_argument("--quiet-track", action="store_true",
                        help="with --tilt-sweep: every spin on the design's exact track, without its noise")
    parser.add_argument("--roll-noise", type=float, default=0.0, metavar="SIGMA",
                        help="with --tilt-sweep: instead of the design's noise, the rolling resistance drawn per "
                             "spin, log-normal with this sigma (a direction-free noise, for comparison)")
    parser.add_argument("--design", default=str(ROOT / "fixtures" / "wheels" / "standard.yaml"))
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0, help="first seed; spins use seed, seed+1, ...")
    parser.add_argument("--json", metavar="FILE", help="also write the summary as JSON")
    args = parser.parse_args(argv)

    design = load_design(args.design)
    if args.tilt_sweep:
        rows = tilt_sweep(design, args.tilt_sweep, args.count, 50, args.quiet_track, args.roll_noise)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
        return 0
    results = []
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for seed in tqdm(range(args.seed, args.seed + args.count), desc="spins", unit="spin",
                     file=sys.stderr):
        results.append(spin(design, seed))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0

    simulated = sum(r.spin_time_s for r in results)
    valid = [r for r in results if r.valid]
    reasons = collections.Counter(r.invalid_reason for r in results if not r.valid)
    counts = collections.Counter(r.number for r in valid)
    chi = chisquare([counts.get(n, 0) for n in range(37)]) if len(valid) >= 5 * 37 else None
    track = [r.track_time_s for r in results]
    descent = [r.spin_time_s - r.track_time_s for r in valid]
    summary = {
        "design": args.design,
        "spins": len(results),
        "first_seed": args.seed,
        "invalid": len(results) - len(valid),
        "invalid_percent": round(100.0 * (len(results) - len(valid)) / len(results), 3),
        "invalid_reasons": dict(reasons),
        "simulated_s": round(simulated, 1),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "realtime_factor_wall": round(simulated / wall, 1),
        "realtime_factor_cpu": round(simulated / cpu, 1),
        "track_time_s": {"min": round(min(track), 2), "mean": round(statistics.fmean(track), 2),
                         "max": round(max(track), 2)},
        "descent_time_s": ({"min": round(min(descent), 2), "mean": round(statistics.fmean(descent), 2),
                            "max": round(max(descent), 2)} if descent else None),
        "leave_angle_arc_deg": round(arc_holding_all([r.leave_angle_deg for r in results]), 1),
        "ball_revolutions_mean": round(statistics.fmean(r.ball_revolutions for r in results), 2),
        "pockets_chi_square_p": round(float(chi.pvalue), 4) if chi is not None else None,
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
