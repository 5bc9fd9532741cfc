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

``--campaign-only``: the realism campaigns alone, resumable (``--results``),
with another checkout's twin (``--twin``, the before figures) or with the
independent check of every die not flat (``--check``), and with
``--baseline`` the speed of this checkout against another, side by side.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import tempfile
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


def _campaign_chunk(args) -> list[str]:
    from twin.tower import drop, load_design      # this worker's twin (see _use_twin)

    path, seeds = args
    design = load_design(path)
    return [drop(design, seed).to_json() for seed in seeds]


def _use_twin(root: str | None) -> None:
    """In a spawned worker: import the twin from ``root`` instead of this
    checkout (the worker was handed this process's ``sys.path`` and has
    imported this module, and so this checkout's twin, already)."""
    if root is None:
        return
    sys.path.insert(0, root)
    for name in [n for n in sys.modules if n == "twin" or n.startswith("twin.")]:
        del sys.modules[name]


def resumable_campaign(path: Path, seeds: range, workers: int, out: Path, desc: str, twin_root: Path | None = None
                       ) -> list[dict]:
    """The drops of ``seeds``, one JSON line each in ``out``, run in chunks
    of 100 by ``workers`` spawned processes and appended as each chunk ends:
    a campaign stopped half way goes on from the seeds it lacks. With
    ``twin_root`` the workers import that checkout's twin (another tree of
    the project, e.g. a worktree of main), so that one benchmark measures the
    twin before and after a change."""

    done = {}
    if out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue                      # a line cut short by a stop: run its chunk again
            done[record["seed"]] = record
    missing = [seed for seed in seeds if seed not in done]
    chunks = [(str(path), missing[a:a + 100]) for a in range(0, len(missing), 100)]
    root = None if twin_root is None else str(twin_root)
    with mp.get_context("spawn").Pool(workers, initializer=_use_twin, initargs=(root,)) as pool, \
            out.open("a", encoding="utf-8") as sink:
        bar = tqdm(total=len(seeds), initial=len(seeds) - len(missing), desc=desc, unit="drop", file=sys.stderr)
        for lines in pool.imap(_campaign_chunk, chunks):
            sink.write("".join(line + "\n" for line in lines))
            sink.flush()
            for line in lines:
                record = json.loads(line)
                done[record["seed"]] = record
            bar.update(len(lines))
        bar.close()
    return [done[seed] for seed in seeds]


_SIDE_BY_SIDE = """
import sys, time
from twin.tower import drop, load_design
print(sys.modules["twin"].__file__)
design = load_design(sys.argv[1]); drop(design, 0)
c0 = time.process_time()
for seed in range(int(sys.argv[2]), int(sys.argv[3])):
    drop(design, seed)
print(time.process_time() - c0)
"""


def side_by_side(baseline: Path, rounds: int, batch: int, design: str = "standard") -> dict:
    """CPU seconds per drop of this checkout and of ``baseline`` (another
    checkout of the project, e.g. ``git worktree add --detach /tmp/base main``),
    each drawing its own copy of the shipped ``design``, the same seeds in
    alternating order, one process each at a time: the ratio is what the
    change costs."""
    import subprocess

    ours, theirs = [], []
    for r in tqdm(range(rounds), desc="side by side", unit="round", file=sys.stderr):
        seeds = (20000 + r * batch, 20000 + (r + 1) * batch)
        for root in ((ROOT, baseline) if r % 2 == 0 else (baseline, ROOT)):
            # Run in the checkout itself: "-c" puts the working folder first on
            # sys.path, ahead of the editable install of this one.
            out = subprocess.run([sys.executable, "-c", _SIDE_BY_SIDE, str(root / f"fixtures/towers/{design}.yaml"),
                                  *map(str, seeds)], cwd=root, capture_output=True, text=True, timeout=900, check=True)
            used, cpu = out.stdout.split()[-2:]
            if not Path(used).resolve().is_relative_to(Path(root).resolve()):
                raise RuntimeError(f"the side-by-side run in {root} imported {used}")
            (ours if root == ROOT else theirs).append(batch / float(cpu))
    ratios = [a / b for a, b in zip(ours, theirs)]
    return {"design": design, "rounds": rounds, "batch": batch, "drops_per_cpu_s": ours,
            "baseline_drops_per_cpu_s": theirs,
            "median_ratio": statistics.median(ratios), "ratios": ratios}


def stability_cost(path: Path, seeds: range) -> dict:
    """CPU time of the same drops with the rest's tilt trial on and off
    (``MAX_TRIALS`` 0): its share of a drop, and how many drops it tried."""
    from twin.tower import dropping

    design = load_design(path)
    drop(design, 0)
    times = {True: 0.0, False: 0.0}
    saved = dropping.MAX_TRIALS
    try:
        for on in (True, False, True, False):
            dropping.MAX_TRIALS = saved if on else 0
            c0 = time.process_time()
            for seed in seeds:
                drop(design, seed)
            times[on] += time.process_time() - c0
        dropping.MAX_TRIALS = 0
        untried = {seed: drop(design, seed) for seed in seeds}
    finally:
        dropping.MAX_TRIALS = saved
    tried = sum(1 for r in untried.values() if not all(d.flat for d in r.dice))
    return {"drops": len(seeds), "tried": tried, "cpu_on_s": times[True], "cpu_off_s": times[False],
            "share": 1 - times[False] / times[True]}


def realism(path: Path, results) -> dict:
    """The realism figures of a campaign: ``results`` are drops or their
    ``to_dict`` records (a campaign file's lines, from this twin or another)."""
    from twin.stats import independence

    records = [r if isinstance(r, dict) else r.to_dict() for r in results]
    no_roll = sum(r["no_roll"] for r in records)
    rate = wilson_interval(no_roll, len(records), 0.99)
    counted = [r for r in records if not r["no_roll"]]
    faces = Counter(f for r in counted for f in r["faces"])
    chi = uniformity(f"{path.stem} faces", [faces[f] for f in range(1, 7)], 0.99)
    pairs = [(loaded, face) for r in records for loaded, face in zip(r["loaded"], r["faces"])]
    kept = sum(a == b for a, b in pairs) / max(1, len(pairs))
    table = [[sum(1 for a, b in pairs if (a, b) == (row, col)) for col in range(1, 7)] for row in range(1, 7)]
    dependence = independence(f"{path.stem} loaded face", table, 0.99)
    not_flat = [d for r in records for d in r["dice"] if not d["flat"]]
    reasons = Counter(d["reason"] for d in not_flat)
    unsupported = [r["seed"] for r in records if any(not d["flat"] and not d.get("supported", True) for d in r["dice"])]
    times = [r["settle_time_s"] for r in records if r["settled"]]
    return {"design": path.stem, "drops": len(records), "no_roll": no_roll,
            "no_roll_rate": rate.rate, "no_roll_99_low": rate.low, "no_roll_99_high": rate.high,
            "not_settled": sum(not r["settled"] for r in records), "dice_not_flat": len(not_flat),
            "reasons": dict(reasons), "unsupported_seeds": unsupported,
            "gave_way": sum(r.get("gave_way", 0) for r in records),
            "drops_gave_way": sum(1 for r in records if r.get("gave_way", 0)),
            "faces": [faces[f] for f in range(1, 7)], "faces_chi2_p": chi.p_value,
            "faces_uniform_at_99": chi.passed, "loaded_top_kept": kept, "loaded_face_p": dependence.p_value,
            "settle_time_median_s": statistics.median(times) if times else None,
            "settle_time_p95_s": statistics.quantiles(times, n=20)[18] if len(times) > 1 else None,
            "flat_height_mm": _heights([d for r in records for d in r["dice"] if d["flat"]])}


def _heights(flat: list[dict]) -> dict:
    """Where flat dice rest: their centres' height above the felt, in mm."""
    z = sorted(1000 * d["position_m"][2] for d in flat)
    if not z:
        return {}
    return {"dice": len(z), "median": statistics.median(z), "min": z[0], "max": z[-1],
            "p01": z[len(z) // 100], "p99": z[-1 - len(z) // 100]}


def independent_check(path: Path, records: list[dict], padding_m: float = 0.0) -> dict:
    """The independent check (``twin.tower.statics``) on every die not flat:
    contacts from the dice's geometry, forces from a linear program. Counts
    dice held under level gravity and under gravity tilted 2 deg every way,
    and lists the others with the largest tilt they stand."""
    from twin.tower import DropResult
    from twin.tower.statics import check_rest

    design = load_design(path)
    level = tilted = dice = 0
    exceptions = []
    for record in tqdm([r for r in records if any(not d["flat"] for d in r["dice"])], desc=f"check {path.stem}",
                       unit="drop", file=sys.stderr):
        result = DropResult.from_dict(record)
        verdicts = check_rest(design, result, padding_m=padding_m)
        if not all(v.stands_tilts for v in verdicts):   # the few that fail: how far from standing
            verdicts = check_rest(design, result, holding_tilt=True, padding_m=padding_m)
        for verdict in verdicts:
            dice += 1
            level += verdict.held
            tilted += verdict.stands_tilts
            if not verdict.stands_tilts:
                die = result.dice[verdict.die]
                exceptions.append({"seed": result.seed, "die": verdict.die + 1, "twin": die.reason,
                                   "tilt_deg": round(die.tilt_deg, 1), "check": verdict.describe(),
                                   "holding_tilt_deg": verdict.holding_tilt_deg})
    return {"dice_not_flat": dice, "held_level": level, "held_tilted": tilted, "exceptions": exceptions}


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
    parser.add_argument("--rounds", type=int, default=6, help="side-by-side rounds with --baseline")
    parser.add_argument("--speed-design", default="standard", help="the shipped tower timed side by side")
    parser.add_argument("--start", type=int, default=0, help="the campaigns' first seed")
    parser.add_argument("--results", type=Path, metavar="DIR",
                        help="keep each campaign's drops here, a JSON line each; a campaign run again resumes")
    parser.add_argument("--twin", type=Path, metavar="DIR",
                        help="run the campaigns' drops with another checkout's twin and designs (the before figures)")
    parser.add_argument("--check", action="store_true",
                        help="also run the independent check (twin.tower.statics) on every die not flat")
    parser.add_argument("--check-padding-mm", type=float, default=0.0,
                        help="judge the dice this much larger all round (1 for the twin before issue 24)")
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
    h = r["flat_height_mm"]
    print(f"{r['design']}: {r['drops']} drops, no roll {r['no_roll']} = {100 * r['no_roll_rate']:.2f}% "
          f"(99%: {100 * r['no_roll_99_low']:.2f}-{100 * r['no_roll_99_high']:.2f}%), "
          f"not settled {r['not_settled']}, dice not flat {r['dice_not_flat']} {r['reasons']}, "
          f"unsupported {r['unsupported_seeds']}, rests that gave way {r['gave_way']} (in {r['drops_gave_way']} drops); "
          f"faces {r['faces']} chi2 p={r['faces_chi2_p']:.3f}; loaded top kept {100 * r['loaded_top_kept']:.1f}% "
          f"(dependence p={r['loaded_face_p']:.3g}); settle median {r['settle_time_median_s']:.2f} s, "
          f"95th percentile {r['settle_time_p95_s']:.2f} s; flat dice's centres {h.get('median', 0):.3f} mm "
          f"(1st-99th percentile {h.get('p01', 0):.3f}-{h.get('p99', 0):.3f}, range {h.get('min', 0):.3f}-"
          f"{h.get('max', 0):.3f})")
    check = r.get("check")
    if check:
        print(f"  independent check: {check['held_level']} of {check['dice_not_flat']} dice not flat held under level "
              f"gravity, {check['held_tilted']} also under 2 deg tilts every way")
        for e in check["exceptions"]:
            print(f"    seed {e['seed']} die {e['die']} ({e['twin']}, {e['tilt_deg']} deg): {e['check']}")


def realism_only(args, standard: Path) -> int:
    summary: dict = {}
    if args.baseline:
        summary["side_by_side"] = sbs = side_by_side(args.baseline, args.rounds, args.batch, args.speed_design)
        print(f"side by side with {args.baseline} ({sbs['design']}, {sbs['rounds']} rounds of {sbs['batch']} drops, "
              f"one process): "
              f"median ratio {sbs['median_ratio']:.3f} (ratios {', '.join(f'{r:.3f}' for r in sbs['ratios'])}); "
              f"drops/CPU s {statistics.median(sbs['drops_per_cpu_s']):.1f} against "
              f"{statistics.median(sbs['baseline_drops_per_cpu_s']):.1f}", flush=True)
        timed = TOWERS / f"{args.speed_design}.yaml"
        summary["stability_cost"] = cost = stability_cost(timed, range(30000, 30000 + 2 * args.batch))
        print(f"rest trial: {100 * cost['share']:.1f}% of the CPU of {cost['drops']} {timed.stem} drops "
              f"({cost['tried']} of them tried)", flush=True)
    towers = (args.twin or ROOT) / "fixtures" / "towers"
    runs = [(towers / "standard.yaml", args.campaign or 0), (towers / "narrow-tray.yaml", args.narrow),
            (towers / "straight-chute.yaml", args.chute)]
    results = args.results or Path(tempfile.mkdtemp(prefix="tower-campaign-"))
    results.mkdir(parents=True, exist_ok=True)
    summary["realism"] = []
    for path, count in runs:
        if not count:
            continue
        out = results / f"{path.stem}-{args.start}-{args.start + count - 1}.jsonl"
        records = resumable_campaign(path, range(args.start, args.start + count), args.workers, out, path.stem,
                                     args.twin)
        r = realism(path, records)
        if args.check:
            r["check"] = independent_check(path, records, args.check_padding_mm / 1000)
        r["results"] = str(out)
        summary["realism"].append(r)
        _print_realism(r)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
