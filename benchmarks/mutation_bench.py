"""Mutation score: is every misbehaviour of the emulated controller caught,
quickly, with the right clause, whatever the session seed?

    .venv/bin/python benchmarks/mutation_bench.py [--seeds 20] [--rounds 30] [--jobs 2]
        [--only NAME,...] [--markdown FILE] [--json FILE] [--trials FILE.jsonl] [--in-process]

For every misbehaviour of ``bench.emulator.misbehaviours`` and every game it
applies to, ``bench run`` plays up to --rounds rounds against the emulated
controller at each of --seeds session seeds (1..N), with the bench's defaults:
covering play, the probe wagers, the late-wager probe and the staged probe
rounds. The plant is the fair one (``--plant dice``: fair dice, a fair wheel,
staged outcomes taken as asked) so that a session takes about a second; the
physics plants stage the same outcomes by a seed search. A session stops at
the first round with a finding (a violation or a failed round). Each
emulated controller runs in its own process, as ``bench run`` starts it
(``--in-process``: on a thread, behind a loopback socket, faster).

Per misbehaviour and game: the share of seeds caught within --rounds rounds,
the median round of first detection (the session's round count, 1-based),
and the share of seeds at which the first failing round names one of the
misbehaviour's expected clauses (``Policy.expected_clauses``). The compliant
emulator is run at every seed of every game and must pass every round.
Targets: every row caught at every seed, median first detection by round 5,
the expected clause named every time; the compliant emulator clean.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

from bench.session.mutation import GAMES, HEADER, Trial, TrialResult, rows, summarise, trial, trial_rounds


def _key(t) -> tuple:
    return (t.misbehaviour, t.game, t.seed, t.rounds)


def _done(path: Path | None) -> dict[tuple, TrialResult]:
    """The trials a run before this one finished (``--trials``), by their key."""
    if path is None or not path.exists():
        return {}
    done = {}
    for line in path.read_text().splitlines():
        try:
            data = json.loads(line)
            result = TrialResult(**{**data, "clauses": tuple(data["clauses"])})
        except (ValueError, TypeError, KeyError):
            continue            # a line torn by an interrupted run: that trial runs again
        done[_key(result)] = result
    return done


def run(seeds: int, rounds: int, jobs: int, only: set[str] | None, progress=lambda *a: None,
        in_process: bool = False, trials_file: Path | None = None):
    trials = [Trial(name, game, seed, trial_rounds(name, game, rounds), in_process) for name, game in rows(only)
              for seed in range(1, seeds + 1)]
    trials += [Trial(None, game, seed, rounds, in_process) for game in GAMES for seed in range(1, seeds + 1)]
    done = _done(trials_file)
    results = [done[_key(t)] for t in trials if _key(t) in done]
    todo = [t for t in trials if _key(t) not in done]
    log = trials_file.open("a") if trials_file else None
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for result in pool.map(trial, todo):
            results.append(result)
            if log:
                log.write(json.dumps(asdict(result)) + "\n")
                log.flush()
            progress(len(results), len(trials))
    if log:
        log.close()
    by_row: dict[tuple[str, str], list[TrialResult]] = {}
    compliant: dict[str, list[TrialResult]] = {}
    for r in results:
        if r.misbehaviour is None:
            compliant.setdefault(r.game, []).append(r)
        else:
            by_row.setdefault((r.misbehaviour, r.game), []).append(r)
    table = [summarise(name, game, found) for (name, game), found in by_row.items()]
    clean = {game: sum(1 for r in found if r.first_round is None) for game, found in compliant.items()}
    false_alarms = {game: [asdict(r) for r in found if r.first_round is not None] for game, found in compliant.items()}
    return table, clean, false_alarms


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="comma-separated misbehaviour names")
    parser.add_argument("--markdown", metavar="FILE")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--trials", metavar="FILE.jsonl",
                        help="each trial's result as it finishes; a run given the same file skips the trials in it")
    parser.add_argument("--in-process", action="store_true",
                        help="each emulated controller on a thread of the worker (faster) instead of its own process")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    tty = sys.stderr.isatty()

    def progress(done, total):
        if tty:
            print(f"\r{done}/{total} sessions", end="", file=sys.stderr, flush=True)
        elif done % 50 == 0 or done == total:
            print(f"{done}/{total} sessions", file=sys.stderr, flush=True)

    table, clean, false_alarms = run(args.seeds, args.rounds, args.jobs, only, progress, args.in_process,
                                     Path(args.trials) if args.trials else None)
    if tty:
        print(file=sys.stderr)
    lines = [HEADER] + [row.markdown() for row in table]
    lines.append("")
    lines.append("compliant emulator: " + ", ".join(f"{game} {n}/{args.seeds} seeds clean" for game, n in clean.items()))
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": [asdict(r) for r in table], "compliant_clean": clean,
                                               "false_alarms": false_alarms, "seeds": args.seeds,
                                               "rounds": args.rounds}, indent=2))
    ok = all(r.caught == r.seeds and r.right_clause == r.seeds for r in table) and \
        all(n == args.seeds for n in clean.values())
    return 0 if ok else 1


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
