"""The wheels' edge figures of docs/edge.md: each design's latest safe "no more
bets" with its interval, the tilted wheel's low-side sweep, and the comparisons.

    nice -n 10 .venv/bin/python benchmarks/wheel_edge_bench.py [--spins N] [--resamples 100]
        [--designs NAME ...] [--workers 2] [--frame-s 1/60 --angle-res-deg 1]

Reads the campaigns of ``benchmarks/wheel_campaigns.py`` (seeds 0, 1, ... as
far as they run unbroken, at most ``--spins``; no physics is run), makes the
predictions (kept beside each campaign, resumable) and the edges per cutoff and
payout, and the verdict at 29 to 1 with its interval from ``--resamples``
bootstrap draws. Then compares the level wheel with each tilted one, and the
tilted ones with each other, only where the intervals part. Prints Markdown
and writes ``benchmarks/results/wheel_edge.json`` (wall-clock seconds of the
predictions and of the resampling included).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from wheel_campaigns import RESULTS, designs  # noqa: E402
from wheel_scatter import records_of  # noqa: E402

from twin.edge import Camera, estimate_edge  # noqa: E402
from twin.edge.verdict import compare  # noqa: E402


def _fraction(text: str) -> float:
    a, _, b = text.partition("/")
    return float(a) / float(b) if b else float(a)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", nargs="+", default=None)
    parser.add_argument("--spins", type=int, default=None)
    parser.add_argument("--resamples", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--frame-s", type=_fraction, default=1 / 60)
    parser.add_argument("--angle-res-deg", type=float, default=1.0)
    parser.add_argument("--cutoff-s", type=lambda t: [float(x) for x in t.split(",")], default=None)
    parser.add_argument("--json", default=str(RESULTS / "wheel_edge.json"))
    args = parser.parse_args(argv)
    known = designs(RESULTS / "designs")
    names = args.designs or list(known)
    camera = Camera(frame_s=args.frame_s, angle_res_deg=args.angle_res_deg)
    verdicts, summary = {}, {}
    for name in names:
        records = records_of(known[name], args.spins)
        records = records[:len(records) // 2 * 2]            # as many fit as held out
        if not records:
            print(f"{name}: no spins yet", file=sys.stderr)
            continue
        started = time.perf_counter()
        outcome = estimate_edge(known[name], len(records), records=records, camera=camera, workers=args.workers,
                                resamples=args.resamples, cutoffs=args.cutoff_s, progress=True)
        wall = time.perf_counter() - started
        verdicts[name] = outcome.verdict
        summary[name] = dict(outcome.verdict_json(), wall_s=round(wall, 1), rows=[r.to_json() for r in outcome.rows])
        print(f"\n## {name}: {len(records)} spins ({outcome.invalid} invalid left out); predictions "
              f"{outcome.predict_s:.0f} s, resampling {outcome.resample_s:.0f} s (wall)\n")
        print("| cutoff s | 29 to 1: bets, edge (99% interval) | 35 to 1: bets, edge (99% interval) | "
              "with Lucky Numbers | informed | predicted at | the player's bets (29 to 1) |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        by = {(r.cutoff_s, r.payout): r for r in outcome.rows}
        for c in outcome.cutoffs:
            cells = []
            for key in ("lightning", "classic"):
                r = by[(c, key)]
                e = r.edge
                cells.append(f"{r.numbers}, {100 * e.edge:+.1f}% ({100 * e.low:+.1f}% to {100 * e.high:+.1f}%)")
            lucky, main = by[(c, "lightning-lucky")], by[(c, "lightning")]
            share = f", {100 * main.bet_share:.0f}% of spins" if main.bet_share < 1 else ""
            print(f"| {c:g} | {cells[0]} | {cells[1]} | {100 * lucky.edge.edge:+.1f}% | {100 * main.informed:.0f}% | "
                  f"{main.seen_at_s:g} | {main.strategy}{share} |")
        print(f"\nlatest safe call at 29 to 1: {outcome.verdict.text()}")
        for key in ("classic", "lightning-lucky"):
            print(f"latest safe call, {key}: {outcome.safe_call(key)}")
    print("\n## comparisons\n")
    lines = []
    for a, b in itertools.combinations(verdicts, 2):
        lines.append(compare(a, verdicts[a], b, verdicts[b]))
        print(f"- {lines[-1]}")
    summary["comparisons"] = lines
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
