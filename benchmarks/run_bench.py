"""Benchmark of bench run and bench replay (issue 6).

    .venv/bin/python benchmarks/run_bench.py [--rounds 200] [--recorded-rounds 1000] [--repeats 3] [--json FILE]

Lightning Dice rounds per second in virtual time against the emulated
controller in its own process behind a pty, 10 wagers a round:
- with the physics tower (one PyBullet drop per release);
- with recorded outcomes (``twin drop --json`` simulated beforehand);
and the replay speed of the recorded session's journal (rounds per second).
Probes are off, so every round is ordinary play. Each figure is the median of
--repeats runs measured side by side in this one run. Targets: 20 rounds/s
with physics, 500 with recorded outcomes, replay 5,000 rounds/s.
Not a timed test: the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.replay import replay
from bench.runner import SessionConfig, run_session

ROOT = Path(__file__).resolve().parents[1]


def session_rate(out: Path, rounds: int, **kw) -> tuple[float, Path]:
    started = time.perf_counter()
    outcome = run_session(SessionConfig(game="lightning-dice", rounds=rounds, seed=1, out=str(out),
                                        probes=False, progress=False, **kw))
    elapsed = time.perf_counter() - started
    assert not outcome.oracle.violations, outcome.oracle.violations[:3]
    return rounds / elapsed, outcome.journal


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200, help="rounds with the physics tower")
    parser.add_argument("--recorded-rounds", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="run-bench-"))
    outcomes = work / "drops.jsonl"
    with open(outcomes, "w") as handle:
        subprocess.run([sys.executable, "-m", "twin.cli", "drop", str(ROOT / "fixtures/towers/standard.yaml"),
                        "--count", "300", "--json"], stdout=handle, check=True)
    physics, recorded, replays = [], [], []
    for repeat in range(args.repeats):
        rate, _ = session_rate(work / f"physics{repeat}", args.rounds)
        physics.append(rate)
        rate, journal = session_rate(work / f"recorded{repeat}", args.recorded_rounds, plant="recorded",
                                     design=str(outcomes))
        recorded.append(rate)
        started = time.perf_counter()
        result = replay(journal)
        elapsed = time.perf_counter() - started
        assert result.passed and len(result.oracle.rounds) == args.recorded_rounds
        replays.append(args.recorded_rounds / elapsed)
        print(f"repeat {repeat + 1}: physics {physics[-1]:.1f} rounds/s, recorded {recorded[-1]:.1f} rounds/s, "
              f"replay {replays[-1]:.0f} rounds/s", file=sys.stderr)
    summary = {
        "rounds_physics": args.rounds, "rounds_recorded": args.recorded_rounds, "repeats": args.repeats,
        "physics_rounds_per_s_median": round(statistics.median(physics), 1),
        "recorded_rounds_per_s_median": round(statistics.median(recorded), 1),
        "replay_rounds_per_s_median": round(statistics.median(replays), 0),
        "targets": {"physics": 20, "recorded": 500, "replay": 5000},
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
