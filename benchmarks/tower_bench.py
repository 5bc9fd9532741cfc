"""Benchmark of the Lightning Dice tower twin: speed, Python overhead, parallel
speed-up, and the realism figures (cocked rates, fair faces, load dependence).

    .venv/bin/python benchmarks/tower_bench.py [--count 3000] [--narrow 600] [--chute 300]
                                               [--batch 100] [--parallel 200] [--json FILE]

Speed: the standard design's drops run in batches of ``--batch`` in this one
process; drops per second per core is the median over batches (wall clock;
CPU time beside it, the fairer figure on a shared machine). Overhead: one
batch is run again with ``pybullet.stepSimulation`` and the world-building
calls timed; the drop's wall time splits into physics steps, building the
drop's new world (the price of determinism) and the Python around them. Speed-up: the same ``--parallel`` drops are run by one worker
process and then split over two, side by side in one run, three times in
alternating order; the median ratio is reported. Targets: 40
drops/s per core, overhead at most 15%, at least 1.8x with 2 processes.
Realism: the no-roll (cocked) rate with a 99% Wilson interval on each
shipped design, a chi-square of the faces, and how often the loaded top
face stays up (1/6 for a fair tower). Not a timed test: docs/tower.md
records the figures.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from twin.physics_engine import pybullet   # without its banner
from tqdm import tqdm

from twin.stats import uniformity, wilson_interval
from twin.tower import drop, load_design

ROOT = Path(__file__).resolve().parents[1]
TOWERS = ROOT / "fixtures" / "towers"


def campaign(path: Path, count: int, desc: str) -> list:
    design = load_design(path)
    return [drop(design, seed) for seed in tqdm(range(count), desc=desc, unit="drop", file=sys.stderr)]


def timed_batches(path: Path, count: int, batch: int):
    """The drops, and drops per wall second and per CPU second for each batch."""
    design = load_design(path)
    drop(design, 0)                                   # build the engine outside the timing
    results, wall_rates, cpu_rates = [], [], []
    for start in tqdm(range(0, count, batch), desc="standard", unit="batch", file=sys.stderr):
        seeds = range(start, min(count, start + batch))
        w0, c0 = time.perf_counter(), time.process_time()
        for seed in seeds:
            results.append(drop(design, seed))
        wall_rates.append(len(seeds) / (time.perf_counter() - w0))
        cpu_rates.append(len(seeds) / max(1e-9, time.process_time() - c0))
    return results, wall_rates, cpu_rates


# PyBullet calls that build the new world each drop gets (twin/tower/dropping.py:
# a fresh world per drop is what makes a drop independent of the drops before it).
WORLD_CALLS = ("resetSimulation", "createMultiBody", "createCollisionShape", "changeDynamics", "removeBody",
               "setPhysicsEngineParameter", "setGravity", "resetBasePositionAndOrientation")


def overhead_share(path: Path, seeds: range) -> dict:
    """Where a drop's wall time goes: inside ``stepSimulation``, in the
    PyBullet calls that build the drop's new world, and the Python around them."""
    design = load_design(path)
    drop(design, 0)
    timers = {"stepSimulation": [0.0, 0], **{name: [0.0, 0] for name in WORLD_CALLS}}
    originals = {name: getattr(pybullet, name) for name in timers}

    def timed(name):
        original, cell = originals[name], timers[name]

        def call(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                cell[0] += time.perf_counter() - t0
                cell[1] += 1
        return call

    plain0 = time.perf_counter()
    for seed in seeds:
        drop(design, seed)
    plain = time.perf_counter() - plain0
    for name in timers:
        setattr(pybullet, name, timed(name))
    try:
        w0 = time.perf_counter()
        for seed in seeds:
            drop(design, seed)
        wall = time.perf_counter() - w0
    finally:
        for name, original in originals.items():
            setattr(pybullet, name, original)
    step_s, steps = timers["stepSimulation"]
    world_s = sum(timers[name][0] for name in WORLD_CALLS)
    # The timers' own cost lands in "Python": measured against the untimed
    # run too, so that the better of the two is not claimed alone.
    return {"drops": len(seeds), "steps": steps, "step_s": step_s, "world_s": world_s, "wall_timed_s": wall,
            "wall_plain_s": plain,
            "overhead_share_timed": 1 - step_s / wall,
            "overhead_share_plain": max(0.0, 1 - step_s / plain),
            "world_share_timed": world_s / wall,
            "python_share_timed": 1 - (step_s + world_s) / wall,
            "python_share_plain": max(0.0, 1 - (step_s + world_s) / plain),
            "us_per_step": 1e6 * step_s / max(1, steps)}


def _worker(path: str, seeds: list[int], barrier, queue) -> None:
    design = load_design(path)
    drop(design, 0)                                   # engine built before the clock starts
    barrier.wait(timeout=120)
    t0, c0 = time.time(), time.process_time()
    for seed in seeds:
        drop(design, seed)
    queue.put((t0, time.time(), time.process_time() - c0))


def run_workers(path: Path, seeds: list[int], processes: int) -> tuple[float, float]:
    """Wall time for ``processes`` spawned workers to share ``seeds``, and
    their CPU time summed."""
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(processes), ctx.Queue()
    shares = [seeds[i::processes] for i in range(processes)]
    workers = [ctx.Process(target=_worker, args=(str(path), share, barrier, queue)) for share in shares]
    for w in workers:
        w.start()
    spans = [queue.get(timeout=600) for _ in workers]
    for w in workers:
        w.join(timeout=60)
    return (max(end for _, end, _ in spans) - min(start for start, _, _ in spans),
            sum(cpu for _, _, cpu in spans))


def speedup(path: Path, count: int, rounds: int = 5) -> dict:
    """Wall-clock speed-up of 2 processes over 1 on the same drops, and the
    CPU cost per drop with 2 against 1 (near 1.0: the code scales, and a
    low wall-clock figure means the machine's second core was busy)."""
    seeds = list(range(1000, 1000 + count))
    ratios, cpu_ratios = [], []
    for r in tqdm(range(rounds), desc="speed-up", unit="round", file=sys.stderr):
        order = (1, 2) if r % 2 == 0 else (2, 1)
        measured = {n: run_workers(path, seeds, n) for n in order}
        (one, one_cpu), (two, two_cpu) = measured[1], measured[2]
        ratios.append(one / two)
        cpu_ratios.append(two_cpu / one_cpu)
    return {"drops": count, "ratios": ratios, "median_ratio": statistics.median(ratios),
            "best_ratio": max(ratios), "cpu_cost_2_vs_1": cpu_ratios,
            "median_cpu_cost_2_vs_1": statistics.median(cpu_ratios)}


def _campaign_chunk(args) -> list:
    path, seeds = args
    design = load_design(path)
    return [drop(design, seed) for seed in seeds]


def pooled_campaign(path: Path, count: int, workers: int, desc: str) -> list:
    """Seeds 0..count-1 shared by ``workers`` spawned processes in chunks of
    100 (each drop depends on its seed alone, so the split changes nothing)."""
    chunks = [(str(path), range(a, min(count, a + 100))) for a in range(0, count, 100)]
    results = []
    with mp.get_context("spawn").Pool(workers) as pool:
        for part in tqdm(pool.imap(_campaign_chunk, chunks), total=len(chunks), desc=desc, unit="100 drops",
                         file=sys.stderr):
            results.extend(part)
    return results


_SIDE_BY_SIDE = """
import sys, time
from twin.tower import drop, load_design
design = load_design(sys.argv[1]); drop(design, 0)
c0 = time.process_time()
for seed in range(int(sys.argv[2]), int(sys.argv[3])):
    drop(design, seed)
print(time.process_time() - c0)
"""


def side_by_side(baseline: Path, rounds: int, batch: int) -> dict:
    """CPU seconds per drop of this checkout and of ``baseline`` (another
    checkout of the project, e.g. ``git worktree add --detach /tmp/base main``),
    each drawing its own standard design, the same seeds in alternating
    order, one process each at a time: the ratio is what the change costs."""
    import os
    import subprocess

    ours, theirs = [], []
    for r in tqdm(range(rounds), desc="side by side", unit="round", file=sys.stderr):
        seeds = (20000 + r * batch, 20000 + (r + 1) * batch)
        for root in ((ROOT, baseline) if r % 2 == 0 else (baseline, ROOT)):
            env = {**os.environ, "PYTHONPATH": str(root)}
            out = subprocess.run([sys.executable, "-c", _SIDE_BY_SIDE, str(root / "fixtures/towers/standard.yaml"),
                                  *map(str, seeds)], env=env, capture_output=True, text=True, timeout=900, check=True)
            (ours if root == ROOT else theirs).append(batch / float(out.stdout.split()[-1]))
    ratios = [a / b for a, b in zip(ours, theirs)]
    return {"rounds": rounds, "batch": batch, "drops_per_cpu_s": ours, "baseline_drops_per_cpu_s": theirs,
            "median_ratio": statistics.median(ratios), "ratios": ratios}


def stability_cost(path: Path, seeds: range) -> dict:
    """CPU time of the same drops with the rest check on and off
    (``MAX_NUDGES`` 0): its share of a drop, and how many drops it nudged."""
    from twin.tower import dropping

    design = load_design(path)
    drop(design, 0)
    times = {True: 0.0, False: 0.0}
    nudged = 0
    saved = dropping.MAX_NUDGES
    try:
        for on in (True, False, True, False):
            dropping.MAX_NUDGES = saved if on else 0
            c0 = time.process_time()
            for seed in seeds:
                drop(design, seed)
            times[on] += time.process_time() - c0
        dropping.MAX_NUDGES = 0
        unchecked = {seed: drop(design, seed) for seed in seeds}
    finally:
        dropping.MAX_NUDGES = saved
    nudged = sum(1 for r in unchecked.values() if not all(d.flat for d in r.dice))
    return {"drops": len(seeds), "nudged": nudged, "cpu_on_s": times[True], "cpu_off_s": times[False],
            "share": 1 - times[False] / times[True]}


def realism(path: Path, results) -> dict:
    no_roll = sum(r.no_roll for r in results)
    rate = wilson_interval(no_roll, len(results), 0.99)
    faces = Counter(f for r in results if not r.no_roll for f in r.faces)
    chi = uniformity(f"{path.stem} faces", [faces[f] for f in range(1, 7)], 0.99)
    kept = sum(f == l for r in results for f, l in zip(r.faces, r.loaded)) / (3 * len(results))
    reasons = Counter(d.reason for r in results for d in r.dice if not d.flat)
    unsupported = [r.seed for r in results if any(not d.flat and not d.supported for d in r.dice)]
    return {"design": path.stem, "drops": len(results), "no_roll": no_roll,
            "no_roll_rate": rate.rate, "no_roll_99_low": rate.low, "no_roll_99_high": rate.high,
            "not_settled": sum(not r.settled for r in results), "reasons": dict(reasons),
            "unsupported_seeds": unsupported,
            "faces": [faces[f] for f in range(1, 7)], "faces_chi2_p": chi.p_value,
            "faces_uniform_at_99": chi.passed, "loaded_top_kept": kept,
            "settle_time_median_s": statistics.median(r.settle_time_s for r in results)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=3000, help="standard drops (speed and realism)")
    parser.add_argument("--narrow", type=int, default=600, help="narrow-tray drops")
    parser.add_argument("--chute", type=int, default=300, help="straight-chute drops")
    parser.add_argument("--batch", type=int, default=100, help="drops per timed batch")
    parser.add_argument("--parallel", type=int, default=200, help="drops per speed-up round")
    parser.add_argument("--json", metavar="FILE", help="also write the summary as JSON")
    parser.add_argument("--campaign", type=int, metavar="N",
                        help="the standard design's realism figures from N drops over --workers processes "
                             "(instead of the timed drops)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--baseline", metavar="DIR", type=Path,
                        help="another checkout: compare CPU per drop with it, side by side")
    parser.add_argument("--campaign-only", action="store_true",
                        help="only the realism campaigns (and --baseline): no speed, overhead or speed-up")
    args = parser.parse_args(argv)

    standard = TOWERS / "standard.yaml"
    if args.campaign_only:
        return realism_only(args, standard)
    std_results, wall_rates, cpu_rates = timed_batches(standard, args.count, args.batch)
    overheads = [overhead_share(standard, range(5000 + i * args.batch, 5000 + (i + 1) * args.batch))
                 for i in range(3)]
    overhead = sorted(overheads, key=lambda o: o["overhead_share_timed"])[1]     # the median of 3
    parallel = speedup(standard, args.parallel)
    narrow_results = campaign(TOWERS / "narrow-tray.yaml", args.narrow, "narrow-tray")
    chute_results = campaign(TOWERS / "straight-chute.yaml", args.chute, "straight-chute")
    summary = {
        "speed": {"drops": args.count, "batch": args.batch,
                  "median_drops_per_wall_s": statistics.median(wall_rates),
                  "median_drops_per_cpu_s": statistics.median(cpu_rates),
                  "batch_wall_rates": [round(r, 1) for r in wall_rates]},
        "overhead": overhead,
        "parallel": parallel,
        "realism": [realism(standard, std_results), realism(TOWERS / "narrow-tray.yaml", narrow_results),
                    realism(TOWERS / "straight-chute.yaml", chute_results)],
    }
    s, o, p = summary["speed"], summary["overhead"], summary["parallel"]
    print(f"speed (standard, median of {len(wall_rates)} batches of {args.batch}): "
          f"{s['median_drops_per_wall_s']:.1f} drops/s wall, {s['median_drops_per_cpu_s']:.1f} drops/s CPU "
          f"(target 40 per core)")
    print(f"outside stepSimulation: {100 * o['overhead_share_timed']:.1f}% of the timed run "
          f"({100 * o['overhead_share_plain']:.1f}% against the untimed run): building each drop's new world "
          f"{100 * o['world_share_timed']:.1f}%, Python around the physics {100 * o['python_share_timed']:.1f}% "
          f"({100 * o['python_share_plain']:.1f}% untimed); {o['us_per_step']:.1f} us per step, "
          f"{o['steps'] / o['drops']:.0f} steps per drop; target <= 15% Python")
    print(f"speed-up with 2 processes ({p['drops']} drops, median of {len(p['ratios'])}): "
          f"{p['median_ratio']:.2f}x, best {p['best_ratio']:.2f}x  "
          f"(ratios {', '.join(f'{r:.2f}' for r in p['ratios'])}; target >= 1.8x); "
          f"CPU per drop with 2 vs 1: {p['median_cpu_cost_2_vs_1']:.2f}")
    for r in summary["realism"]:
        print(f"{r['design']}: {r['drops']} drops, no roll {r['no_roll']} = {100 * r['no_roll_rate']:.2f}% "
              f"(99%: {100 * r['no_roll_99_low']:.2f}-{100 * r['no_roll_99_high']:.2f}%), "
              f"not settled {r['not_settled']}, reasons {r['reasons']}; faces {r['faces']} "
              f"chi2 p={r['faces_chi2_p']:.3f}; loaded top kept {100 * r['loaded_top_kept']:.1f}%; "
              f"median settle {r['settle_time_median_s']:.2f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return 0


def _print_realism(r: dict) -> None:
    print(f"{r['design']}: {r['drops']} drops, no roll {r['no_roll']} = {100 * r['no_roll_rate']:.2f}% "
          f"(99%: {100 * r['no_roll_99_low']:.2f}-{100 * r['no_roll_99_high']:.2f}%), "
          f"not settled {r['not_settled']}, reasons {r['reasons']}, unsupported {r['unsupported_seeds']}; "
          f"faces {r['faces']} chi2 p={r['faces_chi2_p']:.3f}; loaded top kept {100 * r['loaded_top_kept']:.1f}%; "
          f"median settle {r['settle_time_median_s']:.2f} s")


def realism_only(args, standard: Path) -> int:
    summary: dict = {}
    if args.baseline:
        summary["side_by_side"] = sbs = side_by_side(args.baseline, 6, args.batch)
        print(f"side by side with {args.baseline} ({sbs['rounds']} rounds of {sbs['batch']} drops, one process): "
              f"median ratio {sbs['median_ratio']:.3f} (ratios {', '.join(f'{r:.3f}' for r in sbs['ratios'])}); "
              f"drops/CPU s {statistics.median(sbs['drops_per_cpu_s']):.1f} against "
              f"{statistics.median(sbs['baseline_drops_per_cpu_s']):.1f}")
        summary["stability_cost"] = cost = stability_cost(standard, range(30000, 30000 + 2 * args.batch))
        print(f"rest check: {100 * cost['share']:.1f}% of the CPU of {cost['drops']} drops "
              f"({cost['nudged']} of them nudged)")
    runs = [(standard, args.campaign or 0), (TOWERS / "narrow-tray.yaml", args.narrow),
            (TOWERS / "straight-chute.yaml", args.chute)]
    summary["realism"] = []
    for path, count in runs:
        if count:
            r = realism(path, pooled_campaign(path, count, args.workers, path.stem))
            summary["realism"].append(r)
            _print_realism(r)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
