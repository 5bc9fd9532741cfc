"""The mutation score of the bench: is every misbehaviour of the emulated
controller (``bench.emulator.misbehaviours``) caught, how soon, and does the
failing round name the clause the misbehaviour breaks?

One trial is a ``bench run`` session with the bench's defaults (covering
play, the probe wagers, the late-wager probe, the staged probe rounds) on the
fair plant (``dice``: fair dice, a fair wheel, staged outcomes taken as
asked), which stops at the first round with a finding. The figures are in
docs/mutation.md (``benchmarks/mutation_bench.py``).
"""

from __future__ import annotations

import statistics
import tempfile
from contextlib import nullcontext
from dataclasses import dataclass

from bench.session.cycle import Phases, failure_clause
from bench.emulator.misbehaviours import MISBEHAVIOURS
from bench.rules import game_names
from bench.session.runner import SessionConfig, run_session, session_rules

GAMES = tuple(sorted(game_names()))    # the built-in games
REPLY_S = 3.0      # wall seconds for each reply (the default): a held-back message costs this much once;
                   # less made trials on a loaded machine fail on a slow reply instead of the breach


@dataclass(frozen=True)
class Trial:
    misbehaviour: str | None       # None: the compliant controller
    game: str
    seed: int
    rounds: int
    in_process: bool = False       # the controller on a thread (bench.emulator.threaded), not a process


@dataclass(frozen=True)
class TrialResult:
    misbehaviour: str | None
    game: str
    seed: int
    rounds: int                    # rounds the trial was to play
    first_round: int | None        # round (1-based) of the first finding; None: none in the trial's rounds
    clauses: tuple[str, ...]       # the clauses named in that round


def trial_rounds(name: str | None, game: str, rounds: int) -> int:
    """The rounds a trial plays: ``rounds``, or more for a misbehaviour found
    only over more (``Policy.rounds_needed``: what the bench's report says it needs)."""
    needed = MISBEHAVIOURS[name].rounds_needed(game) if name else None
    return max(rounds, needed or 0)


def rows(only=None) -> list[tuple[str, str]]:
    """(misbehaviour, game) for every game each misbehaviour applies to."""
    return [(name, game) for name, cls in sorted(MISBEHAVIOURS.items()) for game in GAMES
            if game in cls.games and (not only or name in only)]


def trial(t: Trial) -> TrialResult:
    from bench.emulator.threaded import threaded_controller
    with tempfile.TemporaryDirectory(prefix="mutation-") as out:
        config = SessionConfig(game=t.game, rounds=t.rounds, seed=t.seed, out=out, plant="dice",
                               misbehave=t.misbehaviour, phases=Phases(reply_s=REPLY_S), progress=False,
                               stop_at_first_finding=t.misbehaviour is not None)
        controller = threaded_controller(t.game, session_rules(config), seed=t.seed, misbehave=t.misbehaviour) \
            if t.in_process else nullcontext(None)
        with controller as url:
            if url:
                config.controller, config.misbehave = url, None
            outcome = run_session(config)
    # The emulated controller numbers its rounds from 1; a failed round keeps its number.
    named: dict[int, set[str]] = {}
    # A verdict on the whole session (the Lucky draw's fit) is found when the session ends.
    last = max((r.round for r in outcome.oracle.rounds), default=0)
    for v in outcome.oracle.violations:
        named.setdefault(last if v.round is None else v.round, set()).add(v.clause)
    for round_no, text in outcome.round_failures.items():
        named.setdefault(round_no, set()).add(failure_clause(text))
    if not named:
        return TrialResult(t.misbehaviour, t.game, t.seed, t.rounds, None, ())
    first = min(named)
    return TrialResult(t.misbehaviour, t.game, t.seed, t.rounds, first, tuple(sorted(named[first])))


@dataclass(frozen=True)
class Row:
    misbehaviour: str
    game: str
    rare: bool
    rounds: int
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
        return (f"| {self.misbehaviour} | {self.game} | {'yes' if self.rare else ''} | {self.rounds} | "
                f"{self.caught}/{self.seeds} | {median} | {worst} | {self.right_clause}/{self.seeds} | "
                f"{', '.join(self.expected)} | {', '.join(self.named)} |")


HEADER = ("| misbehaviour | game | rare | rounds | caught | median round | worst round | clause right | "
          "expected clause | clauses named |\n|---|---|---|---|---|---|---|---|---|---|")


def summarise(name: str, game: str, results: list[TrialResult]) -> Row:
    cls = MISBEHAVIOURS[name]
    expected = cls.expected_clauses(game)
    firsts = [r.first_round for r in results if r.first_round is not None]
    right = sum(1 for r in results if r.first_round is not None and set(expected) & set(r.clauses))
    named = sorted({c for r in results for c in r.clauses})
    return Row(name, game, cls.rare, max(r.rounds for r in results), expected, len(firsts), len(results),
               statistics.median(firsts) if firsts else None, max(firsts) if firsts else None, right, tuple(named))
