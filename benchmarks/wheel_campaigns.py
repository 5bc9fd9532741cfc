"""The spins behind docs/edge.md and docs/wheel.md: the shipped wheels, and the
tilted wheel with its low side at four places among the deflectors.

    nice -n 10 .venv/bin/python benchmarks/wheel_campaigns.py [--spins 16000] [--sweep-spins 8000]
        [--step 2000] [--workers 2] [--engine local|ray] [--ray-address ADDR] [--only NAME ...]

Each design's spins are a ``twin validate`` campaign (its resumable JSON-lines
file under ``.twin-validate/``, the same file ``twin edge`` and ``twin validate``
read), so this script can be stopped at any time and run again: it carries on
where it stopped. It grows the campaigns in turn, ``--step`` spins at a time
(2000, 4000, ...), the shipped designs (standard, and tilted with its low side
at 0, as shipped) up to ``--spins``, the other three low sides up to
``--sweep-spins``, so that if the time runs out the designs have about as many
spins as each other. After each step it appends one line to
``benchmarks/results/wheel_campaigns.jsonl``: the design, the spins done, the
invalid spins, and the wall-clock and CPU seconds of that step.

The other tilted designs are written next to that file (``designs/tilted-low-*.yaml``):
``fixtures/wheels/tilted.yaml`` (low side 0) with only ``tilt.low_side_deg`` changed. The 8
deflectors stand every 45 degrees from 22.5, so 0, 11.25, 22.5 and 33.75 put
the low side (and with it the zone the ball leaves from) at four places along
one deflector's period.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
LOW_SIDES = (0.0, 11.25, 22.5, 33.75)
SHIPPED = ("standard", "tilted-low-0")     # tilted.yaml has its low side at 0


def tilted_variant(low_side_deg: float, folder: Path) -> Path:
    """tilted.yaml with its low side at ``low_side_deg``, written to ``folder``."""
    text = (ROOT / "fixtures" / "wheels" / "tilted.yaml").read_text(encoding="utf-8")
    changed, count = re.subn(r"(?m)^(  low_side_deg:\s*)[-0-9.]+", rf"\g<1>{low_side_deg:g}", text)
    if count != 1:
        raise SystemExit("fixtures/wheels/tilted.yaml: tilt.low_side_deg not found once")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"tilted-low-{low_side_deg:g}.yaml"
    if not path.exists() or path.read_text(encoding="utf-8") != changed:
        path.write_text(changed, encoding="utf-8")
    return path


def designs(folder: Path) -> dict[str, Path]:
    """The shipped designs themselves (their campaigns are the ones ``twin edge
    wheels/tilted`` reads), and the tilted wheel turned to the other low sides."""
    out = {"standard": ROOT / "fixtures" / "wheels" / "standard.yaml",
           "tilted-low-0": ROOT / "fixtures" / "wheels" / "tilted.yaml"}
    for low in LOW_SIDES[1:]:
        out[f"tilted-low-{low:g}"] = tilted_variant(low, folder)
    return out


def cpu_seconds() -> float:
    """This process's and its finished children's CPU time (the workers')."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv=None) -> int:
    from twin.validate.campaign import Plan, default_results_path, run_campaign
    from twin.validate.engines import make_engine

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spins", type=int, default=16000)
    parser.add_argument("--sweep-spins", type=int, default=8000,
                        help="spins of the tilted wheels other than the shipped one (low side 0)")
    parser.add_argument("--step", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--engine", choices=("local", "ray"), default="local")
    parser.add_argument("--ray-address")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="standard, tilted-low-0, tilted-low-11.25, ...")
    args = parser.parse_args(argv)
    log = RESULTS / "wheel_campaigns.jsonl"
    chosen = designs(RESULTS / "designs")
    if args.only:
        unknown = [n for n in args.only if n not in chosen]
        if unknown:
            parser.error(f"unknown design {unknown}; known: {', '.join(chosen)}")
        chosen = {n: chosen[n] for n in args.only}
    most = max(args.spins, args.sweep_spins)
    for step_target in range(args.step, most + args.step, args.step):
        for name, path in chosen.items():
            limit = args.spins if name in SHIPPED else args.sweep_spins
            target = min(step_target, limit)
            if step_target - args.step >= limit:
                continue
            plan = Plan("wheel", str(path), path.read_text(encoding="utf-8"), 0, target)
            results = default_results_path(plan)
            engine = make_engine(args.engine, args.workers, args.ray_address)
            wall, cpu = time.perf_counter(), cpu_seconds()
            try:
                before = sum(1 for _ in results.open()) - 1 if results.exists() else 0
                records = run_campaign(plan, engine, results, progress=True)
            finally:
                engine.close()
            wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
            row = {"design": name, "file": str(results), "spins": len(records), "new": len(records) - max(0, before),
                   "invalid": sum(not r["valid"] for r in records), "wall_s": round(wall, 1),
                   "cpu_s": round(cpu, 1), "at": time.strftime("%Y-%m-%d %H:%M:%S")}
            RESULTS.mkdir(parents=True, exist_ok=True)
            with log.open("a", encoding="utf-8") as out:
                out.write(json.dumps(row) + "\n")
            print(json.dumps(row), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
