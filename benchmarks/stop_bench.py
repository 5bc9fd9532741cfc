"""How quickly does ``bench run`` stop, and how much memory does a short session take?

``--stop`` (the default): ``bench run`` plays honest Lightning Dice rounds
(the emulated controller in its own process, covering play, the fair dice
plant, probes off) and is sent SIGTERM once its journal holds ``--rounds``
round records. Measured from the signal to the process's exit: the CPU
seconds of the bench process (``utime + stime`` of /proc/PID/stat, read while
it runs and again once it is a zombie, before it is reaped: the emulated
controller's CPU is its own and not counted) and the wall seconds; then the
exit status and every file's size. A service manager gives a stopping unit
90 s by default (systemd's ``TimeoutStopSec``) before it kills it: a report
that takes longer is lost.

``--memory``: the bench process's peak resident memory (VmHWM, polled every
50 ms until it exits) in a ``--rounds`` round session of ``--game`` with the
``--plant`` (default: a 30-round Lightning Roulette session on the physics
wheel), and which of the heavy libraries it had loaded (from
/proc/PID/maps).

``--source DIR`` runs the bench of another checkout (the same run before a
change, side by side); ``--repeats N`` runs each N times and prints each
figure's median.

    nice -n 10 python benchmarks/stop_bench.py --stop --rounds 5000 [--source DIR]
    python benchmarks/stop_bench.py --memory --game lightning-roulette --rounds 30 [--plant dice]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from long_session_bench import RoundCounter  # noqa: E402
from proc_memory import memory_mb  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
LIBRARIES = ("numpy", "scipy", "matplotlib", "pybullet", "PIL")   # what a bench process may have loaded


def cpu_seconds(pid: int) -> float | None:
    """utime + stime of ``pid`` (a zombie's too, until it is reaped), in seconds."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()     # after the command's name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / TICK


def is_zombie(pid: int) -> bool:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return text[text.rindex(")") + 2] == "Z"


def loaded(pid: int) -> list[str]:
    """The heavy libraries mapped into ``pid`` (numpy, scipy, ...)."""
    try:
        maps = Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return []
    return [name for name in LIBRARIES if f"/site-packages/{name}/" in maps or f"/{name}." in maps]


def _env(source: Path | None) -> dict:
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def stop_once(args) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        cmd = [sys.executable, "-m", "bench.cli", "run", "--rounds", str(args.rounds * 100), "--seed", "1",
               "--no-probes", "--plant", "dice", "--out", str(out)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=_env(args.source), cwd=args.source)
        counter = RoundCounter(out / "session.jsonl")
        while proc.poll() is None and counter.update() < args.rounds:
            time.sleep(0.1)
        before = cpu_seconds(proc.pid) or 0.0       # None: it is gone already (the summary says how it ended)
        rss = memory_mb(proc.pid, "VmRSS")
        signalled = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        after, peak = before, 0.0
        while not is_zombie(proc.pid):
            after = cpu_seconds(proc.pid) or after
            peak = max(peak, memory_mb(proc.pid, "VmHWM"))      # a zombie has no memory to report
            time.sleep(0.02)
        after = cpu_seconds(proc.pid) or after        # the zombie's final figure
        wall = time.monotonic() - signalled
        stdout, stderr = proc.communicate(timeout=600)
        files = {p.name: round(p.stat().st_size / 1e6, 3) for p in sorted(out.iterdir()) if p.is_file()}
        summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").exists() else {}
    return {"rounds_at_signal": counter.rounds, "rounds_recorded": summary.get("rounds"),
            "cpu_s_to_exit": round(after - before, 2), "wall_s_to_exit": round(wall, 2),
            "rss_at_signal_mb": round(rss, 1), "peak_mb": round(peak, 1) if peak else None,
            "exit": proc.returncode, "ending": summary.get("ending"), "files_mb": files,
            "stderr": stderr.strip().splitlines()[-1] if stderr.strip() else ""}


def memory_once(args) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        cmd = [sys.executable, "-m", "bench.cli", "run", "--game", args.game, "--rounds", str(args.rounds),
               "--seed", "1", "--plant", args.plant, "--out", str(out)]
        started = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                env=_env(args.source), cwd=args.source)
        peak, libraries = 0.0, list[str]()
        while not is_zombie(proc.pid):
            peak = max(peak, memory_mb(proc.pid, "VmHWM"))
            libraries = loaded(proc.pid) or libraries
            time.sleep(0.05)
        peak = max(peak, memory_mb(proc.pid, "VmHWM"))
        _, stderr = proc.communicate(timeout=600)
    return {"peak_mb": round(peak, 1), "loaded": libraries, "exit": proc.returncode,
            "wall_s": round(time.monotonic() - started, 1),
            "stderr": stderr.strip().splitlines()[-1] if stderr.strip() else ""}


def median_of(runs: list[dict]) -> dict:
    """Each numeric figure's median over the runs; the rest from the last run."""
    merged = dict(runs[-1])
    for key, value in runs[-1].items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            merged[key] = statistics.median(run[key] for run in runs if run.get(key) is not None)
    merged["repeats"] = len(runs)
    return merged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--stop", action="store_true", help="CPU and wall seconds from SIGTERM to exit (default)")
    mode.add_argument("--memory", action="store_true", help="peak resident memory of a short session")
    parser.add_argument("--rounds", type=int, help="rounds before SIGTERM (default 5000); --memory: rounds "
                                                   "played (default 30)")
    parser.add_argument("--game", default="lightning-roulette", help="--memory: the game (default %(default)s)")
    parser.add_argument("--plant", default="physics", help="--memory: the plant (default %(default)s)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--source", type=Path, help="run the bench from this checkout (default: this one)")
    args = parser.parse_args()
    if args.rounds is None:
        args.rounds = 30 if args.memory else 5000
    once = memory_once if args.memory else stop_once
    runs = []
    for _ in range(args.repeats):
        runs.append(once(args))
        print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
    print(json.dumps({"mode": "memory" if args.memory else "stop", "rounds": args.rounds,
                      "source": str(args.source or "this checkout"),
                      **({"game": args.game, "plant": args.plant} if args.memory else {}),
                      **median_of(runs)}, indent=2))
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
