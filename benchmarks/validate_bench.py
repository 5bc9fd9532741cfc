"""Benchmark of ``twin validate``: campaign speed with 1 and 2 workers, and
how many runs each bad design needs before it is flagged.

    .venv/bin/python benchmarks/validate_bench.py speed [--drops 20000] [--seed 0] [--json FILE]
    .venv/bin/python benchmarks/validate_bench.py flagged RESULTS.jsonl [--check KEY] [--json FILE]
    .venv/bin/python benchmarks/validate_bench.py power [--keep 0.23 0.20] [--sizes ...] [--campaigns 100]
    .venv/bin/python benchmarks/validate_bench.py tilt [--tilts 0.02 0.05 0.1 0.2] [--sizes ...]

``speed``: the same campaign of the standard tower (seeds S..S+N-1) is run
with 1 worker and then with 2 (fresh results files, so nothing is resumed),
and drops per wall-clock second and the ratio are reported side by side;
the records of both runs are compared (they must be identical). Target:
at least 1.8x with 2 workers. On a shared machine the wall-clock
ratio is only as good as the second core is free.

``flagged``: from a campaign's results file (``--results`` of twin validate),
the smallest prefix of the campaign (5, 10, 15, ... runs, seed order) at
which the family fails, and the first at which it fails from then on, with
the checks that fail there; ``--check`` names the check expected to fail.

``power``: how many drops a subtler tower needs: synthetic campaigns whose
dice keep their loaded face with probability ``--keep`` (0.23 is the straight
chute of the scouting notes), the share flagged by the family at each size.
``tilt``: how many spins a slightly tilted wheel needs, from the track ODE
alone (where the ball leaves does not depend on the descent).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from twin.validate import validate
from twin.validate.runs import TOWER, design_for
from twin.validate.verdict import judge

ROOT = Path(__file__).resolve().parents[1]


def speed(drops: int, seed: int) -> dict:
    design = ROOT / "fixtures" / "towers" / "standard.yaml"
    out = {"drops": drops, "first_seed": seed}
    records = {}
    with tempfile.TemporaryDirectory() as folder:
        for workers in (1, 2):
            t0 = time.perf_counter()
            outcome = validate(design, drops, workers=workers, seed=seed,
                               results=Path(folder) / f"w{workers}.jsonl", progress=True)
            wall = time.perf_counter() - t0
            records[workers] = outcome.records
            out[f"workers_{workers}"] = {"wall_s": round(wall, 2), "drops_per_s": round(drops / wall, 2),
                                         "passed": outcome.passed, "failed": outcome.failed}
    out["speed_up"] = round(out["workers_1"]["wall_s"] / out["workers_2"]["wall_s"], 3)
    out["identical_records"] = records[1] == records[2]
    return out


def flagged(results: Path, check: str | None, step: int = 5) -> dict:
    lines = results.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    records = [json.loads(line) for line in lines[1:]]
    records.sort(key=lambda r: r["seed"])
    kind = header["kind"]
    design = design_for(kind, str(ROOT / header["design"]) if not Path(header["design"]).is_absolute()
                     else header["design"], None)
    if kind == TOWER:
        from twin.validate.tower_checks import tower_checks as checks_of
    else:
        from twin.validate.wheel_checks import wheel_checks as checks_of
    verdicts = []
    for n in range(step, len(records) + 1, step):
        checks = judge(checks_of(records[:n], 0.99, design), 0.99)
        failed = [c.key for c in checks if c.passed is False]
        verdicts.append((n, failed))

    def hit(failed):
        return bool(failed) and (check is None or check in failed)
    first = next((n for n, f in verdicts if hit(f)), None)
    stays = next((n for i, (n, f) in enumerate(verdicts) if all(hit(g) for _, g in verdicts[i:])), None)
    return {"results": str(results), "kind": kind, "runs": len(records), "check": check,
            "first_flagged_at": first, "flagged_from_then_on_at": stays,
            "failed_at_first": dict(verdicts).get(first) if first else None,
            "failed_at_end": verdicts[-1][1] if verdicts else None}


def tower_power(keeps: list[float], sizes: list[int], campaigns: int, seed: int) -> dict:
    """Synthetic towers whose dice keep their loaded top face with probability
    ``keep`` (the other faces sharing the rest): the share of campaigns of each
    size that the whole family (Holm) flags on the loaded face."""
    import random

    from twin.validate.tower_checks import tower_checks
    rng = random.Random(seed)

    def die(loaded: int, keep: float) -> int:
        return loaded if rng.random() < keep else rng.choice([f for f in range(1, 7) if f != loaded])

    out = {}
    for keep in keeps:
        row = {}
        for n in sizes:
            flagged = 0
            for _ in range(campaigns):
                records = []
                for s in range(n):
                    loaded = [rng.randint(1, 6) for _ in range(3)]
                    records.append({"seed": s, "faces": [die(x, keep) for x in loaded], "loaded": loaded,
                                    "no_roll": False, "settled": True, "settle_time_s": 1.0, "not_flat": []})
                checks = judge(tower_checks(records, 0.99), 0.99)
                flagged += any(c.key == "loaded_face_dependence" and c.passed is False for c in checks)
            row[n] = flagged / campaigns
        out[f"keep {keep:g}"] = row
    return out


def wheel_tilt(tilts: list[float], sizes: list[int], seed: int, family: int = 5) -> dict:
    """Leaving angles of the track phase alone (the ODE, milliseconds a
    spin) for the standard wheel tilted by each angle: for each campaign size
    (the first n seeds), the p-values of the two leaving-angle tests, and
    whether the family flags it (Holm's first step: p times the family's size
    below 1%)."""
    from dataclasses import replace

    from twin.stats import largest_empty_arc, uniformity
    from twin.wheel import load_design
    from twin.wheel.spin import draw_launch
    from twin.wheel.track import TrackModel
    level = load_design(ROOT / "fixtures" / "wheels" / "standard.yaml")
    out = {}
    for tilt in tilts:
        design = replace(level, tilt=replace(level.tilt, angle_deg=tilt))
        model = TrackModel(design)
        angles = []
        for s in range(seed, seed + max(sizes)):
            launch = draw_launch(design, s)
            exit_, _ = model.ride(launch.ball_angle_rad, launch.ball_speed_m_s)
            angles.append(exit_.angle_deg % 360.0)
        row = {}
        for n in sizes:
            arc = largest_empty_arc("arc", angles[:n])
            bins = [0] * 12
            for a in angles[:n]:
                bins[int(a // 30) % 12] += 1
            p_bins = uniformity("bins", bins).p_value
            row[n] = {"empty_arc_deg": round(arc.statistic, 1), "p_arc": arc.p_value, "p_bins": p_bins,
                      "flagged": min(arc.p_value, p_bins) * family < 0.01}
        out[f"tilt {tilt:g} deg"] = row
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("speed")
    s.add_argument("--drops", type=int, default=20000)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--json", metavar="FILE")
    f = sub.add_parser("flagged")
    f.add_argument("results", type=Path)
    f.add_argument("--check")
    f.add_argument("--step", type=int, default=5)
    f.add_argument("--json", metavar="FILE")
    p = sub.add_parser("power", help="synthetic towers keeping their loaded face: share flagged by size")
    p.add_argument("--keep", type=float, nargs="+", default=[0.23, 0.20])
    p.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 300, 500, 750, 1000, 1500])
    p.add_argument("--campaigns", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="FILE")
    t = sub.add_parser("tilt", help="leaving angles of slightly tilted wheels (track ODE only) by campaign size")
    t.add_argument("--tilts", type=float, nargs="+", default=[0.02, 0.05, 0.1, 0.2])
    t.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 50, 100, 200, 500, 1000])
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    if args.mode == "speed":
        summary = speed(args.drops, args.seed)
    elif args.mode == "flagged":
        summary = flagged(args.results, args.check, args.step)
    elif args.mode == "power":
        summary = tower_power(args.keep, args.sizes, args.campaigns, args.seed)
    else:
        summary = wheel_tilt(args.tilts, args.sizes, args.seed)
    text = json.dumps(summary, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
