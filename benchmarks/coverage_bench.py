"""Outcome coverage: how many of each game's outcome classes a session covers,
by which round, and what it leaves, over many session seeds.

    .venv/bin/python benchmarks/coverage_bench.py [--seeds 20] [--rounds 30] [--jobs 2] [--json FILE]

For each game and session seed 1..N, ``bench run`` plays --rounds rounds
against the compliant emulated controller (on a thread) on the fair plant,
with the staged plan (``bench.play.coverage``), and the session's account of
its classes (``bench.rules.coverage``) is tallied: classes covered, the round
by which the last coverable one was covered, the classes left and how often.
The physics plants stage the same classes from their catalogue of swept
seeds (benchmarks/staging_bench.py measures that).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

GAMES = ("lightning-dice", "sic-bo", "lightning-roulette", "dice-ology")


def one(job: tuple[str, int, int]) -> dict:
    from bench.emulator.threaded import threaded_controller
    from bench.session.cycle import Phases
    from bench.session.runner import SessionConfig, run_session, session_rules
    game, seed, rounds = job
    with tempfile.TemporaryDirectory(prefix="coverage-") as out:
        config = SessionConfig(game=game, rounds=rounds, seed=seed, out=out, plant="dice", progress=False,
                               phases=Phases(reply_s=1.5))
        with threaded_controller(game, session_rules(config), seed=seed) as url:
            config.controller = url
            outcome = run_session(config)
    account = outcome.summary.coverage
    return {"game": game, "seed": seed, "status": outcome.status, "classes": len(account.classes),
            "covered": dict(account.covered), "missing": [c.id for c, _ in account.missing()]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    jobs = [(game, seed, args.rounds) for game in GAMES for seed in range(1, args.seeds + 1)]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = []
        for done, result in enumerate(pool.map(one, jobs), start=1):
            results.append(result)
            print(f"\r{done}/{len(jobs)} sessions", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print("| game | classes | sessions covering all | covered (median, min) | last class covered by round "
          "(median, worst) | classes left (sessions) |\n|---|---|---|---|---|---|")
    for game in GAMES:
        rows = [r for r in results if r["game"] == game]
        covered = [len(r["covered"]) for r in rows]
        last = [max(r["covered"].values()) for r in rows if r["covered"]]
        left = Counter(cid for r in rows for cid in r["missing"])
        shown = ", ".join(f"{cid} ({n})" for cid, n in left.most_common(6)) + (" ..." if len(left) > 6 else "")
        print(f"| {game} | {rows[0]['classes']} | {sum(not r['missing'] for r in rows)}/{len(rows)} | "
              f"{statistics.median(covered):g}, {min(covered)} | {statistics.median(last):g}, {max(last)} | "
              f"{shown or 'none'} |")
    failed = [r for r in results if r["status"] != 0]
    if failed:
        print(f"compliant sessions that did not pass: {[(r['game'], r['seed'], r['status']) for r in failed]}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0 if not failed else 1


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
