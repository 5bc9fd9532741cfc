"""How close each costly path is to what the project cannot beat (issue 42):
one command that prints the issue's table, floor beside figure, measured in
CPU time (medians of repeats) and, with ``--baseline DIR``, side by side
against another checkout (today's main, say) in the same run.

    nice -n 15 .venv/bin/python benchmarks/floors.py                      # this checkout
    nice -n 15 .venv/bin/python benchmarks/floors.py --baseline /tmp/main  # before | after, one run
    nice -n 15 .venv/bin/python benchmarks/floors.py --only replay,startup --json

Each metric is measured in a child process of its own (a clean interpreter:
start-up and memory are a process's), importing the project from the
checkout measured (``PYTHONPATH``); the figures of both checkouts alternate
metric by metric, so that a busy spell of the shared machine falls on both.

=========  ==============================================  ===========================================
metric     floor                                           figure
=========  ==============================================  ===========================================
tower      ``stepSimulation`` alone in the same drops      CPU ms a standard drop (``outside_step_share``)
wheel      ``stepSimulation`` alone in the same spins      CPU ms a standard spin
camera     ``getCameraImage`` alone in the same frames     CPU ms a 640 x 480 frame at rest
replay     orjson + SHA-256 over the same journal          rounds a CPU s of ``bench.journal.replay``
monitor    replaying the monitor's own journals            rounds a monitor CPU s (monitor_bench's long run)
startup    ``python -c pass``                              CPU s of ``bench replay --json`` of a 5-round
                                                           journal, and of ``bench run --plant dice --rounds 1``
memory     flat                                            KB of resident memory a round, session and replay
workers    2.0x                                            ``twin validate --workers 2`` against 1: wall ratio,
                                                           CPU ms a drop each
=========  ==============================================  ===========================================

The physics and the camera run the shipped standard designs with seeds from
1; the journals are the fair-dice plant's (no physics), made once by the
first checkout named so both replay the same bytes. ``--json`` writes one
``tablebench.floors/1`` line a metric and checkout, then the verdict (passed:
every metric measured). Not a timed test: the machine is shared; the ratio
floor/figure is the fairer figure on a busy machine, both being CPU time of
one process.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))
from proc_memory import memory_mb  # noqa: E402

METRICS = ("tower", "wheel", "camera", "replay", "monitor", "startup", "memory", "workers")
CHILD_TIMEOUT_S = 3600


# -- measurements, each run in a child process importing the checkout measured ----------------

@contextmanager
def cpu_inside(module: Any, name: str) -> Iterator[list[float]]:
    """CPU seconds spent inside ``module.name`` while the block runs (cell[0]), and its calls (cell[1])."""
    original = getattr(module, name)
    cell = [0.0, 0.0]
    clock = time.process_time

    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = clock()
        try:
            return original(*args, **kwargs)
        finally:
            cell[0] += clock() - t0
            cell[1] += 1
    setattr(module, name, timed)
    try:
        yield cell
    finally:
        setattr(module, name, original)


def _per_call(work: Callable[[int], Any], seeds: range, module: Any, name: str) -> dict[str, Any]:
    """Median CPU ms of ``work(seed)`` and of the time inside ``module.name`` during it."""
    totals, insides = [], []
    for seed in seeds:
        with cpu_inside(module, name) as cell:
            c0 = time.process_time()
            work(seed)
            totals.append(time.process_time() - c0)
        insides.append(cell[0])
    total, inside = statistics.median(totals), statistics.median(insides)
    shares = [1 - i / t for i, t in zip(insides, totals) if t > 0]
    return {"figure_ms": round(1e3 * total, 2), "floor_ms": round(1e3 * inside, 2),
            "ratio": round(total / inside, 3) if inside else None,
            "outside_step_share": round(statistics.median(shares), 3), "samples": len(totals)}


def measure_tower(args: argparse.Namespace) -> dict[str, Any]:
    from twin.physics_engine import pybullet
    from twin.tower import drop, load_design
    design = load_design(ROOT_MEASURED / "fixtures/towers/standard.yaml")
    drop(design, 0)                                    # the engine started outside the timing
    out = _per_call(lambda seed: drop(design, seed), range(1, 1 + args.drops), pybullet, "stepSimulation")
    out["per_cpu_s"] = round(1e3 / out["figure_ms"], 1)
    return out


def measure_wheel(args: argparse.Namespace) -> dict[str, Any]:
    from twin.physics_engine import pybullet
    from twin.wheel import load_design
    from twin.wheel.spin import spin
    design = load_design(ROOT_MEASURED / "fixtures/wheels/standard.yaml")
    spin(design, 0)
    out = _per_call(lambda seed: spin(design, seed), range(1, 1 + args.spins), pybullet, "stepSimulation")
    out["per_cpu_s"] = round(1e3 / out["figure_ms"], 1)
    return out


def measure_camera(args: argparse.Namespace) -> dict[str, Any]:
    from twin.camera.frames import Studio
    from twin.physics_engine import pybullet
    from twin.tower import drop, load_design
    design = load_design(ROOT_MEASURED / "fixtures/towers/standard.yaml")
    studio = Studio(design, "tower")
    results = {seed: drop(design, seed) for seed in range(0, 1 + args.frames)}
    studio.rest_of_drop(results[0])                    # the scene loaded outside the timing
    out = _per_call(lambda seed: studio.rest_of_drop(results[seed]), range(1, 1 + args.frames),
                    pybullet, "getCameraImage")
    out.pop("outside_step_share")
    out["width_px"], out["height_px"] = studio.camera.width_px, studio.camera.height_px
    studio.close()
    return out


def _raw_floor(journal: Path) -> float:
    """CPU s to read the journal, parse every line with orjson and hash it with SHA-256."""
    import hashlib

    import orjson
    c0 = time.process_time()
    with open(journal, "rb") as handle:
        for line in handle:
            orjson.loads(line)
            hashlib.sha256(line).digest()
    return time.process_time() - c0


def _replay_cpu(journal: Path) -> tuple[float, int, int]:
    """CPU s of replaying ``journal``, its rounds judged and its exit status."""
    from bench.journal.replay import replay
    c0 = time.process_time()
    outcome = replay(journal)
    return time.process_time() - c0, len(outcome.oracle.rounds), int(outcome.exit_status)


def measure_replay(args: argparse.Namespace) -> dict[str, Any]:
    journal = Path(args.journal)
    rounds = statistics.median([_replay_cpu(journal)[1]])
    _replay_cpu(journal)                               # warm: the modules imported, the file in the page cache
    replays, floors = [], []
    for _ in range(args.repeats):
        replays.append(_replay_cpu(journal)[0])
        floors.append(_raw_floor(journal))
    figure, floor = rounds / statistics.median(replays), rounds / statistics.median(floors)
    return {"rounds": rounds, "figure_rounds_per_cpu_s": round(figure), "floor_rounds_per_cpu_s": round(floor),
            "share_of_floor": round(figure / floor, 3), "ratio": round(floor / figure, 2)}


def measure_monitor(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="floors-monitor-") as tmp:
        results = Path(tmp) / "monitor.jsonl"
        subprocess.run([sys.executable, str(ROOT_MEASURED / "benchmarks/monitor_bench.py"), "--rounds",
                        str(args.monitor_rounds), "--every", str(args.monitor_rounds), "--out", str(results)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=CHILD_TIMEOUT_S,
                       cwd=ROOT_MEASURED)
        lines = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
        run = [line for line in lines if line.get("part") == "long-run"][-1]
        end = [line for line in lines if line.get("part") == "long-run-end"][-1]
        journals = sorted(Path(end["work"], "monitor").glob("monitor-*.jsonl"))
        cpu, rounds = 0.0, 0
        for journal in journals:
            spent, judged, _ = _replay_cpu(journal)
            cpu, rounds = cpu + spent, rounds + judged
        import shutil
        shutil.rmtree(end["work"], ignore_errors=True)
    figure, floor = float(run["rounds_per_monitor_cpu_s"]), rounds / cpu
    return {"rounds": run["rounds"], "figure_rounds_per_cpu_s": round(figure), "floor_rounds_per_cpu_s": round(floor),
            "journals": len(journals), "ratio": round(floor / figure, 2)}


def _child_cpu(cmd: list[str], cwd: Path) -> tuple[float, int]:
    """CPU s (user + system) of one command run to its end, and its exit status."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, proc.returncode


def measure_startup(args: argparse.Namespace) -> dict[str, Any]:
    py = sys.executable
    figures: dict[str, list[float]] = {"python": [], "replay_json": [], "run_dice_1": []}
    with tempfile.TemporaryDirectory(prefix="floors-startup-") as tmp:
        for k in range(args.repeats):
            figures["python"].append(_child_cpu([py, "-c", "pass"], ROOT_MEASURED)[0])
            spent, status = _child_cpu([py, "-m", "bench.cli", "replay", args.small_journal, "--json"], ROOT_MEASURED)
            if status not in (0, 1):
                raise SystemExit(f"bench replay --json {args.small_journal}: exit {status}")
            figures["replay_json"].append(spent)
            spent, status = _child_cpu([py, "-m", "bench.cli", "run", "--plant", "dice", "--rounds", "1", "--seed",
                                        "1", "--out", str(Path(tmp) / f"run{k}")], ROOT_MEASURED)
            if status != 0:
                raise SystemExit(f"bench run --plant dice --rounds 1: exit {status}")
            figures["run_dice_1"].append(spent)
    return {f"{name}_cpu_s": round(statistics.median(values), 3) for name, values in figures.items()}


def _session_rss(rounds: int, marks: list[int], folder: Path) -> tuple[dict[int, float], Path]:
    """VmRSS (MB) of a fair-dice ``bench run`` as its journal reaches each round of ``marks``."""
    from long_session_bench import RoundCounter
    out = folder / f"session-{rounds}"
    proc = subprocess.Popen([sys.executable, "-m", "bench.cli", "run", "--plant", "dice", "--rounds", str(rounds),
                             "--seed", "1", "--no-probes", "--out", str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=ROOT_MEASURED)
    counter, seen, waiting = RoundCounter(out / "session.jsonl"), {}, list(marks)
    while proc.poll() is None and waiting:
        if counter.update() >= waiting[0]:
            seen[waiting.pop(0)] = memory_mb(proc.pid, "VmRSS")
        time.sleep(0.05)
    proc.wait(timeout=CHILD_TIMEOUT_S)
    return seen, out / "session.jsonl"


def _replay_peak(journal: Path) -> float:
    """VmHWM (MB) of a process that replays ``journal`` to its end."""
    code = ("import sys; from bench.journal.replay import replay; replay(sys.argv[1]); "
            "print(open('/proc/self/status').read())")
    done = subprocess.run([sys.executable, "-c", code, str(journal)], capture_output=True, text=True,
                          cwd=ROOT_MEASURED, timeout=CHILD_TIMEOUT_S, check=True)
    line = next(line for line in done.stdout.splitlines() if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def measure_memory(args: argparse.Namespace) -> dict[str, Any]:
    small, large = 1000, args.memory_rounds
    with tempfile.TemporaryDirectory(prefix="floors-memory-") as tmp:
        seen, journal = _session_rss(large, [small, large], Path(tmp))
        if small not in seen or large not in seen:
            raise SystemExit(f"bench run --rounds {large}: memory seen only at rounds {sorted(seen)}")
        _, short = _session_rss(small, [], Path(tmp))
        replay_small, replay_large = _replay_peak(short), _replay_peak(journal)
    per_round = 1024 / (large - small)
    return {"rounds": [small, large], "session_rss_mb": [round(seen[small], 1), round(seen[large], 1)],
            "session_kb_per_round": round((seen[large] - seen[small]) * per_round, 3),
            "replay_peak_mb": [round(replay_small, 1), round(replay_large, 1)],
            "replay_kb_per_round": round((replay_large - replay_small) * per_round, 3)}


def measure_workers(args: argparse.Namespace) -> dict[str, Any]:
    walls: dict[int, list[float]] = {1: [], 2: []}
    cpus: dict[int, list[float]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory(prefix="floors-workers-") as tmp:
        for k in range(args.repeats):
            for workers in ((1, 2) if k % 2 == 0 else (2, 1)):
                results = Path(tmp) / f"w{workers}-{k}.jsonl"
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                w0 = time.monotonic()
                done = subprocess.run([sys.executable, "-m", "twin.cli", "validate", "towers/standard", "--drops",
                                       str(args.validate_drops), "--workers", str(workers), "--results", str(results),
                                       "--no-progress", "--json"], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, cwd=ROOT_MEASURED, timeout=CHILD_TIMEOUT_S)
                walls[workers].append(time.monotonic() - w0)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpus[workers].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
                if done.returncode not in (0, 1):
                    raise SystemExit(f"twin validate --workers {workers}: exit {done.returncode}")
    one, two = statistics.median(walls[1]), statistics.median(walls[2])
    drops = args.validate_drops
    return {"drops": drops, "wall_s": [round(one, 2), round(two, 2)], "speedup": round(one / two, 3),
            "cpu_ms_per_drop": [round(1e3 * statistics.median(cpus[1]) / drops, 2),
                                round(1e3 * statistics.median(cpus[2]) / drops, 2)],
            "cpus": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2)}


MEASURES: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "tower": measure_tower, "wheel": measure_wheel, "camera": measure_camera, "replay": measure_replay,
    "monitor": measure_monitor, "startup": measure_startup, "memory": measure_memory, "workers": measure_workers}
ROOT_MEASURED = ROOT


# -- the parent: children for each checkout, the table ---------------------------------------

def make_journal(root: Path, rounds: int, out: Path) -> Path:
    """A fair-dice session's journal of ``rounds`` rounds made by the checkout at ``root``."""
    subprocess.run([sys.executable, "-m", "bench.cli", "run", "--plant", "dice", "--rounds", str(rounds), "--seed",
                    "1", "--no-probes", "--out", str(out)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, cwd=root, env=env_for(root), timeout=CHILD_TIMEOUT_S)
    return out / "session.jsonl"


def env_for(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def child(metric: str, root: Path, args: argparse.Namespace, passed: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, str(HERE), "--child", metric, "--root", str(root), *passed]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env_for(root), timeout=CHILD_TIMEOUT_S)
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
        return {"error": f"exit {done.returncode}: {last[0]}"}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def headline(metric: str, r: dict[str, Any]) -> tuple[str, str]:
    """(floor, figure) as the table prints them."""
    if "error" in r:
        return "-", r["error"]
    if metric in ("tower", "wheel"):
        unit = "drops" if metric == "tower" else "spins"
        return (f"{r['floor_ms']} ms", f"{r['figure_ms']} ms ({r['per_cpu_s']} {unit}/CPU s), "
                f"{100 * r['outside_step_share']:.0f}% outside the steps; {r['ratio']}x")
    if metric == "camera":
        return f"{r['floor_ms']} ms", f"{r['figure_ms']} ms; {r['ratio']}x"
    if metric in ("replay", "monitor"):
        extra = f" ({100 * r['share_of_floor']:.0f}% of the floor)" if "share_of_floor" in r else ""
        return (f"{r['floor_rounds_per_cpu_s']:,} rounds/CPU s",
                f"{r['figure_rounds_per_cpu_s']:,} rounds/CPU s{extra}; {r['ratio']}x")
    if metric == "startup":
        return (f"{r['python_cpu_s']} s", f"replay --json {r['replay_json_cpu_s']} s, "
                f"run --rounds 1 {r['run_dice_1_cpu_s']} s")
    if metric == "memory":
        return ("flat", f"session {r['session_rss_mb'][0]} -> {r['session_rss_mb'][1]} MB "
                f"({r['session_kb_per_round']} KB/round), replay {r['replay_peak_mb'][0]} -> "
                f"{r['replay_peak_mb'][1]} MB ({r['replay_kb_per_round']} KB/round), rounds {r['rounds']}")
    return ("2.0x", f"{r['speedup']}x wall ({r['wall_s'][0]} s / {r['wall_s'][1]} s), CPU ms/drop "
            f"{r['cpu_ms_per_drop'][0]} (1) {r['cpu_ms_per_drop'][1]} (2), load {r['load_1min']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", metavar="DIR", help="another checkout measured side by side (before)")
    parser.add_argument("--only", default=",".join(METRICS), help=f"metrics, comma-separated ({','.join(METRICS)})")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--drops", type=int, default=30, help="tower drops timed")
    parser.add_argument("--spins", type=int, default=10, help="wheel spins timed")
    parser.add_argument("--frames", type=int, default=10, help="camera frames timed")
    parser.add_argument("--rounds", type=int, default=2000, help="rounds of the replayed journal")
    parser.add_argument("--monitor-rounds", type=int, default=3000)
    parser.add_argument("--memory-rounds", type=int, default=10000, help="the session's length (memory at 1,000 and here)")
    parser.add_argument("--validate-drops", type=int, default=400)
    parser.add_argument("--json", action="store_true", help="JSON Lines, tablebench.floors/1")
    parser.add_argument("--child", choices=METRICS, help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    parser.add_argument("--journal", help=argparse.SUPPRESS)
    parser.add_argument("--small-journal", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        global ROOT_MEASURED
        ROOT_MEASURED = Path(args.root)
        sys.path.insert(0, args.root)
        print(json.dumps(MEASURES[args.child](args)))
        return 0

    metrics = [m.strip() for m in args.only.split(",") if m.strip()]
    unknown = sorted(set(metrics) - set(METRICS))
    if unknown:
        parser.error(f"--only: {', '.join(unknown)} not among {', '.join(METRICS)}")
    if args.baseline and not (Path(args.baseline) / "bench" / "cli.py").is_file():
        parser.error(f"--baseline {args.baseline}: not a tablebench checkout (no bench/cli.py there)")
    checkouts = [("before", Path(args.baseline).resolve())] if args.baseline else []
    checkouts.append(("now", ROOT))
    passed = ["--repeats", str(args.repeats), "--drops", str(args.drops), "--spins", str(args.spins),
              "--frames", str(args.frames), "--monitor-rounds", str(args.monitor_rounds),
              "--memory-rounds", str(args.memory_rounds), "--validate-drops", str(args.validate_drops)]
    work = Path(tempfile.mkdtemp(prefix="floors-"))
    if "replay" in metrics or "startup" in metrics:
        maker = checkouts[0][1]
        print(f"floors: making the journals with {maker}", file=sys.stderr)
        if "replay" in metrics:               # the 2,000-round journal only when it is replayed
            passed += ["--journal", str(make_journal(maker, args.rounds, work / "journal"))]
        passed += ["--small-journal", str(make_journal(maker, 5, work / "small"))]

    from tablebench_io.json_lines import JsonLines
    lines = JsonLines("floors")
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for metric in metrics:
        for label, root in checkouts:
            print(f"floors: {metric} ({label}, {root})", file=sys.stderr, flush=True)
            r = child(metric, root, args, passed)
            results.setdefault(metric, {})[label] = r
            if args.json:
                lines.write("metric", metric=metric, checkout=label, root=str(root), **r)
    import shutil
    shutil.rmtree(work, ignore_errors=True)       # the journals made for this run
    errors = [f"{m} ({label})" for m, by in results.items() for label, r in by.items() if "error" in r]
    if args.json:
        lines.verdict(passed=not errors, status=5 if errors else 0, errors=errors)
    else:
        width = max(len(m) for m in metrics)
        for metric in metrics:
            for label, r in results[metric].items():
                floor, figure = headline(metric, r)
                print(f"{metric:<{width}}  {label:<6}  floor {floor:<22}  {figure}")
    return 5 if errors else 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
