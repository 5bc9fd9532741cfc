"""How the verdict's interval and comparison behave on wheels whose edge is known
(issue 39, part 5): campaigns drawn by ``twin.edge.planted``, no physics.

    nice -n 15 .venv/bin/python benchmarks/edge_coverage_bench.py [--campaigns 8] [--spins 2000]
        [--resamples 40] [--json FILE]

Wheel A plants an edge that grows along the ladder (in one rotor-speed bin, a
third of the spins); wheel B is A one rung later (``--b-later N``: N rungs). For each of ``--campaigns``
seeds of each wheel: the latest safe call, and its interval made two ways
from the same splits judged as the whole campaign (``replicate``: the
shipped one, the call moved by the splits' differences over the square root
of 2; ``halves``: the halves' own calls' central 95%) and the way before
issue 39 (``as halves``: halvings judged as campaigns of half the spins,
their calls' central 95%). Then, over every
ordered pair of campaigns of one wheel, how often the one's interval holds
the other's call (what the done-when asks of two seeds), the mean width in
rungs, how often ``verdict.compare`` says two campaigns of one wheel differ
(the error rate it states) and how often it tells A from B (its power), and
the share of calls whose first rung not shown safe bets under 1% of the spins.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

from twin.edge.estimate import latest_safe_cutoff
from twin.edge.payouts import straight_payouts
from twin.edge.planted import planted_ladder
from twin.edge.verdict import (ALPHA, LEVEL, Verdict, difference_p, interval, replication_interval,
                               resampled_calls, rung, split_differences)
from twin.edge.wheel import ladder_edges

CUTOFFS = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0]
INFORMED = [0.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0]
PLANTED = {"A": [0.0, 0.0, 0.005, 0.01, 0.02, 0.04, 0.08]}


def shifted(rungs: int) -> list[float]:
    """Wheel A's planted edge ``rungs`` rungs later (wheel B)."""
    return [0.0] * rungs + PLANTED["A"][:len(PLANTED["A"]) - rungs]


def campaign(wheel: str, seed: int, spins: int, resamples: int, old_too: bool) -> dict:
    payout = straight_payouts()["lightning"]
    ladder = planted_ladder(seed, spins, CUTOFFS, PLANTED[wheel], INFORMED, in_rotor_bin=2)
    rows = ladder_edges(ladder, payout, 0.99)
    point = latest_safe_cutoff([r.cutoff_s for r in rows], [r.edge for r in rows])
    deciding = next((r for r in rows if not r.edge.high < 0), None)
    calls = resampled_calls(ladder, payout, 0.99, resamples)
    differences = split_differences(calls, CUTOFFS)
    out = {"wheel": wheel, "seed": seed, "call": point, "differences": differences,
           "small_class": deciding is not None and deciding.bet_share < 0.01,
           "replicate": replication_interval(point, differences, CUTOFFS), "halves": interval(calls, LEVEL)}
    if old_too:
        out["as_halves"] = interval(resampled_calls(ladder, payout, 0.99, resamples, as_whole=False), LEVEL)
    return out


def holds(iv, call) -> bool:
    lo, hi = (rung(x, CUTOFFS) for x in iv)
    return lo <= rung(call, CUTOFFS) <= hi


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=8)
    parser.add_argument("--spins", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=40)
    parser.add_argument("--b-later", type=int, default=1, help="wheel B: wheel A this many rungs later (default 1)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    PLANTED["B"] = shifted(args.b_later)
    started = time.process_time()
    runs = {w: [] for w in PLANTED}
    for wheel in PLANTED:
        for seed in range(args.campaigns):
            runs[wheel].append(campaign(wheel, seed, args.spins, args.resamples, old_too=wheel == "A"))
            r = runs[wheel][-1]
            print(f"{wheel} seed {seed}: call {r['call']}, replicate {r['replicate']}, halves {r['halves']}"
                  + (f", as halves {r['as_halves']}" if "as_halves" in r else ""), flush=True)
    summary: dict = {"spins": args.spins, "campaigns": args.campaigns, "resamples": args.resamples}
    for wheel, got in runs.items():
        calls = [r["call"] for r in got]
        summary[wheel] = {"calls": calls}
        for way in ("replicate", "halves", "as_halves"):
            if way not in got[0]:
                continue
            pairs = [(a, b) for a, b in itertools.permutations(got, 2)]
            held = sum(holds(a[way], b["call"]) for a, b in pairs) / len(pairs)
            width = float(np.mean([rung(r[way][1], CUTOFFS) - rung(r[way][0], CUTOFFS) for r in got]))
            summary[wheel][way] = {"holds_others_call": round(held, 3), "mean_width_rungs": round(width, 2)}
        summary[wheel]["small_class_calls"] = sum(r["small_class"] for r in got)
    verdicts = {w: [Verdict("lightning", r["call"], r["replicate"], args.spins, args.resamples, LEVEL,
                            tuple(CUTOFFS), tuple(r["differences"])) for r in got] for w, got in runs.items()}
    same = [difference_p(a, b) for a, b in itertools.combinations(verdicts["A"], 2)]
    same += [difference_p(a, b) for a, b in itertools.combinations(verdicts["B"], 2)]
    apart = [difference_p(a, b) for a in verdicts["A"] for b in verdicts["B"]]
    summary["compare"] = {"alpha": ALPHA,
                          "alike_said_to_differ": round(float(np.mean([p < ALPHA for p in same])), 3),
                          "pairs_alike": len(same),
                          "a_told_from_b": round(float(np.mean([p < ALPHA for p in apart])), 3),
                          "pairs_apart": len(apart)}
    summary["cpu_s"] = round(time.process_time() - started, 1)
    print(json.dumps(summary, indent=1, default=str))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1, default=str) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
