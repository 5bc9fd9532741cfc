"""The latest safe call of blocks of one long campaign, side by side: what two
campaigns of N spins from two first seeds say (issue 39, part 5).

    nice -n 15 .venv/bin/python benchmarks/edge_blocks_bench.py [--designs standard tilted]
        [--spins 2000] [--first-seeds 0 8000] [--full] [--resamples 100] [--json FILE]

Reads a finished campaign and its predictions as ``twin edge --spins 16000``
left them in ``.twin-validate/`` (default observer, noise seed 0, the
default cutoffs), runs no physics and no prediction, and makes the verdict
at 29 to 1 of each block of ``--spins`` seeds starting at each first seed
(``--full``: of the whole campaign too): the call, its interval, the share
of spins the call's deciding rung bets on and which class it is, and
``verdict.compare`` between the blocks. Read-only: the kept files are not
touched.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from twin.edge.bets import class_count
from twin.edge.payouts import straight_payouts
from twin.edge.verdict import compare, verdict
from twin.edge.wheel import ladder_edges, ladder_of
from twin.edge.estimate import latest_safe_cutoff
from twin.wheel.design import load_design

REPO = Path(__file__).resolve().parents[1]
KEPT = REPO / ".twin-validate"
CAMPAIGNS = {"standard": "standard-d1bc68935001-wheel-seed0", "tilted": "tilted-0f113000ccf6-wheel-seed0"}


def _lines(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8")
    whole = text[:text.rfind("\n") + 1]          # a torn last line is left out, not cut off the file
    return [json.loads(line) for line in whole.splitlines()]


def kept(name: str) -> tuple[dict[int, dict], dict[int, dict], list[float]]:
    """A design's campaign records and predictions by seed, and the predictions' cutoffs."""
    stem = CAMPAIGNS[name]
    records = {int(r["seed"]): r for r in _lines(KEPT / f"{stem}.jsonl")[1:]}
    edge_files = sorted(KEPT.glob(f"{stem}.edge-*.jsonl"))
    if not edge_files:
        raise SystemExit(f"{KEPT}: no predictions of {stem}: run twin edge wheels/{name} --spins 16000 first")
    lines = _lines(edge_files[0])
    predictions = {int(p["seed"]): p for p in lines[1:]}
    return records, predictions, list(lines[0]["cutoffs"])


def block(records: dict[int, dict], predictions: dict[int, dict], first: int, spins: int) -> list[dict]:
    out = [records[s] for s in range(first, first + spins) if s in records]
    return [r for r in out if not r["valid"] or r["seed"] in predictions]


def one(design, records, predictions, cutoffs, resamples: int) -> dict:
    payout = straight_payouts()["lightning"]
    ladder = ladder_of(design, records, predictions, cutoffs)
    rows = ladder_edges(ladder, payout, 0.99)
    point = latest_safe_cutoff([r.cutoff_s for r in rows], [r.edge for r in rows])
    started = time.process_time()
    v = verdict(ladder, payout, 0.99, point, resamples)
    cpu = time.process_time() - started
    # the rung that ends the call (the first not shown safe) and what it bets on
    deciding = next((r for r in rows if not r.edge.high < 0), None)
    return {"verdict": v, "cpu_s": round(cpu, 1), "rows": rows, "deciding": deciding,
            "classes": {c: class_count(c) for c in ("none", "rotor", "place", "both")}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", nargs="+", default=list(CAMPAIGNS))
    parser.add_argument("--spins", type=int, default=2000)
    parser.add_argument("--first-seeds", type=int, nargs="*", default=[0, 8000])
    parser.add_argument("--full", action="store_true", help="the whole campaign's verdict too")
    parser.add_argument("--resamples", type=int, default=100)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    summary: dict = {}
    for name in args.designs:
        design = load_design(REPO / "fixtures" / "wheels" / f"{name}.yaml")
        records, predictions, cutoffs = kept(name)
        blocks = [(f"seeds {s}-{s + args.spins - 1}", block(records, predictions, s, args.spins))
                  for s in args.first_seeds]
        if args.full:
            blocks.append((f"all {len(records)}", block(records, predictions, 0, len(records))))
        verdicts = {}
        for label, recs in blocks:
            got = one(design, recs, predictions, cutoffs, args.resamples)
            v, d = got["verdict"], got["deciding"]
            verdicts[label] = v
            where = ("every rung shown safe" if d is None else
                     f"first rung not shown safe {d.cutoff_s:g} s: {100 * d.edge.edge:+.1f}% "
                     f"({100 * d.edge.low:+.1f}% to {100 * d.edge.high:+.1f}%), {d.numbers} numbers, "
                     f"{d.strategy}, {100 * d.bet_share:.1f}% of held-out spins ({d.edge.runs} bet)")
            line = f"{name}, {label}: {v.text()}; {where}; {got['cpu_s']} CPU s"
            print(line, flush=True)
            summary.setdefault(name, {})[label] = {"line": line, **v.to_json(), "split_differences": v.differences,
                                                   "deciding_bet_share": None if d is None else d.bet_share,
                                                   "min_bet_share": min(r.bet_share for r in got["rows"])}
        labels = list(verdicts)
        for i, a in enumerate(labels):
            for b in labels[i + 1:]:
                said = compare(a, verdicts[a], b, verdicts[b])
                print(f"  {name}: {said}")
                summary[name][f"{a} vs {b}"] = said
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1, default=str) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
