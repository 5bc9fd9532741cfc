"""Benchmark of ``twin validate``: campaign speed with 1 and 2 workers, and
how many runs each bad design needs before it is flagged.

    .venv/bin/python benchmarks/validate_bench.py speed [--drops 20000] [--seed 0] [--json FILE]
    .venv/bin/python benchmarks/validate_bench.py flagged RESULTS.jsonl [--check KEY] [--json FILE]

``speed``: the same campaign of the standard tower (seeds S..S+N-1) is run
with 1 worker and then with 2 (fresh results files, so nothing is resumed),
and drops per wall-clock second and the ratio are reported side by side;
the records of both runs are compared (they must be identical). Target
(issue 7): at least 1.8x with 2 workers. On a shared machine the wall-clock
ratio is only as good as the second core is free.

``flagged``: from a campaign's results file (``--results`` of twin validate),
the smallest prefix of the campaign (5, 10, 15, ... runs, seed order) at
which the family fails, and the first at which it fails from then on, with
the checks that fail there; ``--check`` names the check expected to fail.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from twin.validate import validate
from twin.validate.runs import TOWER, _design
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
    design = _design(kind, str(ROOT / header["design"]) if not Path(header["design"]).is_absolute()
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
    args = parser.parse_args(argv)
    summary = speed(args.drops, args.seed) if args.mode == "speed" else flagged(args.results, args.check, args.step)
    text = json.dumps(summary, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
