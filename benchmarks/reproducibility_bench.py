"""The same seed, the same bytes, on any machine: every shipped design under
every variant of what a machine may differ in, and what it costs.

    .venv/bin/python benchmarks/reproducibility_bench.py [--count 200] [--variants NAME ...]
        [--speed-only] [--json FILE]

For each shipped tower and wheel, ``--count`` drops or spins (seeds 0 ..
count-1) as ``twin drop --json`` / ``twin spin --json`` print them, in a child
process per variant (the BLAS kernel, its threads, numpy's SIMD loops, glibc's
view of an older CPU: tests/twin/test_reproducible_everywhere.py's list); each
variant's bytes are compared with the machine's defaults. Then the cost:
drops and spins per CPU second in this process (the median of 3 rounds of
``--speed-count`` each), to compare side by side with another checkout
(``PYTHONPATH=OTHER_CHECKOUT ... --speed-only``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "twin"))

DESIGNS = (("drop", "towers/standard"), ("drop", "towers/narrow-tray"), ("drop", "towers/straight-chute"),
           ("spin", "wheels/standard"), ("spin", "wheels/tilted"))


def outputs(variant_env: dict[str, str], count: int) -> dict[str, str]:
    from test_reproducible_everywhere import HOST_KNOBS   # the variants and the knobs they set
    from tablebench_io import portable_math
    env = {k: v for k, v in os.environ.items() if k not in HOST_KNOBS}
    env.update(variant_env)
    out = {}
    for verb, design in DESIGNS:
        done = subprocess.run([sys.executable, "-m", "twin.cli", verb, design, "--seed", "0", "--count", str(count),
                               "--json"], env=portable_math.pinned(env), cwd=ROOT, capture_output=True,
                              timeout=3600, stdin=subprocess.DEVNULL)
        if done.returncode:
            raise SystemExit(f"{verb} {design}: exit {done.returncode}: {done.stderr.decode()[-300:]}")
        out[design] = hashlib.sha256(done.stdout).hexdigest()
    return out


def speed(count: int) -> dict[str, float]:
    """Drops and spins per CPU second, the median of three rounds."""
    from twin.tower.design import load_design as load_tower
    from twin.tower.dropping import drop
    from twin.wheel.design import load_design as load_wheel
    from twin.wheel.spin import spin
    import tablebench_fixtures
    tower = load_tower(tablebench_fixtures.resolve("towers/standard", "tower"))
    wheel = load_wheel(tablebench_fixtures.resolve("wheels/standard", "wheel"))
    drop(tower, 0), spin(wheel, 0)            # worlds built, caches warm
    rates: dict[str, list[float]] = {"drops_per_cpu_s": [], "spins_per_cpu_s": []}
    for r in range(3):
        start = time.process_time()
        for seed in range(count):
            drop(tower, 1000 + r * count + seed)
        rates["drops_per_cpu_s"].append(count / (time.process_time() - start))
        start = time.process_time()
        for seed in range(count // 4):
            spin(wheel, 1000 + r * count + seed)
        rates["spins_per_cpu_s"].append((count // 4) / (time.process_time() - start))
    return {k: round(statistics.median(v), 2) for k, v in rates.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="drops or spins of each design (default 200)")
    parser.add_argument("--variants", nargs="*", help="only these variants (names as in the test)")
    parser.add_argument("--speed-only", action="store_true", help="only the cost, in this process")
    parser.add_argument("--speed-count", type=int, default=120, help="drops a round of the cost (spins: a quarter)")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()
    result: dict = {"speed": speed(args.speed_count)}
    print(json.dumps(result["speed"]), flush=True)
    if not args.speed_only:
        from test_reproducible_everywhere import VARIANTS
        names = args.variants or list(VARIANTS)
        reference = outputs({}, args.count)
        result["variants"] = {}
        for name in names:
            start = time.monotonic()
            got = outputs(VARIANTS[name], args.count)
            differ = sorted(d for d in reference if got[d] != reference[d])
            result["variants"][name] = differ
            print(f"{name:32s} {'identical' if not differ else 'DIFFERS: ' + ', '.join(differ)} "
                  f"({time.monotonic() - start:.0f} s)", flush=True)
        result["identical"] = not any(result["variants"].values())
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0 if result.get("identical", True) else 1


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
