"""What sealing a journal costs: bench run with and without a bench key,
side by side, and bench replay with and without checking the seals.

    .venv/bin/python benchmarks/seal_bench.py [--rounds 1000] [--repeats 5] [--every 10] [--json FILE]

Lightning Dice with recorded outcomes against the emulated controller behind
a pty (the fastest session there is, so the one where a seal weighs most),
10 wagers a round, probes off. Each repeat runs an unsealed session and a
sealed one back to back, in alternating order, so that the machine's noise
falls on both alike; the figures are medians over the repeats of the steady
rate of ``run_bench.py`` (rounds/s from round 51 on, by the journal's wall
times). Also: the time of one seal (the signature, the next epoch's key, its
record) measured alone, as a share of a round at the unsealed median rate.
Target: a seal costs under 5% of a round.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_bench import ROOT, WARM_UP, replay_rate, session  # noqa: E402

from bench.journal.chain import JournalWriter  # noqa: E402
from bench.journal.keys import new_key, take_session  # noqa: E402
from bench.journal.replay import replay  # noqa: E402
from bench.journal.seal import Sealer  # noqa: E402


def seal_seconds(key: Path, count: int = 2000) -> float:
    """Seconds per seal: ``count`` seals appended to a journal, nothing else."""
    with tempfile.TemporaryDirectory() as work:
        sealer = Sealer(take_session(key), every=1)
        with JournalWriter(Path(work) / "seals.jsonl", sealer=sealer) as journal:
            journal.append("session", seal=sealer.header)
            started = time.perf_counter()
            for _ in range(count):
                journal.seal()
            return (time.perf_counter() - started) / count


def sealed_replay_rate(journal: Path, rounds: int, fingerprint: str) -> float:
    started = time.perf_counter()
    result = replay(journal, pubkey=fingerprint)
    elapsed = time.perf_counter() - started
    assert result.passed and result.seals.final, result.seals.problems
    return rounds / elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--every", type=int, default=10, help="rounds between seals (bench run --seal-every)")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    if args.rounds <= WARM_UP:
        parser.error(f"--rounds must be over {WARM_UP} (the warm-up left out)")

    work = Path(tempfile.mkdtemp(prefix="seal-bench-"))
    outcomes = work / "drops.jsonl"
    with open(outcomes, "w") as handle:
        subprocess.run([sys.executable, "-m", "twin.cli", "drop", str(ROOT / "fixtures/towers/standard.yaml"),
                        "--count", "300", "--json"], stdout=handle, stderr=subprocess.DEVNULL, check=True)
    fingerprint = new_key(work / "key", sessions=4 * args.repeats + 4)
    key = work / "key" / "bench.key"
    figures: dict[str, list[float]] = {name: [] for name in (
        "unsealed", "sealed", "replay_unchecked", "replay_checked")}
    for repeat in range(args.repeats):
        order = ("unsealed", "sealed") if repeat % 2 == 0 else ("sealed", "unsealed")
        for name in order:
            extra = {"key": str(key), "seal_every": args.every} if name == "sealed" else {}
            steady, _, journal = session(work / f"{name}{repeat}", args.rounds, plant="recorded",
                                         design=str(outcomes), **extra)
            figures[name].append(steady)
            if name == "sealed":
                figures["replay_unchecked"].append(replay_rate(journal, args.rounds, redecode=False))
                figures["replay_checked"].append(sealed_replay_rate(journal, args.rounds, fingerprint))
        print(f"repeat {repeat + 1}: " + ", ".join(f"{name} {values[-1]:.0f}" for name, values in figures.items()),
              file=sys.stderr)
    medians = {name: statistics.median(values) for name, values in figures.items()}
    one_seal = statistics.median(seal_seconds(key) for _ in range(3))
    round_s = 1 / medians["unsealed"]
    summary = {
        "rounds": args.rounds, "repeats": args.repeats, "seal_every": args.every, "warm_up_rounds": WARM_UP,
        **{f"{name}_rounds_per_s_median": round(value, 1) for name, value in medians.items()},
        "sealed_over_unsealed": round(medians["sealed"] / medians["unsealed"], 4),
        "seal_us": round(one_seal * 1e6, 1),
        "round_us_unsealed": round(round_s * 1e6, 1),
        "seal_share_of_a_round_pct": round(100 * one_seal / args.every / round_s, 2),
        "one_seal_over_one_round_pct": round(100 * one_seal / round_s, 2),
        "target_pct": 5,
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
