"""Benchmark of ``twin edge``: the figures of docs/edge.md for the shipped designs.

    .venv/bin/python benchmarks/edge_bench.py [--designs FILE ...] [--spins 2000] [--drops 4000]
        [--workers 2] [--observer passages|frames] [--json FILE]

For each design: the edge estimate at the default cutoff ladder (a wheel,
every payout table) or from the loaded faces (a tower), the latest safe "no
more bets" per payout, and the wall-clock time of the campaign (physics) and
of the predictions. Campaigns are ``twin validate``'s own files
(``.twin-validate/``), so a design validated before costs no physics here,
and an interrupted benchmark resumes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from twin.edge import Camera, estimate_edge
from twin.kinds import design_kind

SHIPPED = ["fixtures/wheels/standard.yaml", "fixtures/wheels/tilted.yaml",
           "fixtures/towers/standard.yaml", "fixtures/towers/straight-chute.yaml"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", nargs="+", default=SHIPPED)
    parser.add_argument("--spins", type=int, default=2000)
    parser.add_argument("--drops", type=int, default=4000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--observer", choices=("passages", "frames"), default="passages")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    summary = []
    for path in args.designs:
        kind = design_kind(path)
        started = time.perf_counter()
        outcome = estimate_edge(path, args.spins if kind == "wheel" else args.drops, workers=args.workers,
                                camera=Camera(mode=args.observer) if kind == "wheel" else None,
                                progress=True)
        wall = time.perf_counter() - started
        row = dict(outcome.verdict_json(), wall_s=round(wall, 1))
        summary.append(row)
        print(f"\n{path}: {outcome.runs} runs, wall {wall:.0f} s (campaign {outcome.campaign_s:.0f} s, "
              f"predictions {outcome.predict_s:.0f} s)")
        if kind == "wheel":
            print("| cutoff s | payout | numbers | edge | 99% interval | house edge | predicted at |")
            print("| --- | --- | --- | --- | --- | --- | --- |")
            for r in outcome.rows:
                e = r.edge
                print(f"| {r.cutoff_s:g} | {r.payout} | {r.numbers} | {100 * e.edge:+.1f}% | "
                      f"{100 * e.low:+.1f}% to {100 * e.high:+.1f}% | {100 * e.house_edge:+.1f}% | {r.seen_at_s:g} |")
            for p in outcome.payouts:
                print(f"latest safe call, {p.key}: {outcome.safe_call(p.key)}")
        else:
            t = outcome.tower
            print(f"edge {100 * t.edge.edge:+.1f}% (99%: {100 * t.edge.low:+.1f}% to {100 * t.edge.high:+.1f}%), "
                  f"house edge of the bets used {100 * t.edge.house_edge:+.1f}%, {t.edge.runs} held out; "
                  f"bets {t.bets}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(summary, out, indent=2)
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
