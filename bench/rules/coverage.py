"""What shows each outcome class (``bench.rules.outcome_classes``), how often a
session can hope to see it, and the throws that would stage it.

``ClassCoverage(game, rules)`` answers three questions, the same way for the
live plan (``bench.play.coverage``) and for a report read from a journal:

- ``shown(throws, lucky, before)``: the classes one round shows, from the
  plant's readings (SENSOR: dice and which lie flat, or the pocket), the
  round's Lucky Numbers and what the round before left (``Before``); a class
  that tests base odds (``OutcomeClass.bets``) is not shown by a round in
  which one of its bets is a Lucky Number and wins (that round is a Lucky
  win: 625b.2(g)(2), 617c.3(f) pay base odds only where no multiplier applies);
- ``availability(cls)``: the chance that a round can show it at all (a Lucky
  win at the fourth listed position needs a round that reveals four; a Lucky
  zero needs zero drawn), from the submission's Lucky distribution;
- ``stages(lucky, rng)``: the throws a round could be staged with, each a
  tuple of ``Throw`` (one per command of the plant: a no roll, then the
  re-shake), with choices (which faces make a double, the order of a
  sequence, which die is cocked) drawn from ``rng``.

``coverage(game, rules, rounds)`` is the session's account: each class the
first round that showed it, and for each class no round showed, why (the
staged plan adds the classes it could not stage, ``Coverage.unstaged``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from typing import Iterable, Sequence

from bench.rules.errors import RulesError
from bench.rules.base import Lucky, Round, Wager
from bench.rules.descriptor import CRAPS, DICE3, NO_ROLL_VOIDS, WHEEL
from bench.rules.outcome_classes import (DOUBLE, LUCKY_POCKET, LUCKY_WIN, LUCKY_WIN_AFTER, NO_ROLL, POCKET,
                                         SEQUENCE, TOTAL, OutcomeClass, Throw)
from bench.rules.registry import describe, get_game

MULTISETS = tuple(combinations_with_replacement(range(1, 7), 3))    # the 56 ways three dice can rest
COCKED_PICKS = 3            # choices a cocked throw carries (which die; which of the plant's staged drops)
NO_ROLLS_STAGED = 4         # cocked throws a covering session stages when none fails (Lightning Dice: a no roll,
                            # two in a row, one before a Lucky win; at most 4 in 60 seeds of 30 rounds, Sic Bo 2):
                            # a physics plant keeps as many drops, so that each no roll is a drop of its own
SURE = 0.99                 # "rounds needed": the count within which a class comes up this surely


@dataclass(frozen=True)
class Seen:
    """One throw as the plant showed it: a SENSOR reading."""
    dice: tuple[int, ...] | None = None
    flat: tuple[bool, ...] | None = None
    pocket: int | None = None

    @classmethod
    def of(cls, reading) -> "Seen":
        """From a SENSOR message's fields or a journal's reading (``dice``, ``flat``, ``pocket``)."""
        get = reading.get if hasattr(reading, "get") else (lambda k: getattr(reading, k, None))
        dice, flat = get("dice"), get("flat")
        return cls(dice=None if dice is None else tuple(dice), flat=None if flat is None else tuple(flat),
                   pocket=get("pocket"))


@dataclass(frozen=True)
class Before:
    """What the round before leaves for the next: how many throws in a row it
    ended with not flat, whether a Lucky Number won in it, and its Lucky Numbers."""
    no_roll_run: int = 0
    lucky_won: bool = False
    lucky: tuple[tuple[str, int], ...] = ()


def _lucky_pairs(lucky) -> tuple[tuple[str, int], ...]:
    return tuple((x.bet, x.pays) if isinstance(x, Lucky) else (x[0], x[1]) for x in lucky)


class ClassCoverage:
    def __init__(self, game: str, rules):
        self.game_name = game
        self.game = get_game(game)
        self.descriptor = describe(game)
        self.rules = rules
        self.kind = self.descriptor.kind
        self.voids = self.descriptor.no_roll == NO_ROLL_VOIDS
        self._wins: dict[tuple[str, object], bool] = {}
        declared = self.descriptor.outcome_classes
        self.classes: tuple[OutcomeClass, ...] = tuple(c for c in declared if self.availability(c) > 0)
        self.unreachable: tuple[OutcomeClass, ...] = tuple(c for c in declared if self.availability(c) <= 0)
        self._base_bets = {c.id: c.bets for c in declared if c.bets}     # class id -> the bets it pays at base odds

    # -- how often a round can show a class ------------------------------------
    def availability(self, cls: OutcomeClass) -> float:
        """The chance that a round can be made to show ``cls``: 1 unless it needs
        the controller's Lucky draw (a count, a number) to come out a certain way."""
        lucky = getattr(self.rules, "lucky", None)
        if cls.kind == LUCKY_WIN:
            if lucky is None:
                return 0.0
            return float(sum(p for k, p in lucky.count if k >= cls.value))
        if cls.kind == LUCKY_POCKET:
            return 0.0 if lucky is None else float(lucky.lucky_probability(f"straight:{cls.value}"))
        if cls.kind == LUCKY_WIN_AFTER:
            return 0.0 if lucky is None else 1.0
        return 1.0

    def perishable(self, cls: OutcomeClass) -> bool:
        """Only some rounds can show it: take the chance when it comes."""
        return (self.availability(cls) < 1 or cls.kind == LUCKY_WIN_AFTER
                or (cls.kind == NO_ROLL and isinstance(cls.value, int) and cls.value > 1))   # value: no rolls in a row

    def rounds_needed(self, cls: OutcomeClass, first_staged: int = 2) -> int | None:
        """The session length within which a round shows ``cls`` with 99%
        chance when every round from ``first_staged`` on may be staged; None
        when it does not depend on the controller's draw."""
        a = self.availability(cls)
        if not 0 < a < 1:
            return None
        return first_staged - 1 + math.ceil(math.log(1 - SURE) / math.log(1 - a))

    # -- what a round shows ---------------------------------------------------
    def no_roll(self, seen: Seen) -> bool:
        if self.kind == WHEEL or seen.flat is None:
            return False
        return bool(self.game.is_no_roll(tuple(seen.flat), self.rules))

    def wins(self, bet: str, seen: Seen) -> bool:
        """Does ``bet`` win on this (flat) throw, by the paytable (Lucky or not)?"""
        outcome = seen.pocket if self.kind == WHEEL else tuple(sorted(seen.dice or ()))
        key = (bet, outcome)
        if key not in self._wins:
            try:
                if self.kind == WHEEL:
                    odds, _ = self.game.decide(bet, outcome)
                else:
                    odds, _ = self.game.decide(bet, outcome, self.rules)
                self._wins[key] = odds is not None
            except (RulesError, KeyError, ValueError, TypeError, IndexError):
                self._wins[key] = False      # not a bet of this game (an unlawful Lucky Number)
        return self._wins[key]

    def shown(self, throws: Sequence[Seen], lucky=(), before: Before = Before()) -> tuple[set[str], Before]:
        """The ids of the classes one round's throws show, and what it leaves for the next."""
        lucky = _lucky_pairs(lucky)
        found: set[str] = set()
        run = before.no_roll_run
        settling: Seen | None = None
        rolls: list[tuple[int, int]] = []
        for seen in throws:
            if self.no_roll(seen):
                run += 1
                found.update(f"{NO_ROLL}:{n}" for n in range(1, run + 1))
                settling = None
                continue
            run = 0
            settling = seen
            if self.kind == CRAPS and seen.dice is not None:
                rolls.append((seen.dice[0], seen.dice[1]))
        won = []
        if settling is not None and self.kind in (DICE3, WHEEL):
            won = [i for i, (bet, _) in enumerate(lucky) if self.wins(bet, settling)]
            lucky_won = {lucky[i][0] for i in won}
            # A class of base odds whose bet won as a Lucky Number was paid (g)(3)'s odds, not (f)'s.
            found.update(cid for cid in self._throw_classes(settling, lucky)
                         if not lucky_won.intersection(self._base_bets.get(cid, ())))
            found.update(f"{LUCKY_WIN}:{i + 1}" for i in won)
            fresh = [i for i in won if lucky[i] not in before.lucky]
            if fresh and before.no_roll_run > 0:
                found.add(f"{LUCKY_WIN_AFTER}:{NO_ROLL}")
            if fresh and before.lucky_won:
                found.add(f"{LUCKY_WIN_AFTER}:{LUCKY_WIN}")
        if rolls:
            found.update(self._sequence_classes(rolls))
        ended_not_flat = run if (self.voids or settling is None) and throws else 0
        return found, Before(no_roll_run=ended_not_flat, lucky_won=bool(won), lucky=lucky)

    def _throw_classes(self, seen: Seen, lucky) -> Iterable[str]:
        if self.kind == WHEEL:
            yield f"{POCKET}:{seen.pocket}"
            if any(bet == f"straight:{seen.pocket}" for bet, _ in lucky):
                yield f"{LUCKY_POCKET}:{seen.pocket}"
            return
        if seen.dice is None:       # a dice game's SENSOR always carries the faces (its required field)
            raise TypeError("a flat throw of dice read without its faces")
        dice = tuple(sorted(seen.dice))
        if len(set(dice)) == 1:
            yield f"triple:{dice[0]}"
        yield "faces:" + "-".join(map(str, dice))
        for face in set(dice):
            if dice.count(face) == 2:
                yield f"{DOUBLE}:{face}"
        yield f"{TOTAL}:{sum(dice)}"

    def _sequence_classes(self, rolls: list[tuple[int, int]]) -> Iterable[str]:
        if sum(rolls[0]) == 7:
            yield f"{SEQUENCE}:come-out-seven"
        bets = [Wager(bet, bet, 1) for bet in self.game.bet_names(self.rules)]
        try:
            settled = {s.wager_id: s for s in self.game.settle(
                Round(self.game_name, rolls=tuple(rolls), paytable=getattr(self.rules, "paytable", None)),
                bets, self.rules)}
        except RulesError:
            return
        won = {bet for bet, s in settled.items() if not s.open and s.returned > 0}
        lost = {bet for bet, s in settled.items() if not s.open and s.returned == 0}
        if won == set(settled):
            yield f"{SEQUENCE}:all-win"
        if "little-ones" in won and "big-ones" in lost:
            yield f"{SEQUENCE}:little-only"
        if "big-ones" in won and "little-ones" in lost:
            yield f"{SEQUENCE}:big-only"

    # -- what a staged round could show ----------------------------------------
    def seen_of(self, stage: Sequence[Throw]) -> tuple[Seen, ...]:
        """What the plant would read for a staged round (a cocked die: die
        ``pick`` not flat, its faces irrelevant)."""
        count = self.descriptor.dice_count
        out = []
        for throw in stage:
            if throw.pocket is not None:
                out.append(Seen(pocket=throw.pocket))
            elif throw.cocked:
                flat = tuple(i != throw.pick % count for i in range(count))
                out.append(Seen(dice=tuple(range(1, count + 1)), flat=flat))
            elif throw.faces is None:       # ``stages`` gives every flat throw its faces
                raise TypeError("a staged flat throw without its faces")
            else:
                out.append(Seen(dice=tuple(throw.faces), flat=(True,) * count))
        return tuple(out)

    def stages(self, lucky, rng) -> list[tuple[Throw, ...]]:
        """Every staged round this game offers the plan, choices drawn from ``rng``."""
        if self.kind == WHEEL:
            return [(Throw(pocket=n),) for n in range(37)]
        cocked = [Throw(cocked=True, pick=p) for p in range(COCKED_PICKS)]
        if self.kind == CRAPS:
            return _sequences(rng, cocked[rng.randrange(COCKED_PICKS)])
        flat = [Throw(faces=m) for m in MULTISETS]
        if self.voids:        # a no roll ends the round (Lightning Dice): one throw a round
            return [(t,) for t in flat + cocked]
        # the dice are thrown again after a no roll (Sic Bo): one or two no rolls, then an outcome
        return ([(t,) for t in flat] + [(c, t) for c in cocked for t in flat]
                + [(c, cocked[(c.pick + 1) % COCKED_PICKS], t) for c in cocked for t in flat])


def _pair(total: int, rng) -> tuple[int, int]:
    """Two dice making ``total``, drawn from ``rng``."""
    options = [(a, total - a) for a in range(1, 7) if 1 <= total - a <= 6 and a <= total - a]
    return rng.choice(options)


LITTLE = (2, 3, 4, 5, 6)
BIG = (8, 9, 10, 11, 12)


def _sequences(rng, cocked: Throw) -> list[tuple[Throw, ...]]:
    """Dice-Ology: a sequence of rolls for each way its side bets can end,
    each with and without a cocked throw among them; numbers in an order, and
    dice for each, drawn from ``rng``."""
    def rolls(numbers) -> list[Throw]:
        numbers = list(numbers)
        rng.shuffle(numbers)
        return [Throw(faces=tuple(sorted(_pair(n, rng)))) for n in numbers + [7]]

    partial = lambda numbers: rng.sample(numbers, rng.randrange(0, 4))     # noqa: E731  (not every one)
    plain = [rolls(LITTLE + BIG), rolls(LITTLE + tuple(partial(BIG))), rolls(BIG + tuple(partial(LITTLE))), rolls(())]
    staged = [tuple(s) for s in plain]
    for sequence in plain:
        at = rng.randrange(0, len(sequence))          # a cocked throw before any roll but after none of the seven
        staged.append(tuple(sequence[:at] + [cocked] + sequence[at:]))
    return staged


@dataclass
class Coverage:
    """A session's account of its outcome classes: the round that first
    showed each, and why each other one was not shown."""
    classes: tuple[OutcomeClass, ...]
    covered: dict[str, int] = field(default_factory=dict)      # class id -> the first round that showed it
    rounds: int = 0
    needed: dict[str, int | None] = field(default_factory=dict)   # class id -> rounds needed (a class of the draw)
    after: dict[str, str] = field(default_factory=dict)        # class id -> what must come the round before
    staged: bool = True                                        # the session staged outcomes (not --no-probes)
    unstaged: dict[str, str] = field(default_factory=dict)     # class id -> why the plan could not stage it

    def missing(self) -> list[tuple[OutcomeClass, str]]:
        out = []
        for cls in self.classes:
            if cls.id in self.covered:
                continue
            needed = self.needed.get(cls.id)
            if cls.id in self.unstaged:
                why = self.unstaged[cls.id]
            elif not self.staged:
                why = "the session staged no outcomes (--no-probes); fair throws did not show it"
            elif needed is not None:
                why = (f"the controller's Lucky draw did not allow it in {self.rounds} rounds; "
                       f"{needed} rounds show it with 99% chance")
            elif cls.id in self.after:
                why = f"needs {self.after[cls.id]} in the round before it"
            else:
                why = f"{self.rounds} rounds were too few to stage every class"
            out.append((cls, why))
        return out

    def to_json(self) -> dict:
        missing = self.missing()
        return {"classes": len(self.classes), "rounds": self.rounds,
                "covered": [{"class": c.id, "title": c.title, "round": self.covered[c.id]}
                            for c in self.classes if c.id in self.covered],
                "not_covered": [{"class": c.id, "title": c.title, "why": why,
                                 "rounds_needed": self.needed.get(c.id), "could_not_stage": c.id in self.unstaged}
                                for c, why in missing],
                "could_not_stage": [c.id for c, _ in missing if c.id in self.unstaged]}

    def line(self) -> str:
        """One line for a summary: how many classes, and those not covered."""
        missing = self.missing()
        text = f"outcome classes covered: {len(self.classes) - len(missing)} of {len(self.classes)}"
        if missing:
            shown = ", ".join(c.id for c, _ in missing[:8]) + (", ..." if len(missing) > 8 else "")
            text += f"; not covered: {shown}"
        # Said apart, each with why: these were not left for want of rounds; staging them failed.
        grouped: dict[str, list[str]] = {}
        for c, why in missing:
            if c.id in self.unstaged:
                grouped.setdefault(why, []).append(c.id)
        if grouped:
            text += "; could not stage: " + "; ".join(f"{', '.join(ids)} ({why})" for why, ids in grouped.items())
        return text


def coverage(game: str, rules, rounds: Iterable[tuple[int, Sequence, Sequence]],
             judge: ClassCoverage | None = None, *, staged: bool = True) -> Coverage:
    """The account of a session: ``rounds`` are (round number, its readings,
    its Lucky Numbers) in the order played (a void round is left out);
    ``staged``: whether the session staged outcomes at all."""
    judge = judge or ClassCoverage(game, rules)
    account = Coverage(judge.classes, staged=staged)
    before = Before()
    for number, readings, lucky in rounds:
        shown, before = judge.shown([r if isinstance(r, Seen) else Seen.of(r) for r in readings], lucky, before)
        for cls in judge.classes:
            if cls.id in shown:
                account.covered.setdefault(cls.id, number)
        account.rounds += 1
    for cls in judge.classes:
        account.needed[cls.id] = judge.rounds_needed(cls)
        if cls.kind == LUCKY_WIN_AFTER:
            account.after[cls.id] = "a no roll" if cls.value == NO_ROLL else "a Lucky win"
        elif cls.kind == NO_ROLL and isinstance(cls.value, int) and cls.value > 1:
            account.after[cls.id] = "a no roll"
    return account


__all__ = ["Before", "ClassCoverage", "Coverage", "MULTISETS", "Seen", "coverage"]
