"""Mutation score: is every misbehaviour of the emulated controller caught,
quickly, with the right clause, whatever the session seed?

    .venv/bin/python benchmarks/mutation_bench.py [--seeds 20] [--rounds 30] [--jobs 2]
        [--only NAME,...] [--markdown FILE] [--json FILE]

For every misbehaviour of ``bench.emulator.misbehaviours`` and every game it
applies to, ``bench run`` plays up to --rounds rounds against the emulated
controller at each of --seeds session seeds (1..N), with the bench's defaults:
covering play, the probe wagers, the late-wager probe and the staged probe
rounds. The plant is the fair one (``--plant dice``: fair dice, a fair wheel,
staged outcomes taken as asked) so that a session takes about a second; the
physics plants stage the same outcomes by a seed search. A session stops at
the first round with a finding (a violation or a failed round).

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
import statistics
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.cycle import Phases, failure_clause
from bench.emulator.misbehaviours import MISBEHAVIOURS
from bench.runner import SessionConfig, run_session

GAMES = ("lightning-dice", "sic-bo", "lightning-roulette", "dice-ology")
REPLY_S = 1.5      # wall seconds for each reply: a held-back message costs this much once


@dataclass(frozen=True)
class Trial:
    misbehaviour: str | None
    game: str
    seed: int
    rounds: int


@dataclass(frozen=True)
class TrialResult:
    misbehaviour: str | None
    game: str
    seed: int
    first_round: int | None        # session round (1-based) of the first finding; None: none
    clauses: tuple[str, ...]       # the clauses named in that round
    rounds_played: int


def rows(only: set[str] | None = None) -> list[tuple[str, str]]:
    return [(name, game) for name, cls in sorted(MISBEHAVIOURS.items()) for game in GAMES
            if game in cls.games and (not only or name in only)]


def trial(t: Trial) -> TrialResult:
    with tempfile.TemporaryDirectory(prefix="mutation-") as out:
        outcome = run_session(SessionConfig(
            game=t.game, rounds=t.rounds, seed=t.seed, out=out, plant="dice", misbehave=t.misbehaviour,
            phases=Phases(reply_s=REPLY_S), progress=False, stop_at_first_finding=t.misbehaviour is not None))
    # The controller numbers its rounds from 1 in a session; a failed round keeps its number.
    named: dict[int, set[str]] = {}
    for v in outcome.oracle.violations:
        named.setdefault(v.round or 0, set()).add(v.clause)
    for round_no, text in outcome.round_failures.items():
        named.setdefault(round_no, set()).add(failure_clause(text))
    if not named:
        return TrialResult(t.misbehaviour, t.game, t.seed, None, (), len(outcome.oracle.rounds))
    first = min(named)
    return TrialResult(t.misbehaviour, t.game, t.seed, first, tuple(sorted(named[first])),
                       len(outcome.oracle.rounds))


@dataclass(frozen=True)
class Row:
    misbehaviour: str
    game: str
    rare: bool
    expected: tuple[str, ...]
    caught: int
    seeds: int
    median_round: float | None
    worst_round: int | None
    right_clause: int
    named: tuple[str, ...]

    def markdown(self) -> str:
        median = "-" if self.median_round is None else f"{self.median_round:g}"
        worst = "-" if self.worst_round is None else str(self.worst_round)
        return (f"| {self.misbehaviour} | {self.game} | {'yes' if self.rare else ''} | "
                f"{self.caught}/{self.seeds} | {median} | {worst} | {self.right_clause}/{self.seeds} | "
                f"{', '.join(self.expected)} | {', '.join(self.named)} |")


def summarise(name: str, game: str, results: list[TrialResult]) -> Row:
    cls = MISBEHAVIOURS[name]
    expected = cls.expected_clauses(game)
    firsts = [r.first_round for r in results if r.first_round is not None]
    right = sum(1 for r in results if r.first_round is not None and set(expected) & set(r.clauses))
    named = sorted({c for r in results for c in r.clauses})
    return Row(name, game, cls.rare, expected, len(firsts), len(results),
               statistics.median(firsts) if firsts else None, max(firsts) if firsts else None, right, tuple(named))


HEADER = ("| misbehaviour | game | rare | caught | median round | worst round | clause right | "
          "expected clause | clauses named |\n|---|---|---|---|---|---|---|---|---|")


def run(seeds: int, rounds: int, jobs: int, only: set[str] | None, progress=lambda *a: None):
    trials = [Trial(name, game, seed, rounds) for name, game in rows(only) for seed in range(1, seeds + 1)]
    trials += [Trial(None, game, seed, rounds) for game in GAMES for seed in range(1, seeds + 1)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = []
        for done, result in enumerate(pool.map(trial, trials), start=1):
            results.append(result)
            progress(done, len(trials))
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
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    tty = sys.stderr.isatty()

    def progress(done, total):
        if tty:
            print(f"\r{done}/{total} sessions", end="", file=sys.stderr, flush=True)

    table, clean, false_alarms = run(args.seeds, args.rounds, args.jobs, only, progress)
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
    sys.exit(main())
