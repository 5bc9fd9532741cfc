"""Benchmark of bench run and bench replay.

    .venv/bin/python benchmarks/run_bench.py [--rounds 200] [--recorded-rounds 2000] [--repeats 3] [--json FILE]

Lightning Dice rounds per second in virtual time against the emulated
controller in its own process behind a pty, 10 wagers a round plus the bench's
late-wager probe:
- with the physics tower (one PyBullet drop per release);
- with recorded outcomes (``twin drop --json`` simulated beforehand), in
  protocol version 2 (what the bench and the emulator agree on) and version 1
  (a version-1-only controller: the fallback);
and the replay speed of the recorded session's journal (rounds per second),
judging the recorded messages (the default) and decoding every frame again
(``--redecode``).

Two rates per session: **steady**, from the first frame of the 51st round to
the last frame of the last round (wall times from the journal), which is the
rate the issue's targets are about; and **whole**, rounds over the wall time
of ``run_session`` including starting the emulated controller (~0.15 s).
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

import orjson

from bench.journal.chain import WIRE_COLUMNS
from bench.play.players import PlayerMix
from bench.journal.replay import replay
from bench.session.runner import SessionConfig, run_session

ROOT = Path(__file__).resolve().parents[1]
WARM_UP = 50          # rounds left out of the steady rate
WALL = WIRE_COLUMNS.index("wall")


def steady_rate(journal: Path, rounds: int) -> float:
    """Rounds per second from round WARM_UP + 1 to the end, by the journal's wall times."""
    first = last = None
    with open(journal, "rb") as handle:
        for line in handle:
            record = orjson.loads(line)
            if record.get("kind") == "round" and record["wire"]:
                if record["round"] == WARM_UP + 1:
                    first = record["wire"][0][WALL]
                last = record["wire"][-1][WALL]
    return (rounds - WARM_UP) / (last - first)


def session(out: Path, rounds: int, **kw) -> tuple[float, float, Path]:
    started = time.perf_counter()
    # The random mix of 10 wagers and no probe wagers: the figures compare with earlier runs.
    outcome = run_session(SessionConfig(game="lightning-dice", rounds=rounds, seed=1, out=str(out),
                                        probes=False, progress=False, players=PlayerMix.default("lightning-dice"),
                                        probe_wagers=False, **kw))
    elapsed = time.perf_counter() - started
    assert not outcome.oracle.violations, outcome.oracle.violations[:3]
    return steady_rate(outcome.journal, rounds), rounds / elapsed, outcome.journal


def replay_rate(journal: Path, rounds: int, redecode: bool) -> float:
    started = time.perf_counter()
    result = replay(journal, redecode=redecode)
    elapsed = time.perf_counter() - started
    assert result.passed and len(result.oracle.rounds) == rounds
    return rounds / elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200, help="rounds with the physics tower")
    parser.add_argument("--recorded-rounds", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    if min(args.rounds, args.recorded_rounds) <= WARM_UP:
        parser.error(f"--rounds and --recorded-rounds must be over {WARM_UP} (the warm-up left out)")

    work = Path(tempfile.mkdtemp(prefix="run-bench-"))
    outcomes = work / "drops.jsonl"
    with open(outcomes, "w") as handle:
        subprocess.run([sys.executable, "-m", "twin.cli", "drop", str(ROOT / "fixtures/towers/standard.yaml"),
                        "--count", "300", "--json"], stdout=handle, check=True)
    figures: dict[str, list[float]] = {name: [] for name in (
        "physics_steady", "physics_whole", "recorded_v2_steady", "recorded_v2_whole",
        "recorded_v1_steady", "recorded_v1_whole", "replay", "replay_redecode")}
    for repeat in range(args.repeats):
        steady, whole, _ = session(work / f"physics{repeat}", args.rounds)
        figures["physics_steady"].append(steady)
        figures["physics_whole"].append(whole)
        for version in (2, 1):
            steady, whole, journal = session(work / f"recorded-v{version}-{repeat}", args.recorded_rounds,
                                             plant="recorded", design=str(outcomes),
                                             emulator_args=() if version == 2 else ("--protocol", "1"))
            figures[f"recorded_v{version}_steady"].append(steady)
            figures[f"recorded_v{version}_whole"].append(whole)
            if version == 2:
                figures["replay"].append(replay_rate(journal, args.recorded_rounds, redecode=False))
                figures["replay_redecode"].append(replay_rate(journal, args.recorded_rounds, redecode=True))
        print(f"repeat {repeat + 1}: " + ", ".join(f"{name} {values[-1]:.0f}" for name, values in figures.items()),
              file=sys.stderr)
    summary = {
        "rounds_physics": args.rounds, "rounds_recorded": args.recorded_rounds, "repeats": args.repeats,
        "wagers_per_round": 10, "warm_up_rounds": WARM_UP,
        **{f"{name}_rounds_per_s_median": round(statistics.median(values), 1) for name, values in figures.items()},
        "targets": {"physics": 20, "recorded": 500, "replay": 5000},
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
