"""The staged plan: every outcome class of the game within the session, in an
order and with choices drawn from the session seed.

A breach that shows on one outcome only (a high bet paid on 4-4-4, a second
no roll, the fourth Lucky Number listed, a Lucky zero) is found by chance
with fair throws, so from the session's second round on the bench, which
plays the plant, stages outcomes the session has not seen yet. Which classes
there are is the game's (``GameDescriptor.outcome_classes``; what shows each,
``bench.rules.coverage``); the first round is always an ordinary one.

The choice is made when the plant is asked, once the round's Lucky Numbers
are known: of the rounds the game could be staged with (``stages``), the one
worth most, where a class not yet seen is worth its weight (1, or more for
one the game marks as weighing more: zero on a wheel), one only some rounds
can show (a Lucky win at the fourth listed position, a Lucky zero, a second
no roll right after one) 3, and one a round makes possible next half as much;
a draw from the round's seeded RNG (``JITTER``) breaks ties and varies the
order, so that two sessions stage different triples, dice, pockets and Lucky
positions. Nothing depends on how far the plant's own search has got: the
same seed and the same controller give the same plan.

What a round actually showed is read back from the plant (``observe``): a
class the dice showed by chance counts as seen too.

A staged round can fail to show what it was staged for: the round does not
finish (a controller that never answers a die not flat), or the plant shows
something else (a physics plant whose sweep did not find the faces). The
classes it was staged for (those it shows first, or, staged only to make
some possible in the next round, those) are charged with the failure; such
a class is not staged again for ``BACKOFF ** k`` rounds after its k-th
failure, and after ``STAGE_TRIES`` failures not again in the session (nor a
class that needs it the round before: no second no roll without a first),
while the plan goes on with the others. Blame is kept to the guilty: a
stage never mixes a charged class with one not charged, never shows a
charged class it is not staged for, and of classes charged together it
retries the smallest group a stage can show apart (a double staged behind a
cocked die is tried alone), so that no innocent class is given up for
another's failure. What the plan could not stage, and why, is the
session's account (``Coverage.unstaged``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

from bench.play.plant import NOT_FOUND
from bench.rules.coverage import Before, ClassCoverage, Seen, coverage
from bench.rules.outcome_classes import LUCKY_WIN, LUCKY_WIN_AFTER, NO_ROLL, OutcomeClass, Throw

FIRST_STAGED = 2        # round 1 of a session is always ordinary play
PERISHABLE = 3.0        # worth of a class only some rounds can show
ENABLED = 0.5           # share of its worth a class has when a round makes it possible next
JITTER = 1.5            # the seeded draw added to each stage's worth: varies the order
STAGE_TRIES = 3         # failed stagings of one class before the plan gives it up for the session
BACKOFF = 2             # after its k-th failed staging in round r, a class waits until round r + BACKOFF ** k


class CoveragePlan:
    def __init__(self, game: str, rules, session_seed: int):
        self.game = game
        self.rules = rules
        self.session_seed = session_seed
        self.judge = ClassCoverage(game, rules)
        self.seen: dict[str, int] = {}              # class id -> session round that showed it
        self.before = Before()
        self._history: list[tuple[int, tuple[Seen, ...], tuple]] = []
        self._worth = {c.id: (PERISHABLE if self.judge.perishable(c) else c.weight) for c in self.judge.classes}
        self.failures: dict[str, list[tuple[int, str]]] = {}    # class id -> (round, what happened) per failed staging
        self._not_before: dict[str, int] = {}       # class id -> the first round it may be staged again
        self._pending: _Staged | None = None        # the round in play's stage, until the round ends
        # The classes one of which a class needs in the round before (or the throw before) it.
        self._needs = {c.id: self._needed_by(c) for c in self.judge.classes}

    def _needed_by(self, cls: OutcomeClass) -> tuple[str, ...]:
        second_no_roll = cls.kind == NO_ROLL and isinstance(cls.value, int) and cls.value > 1
        if second_no_roll or (cls.kind == LUCKY_WIN_AFTER and cls.value == NO_ROLL):
            return tuple(cid for cid in (f"{NO_ROLL}:1",) if cid in self._worth)
        if cls.kind == LUCKY_WIN_AFTER and cls.value == LUCKY_WIN:
            return tuple(c.id for c in self.judge.classes if c.kind == LUCKY_WIN)
        return ()

    @property
    def classes(self) -> tuple[OutcomeClass, ...]:
        return self.judge.classes

    def _tried_out(self, cid: str) -> bool:
        return len(self.failures.get(cid, ())) >= STAGE_TRIES

    @property
    def given_up(self) -> set[str]:
        """The classes not seen that the plan stages no more: their staging failed
        ``STAGE_TRIES`` times, or every class one of which must come before them did."""
        out = {cid for cid in self._worth if cid not in self.seen and self._tried_out(cid)}
        for cid, needs in self._needs.items():
            if cid not in self.seen and needs and all(n in out for n in needs):
                out.add(cid)
        return out

    @property
    def done(self) -> bool:
        given_up = self.given_up
        return all(c.id in self.seen or c.id in given_up for c in self.judge.classes)

    def _open(self, cid: str, session_round: int, given_up: set[str]) -> bool:
        """May a stage of ``session_round`` aim at ``cid``: not seen, not given up, not waiting?"""
        return (cid in self._worth and cid not in self.seen and cid not in given_up
                and self._not_before.get(cid, 0) <= session_round)

    def stage(self, session_round: int, lucky: Sequence = ()) -> tuple[Throw, ...] | None:
        """The throws to stage in this round (None: an ordinary round)."""
        self._pending = None
        if session_round < FIRST_STAGED or self.done:
            return None
        rng = random.Random(f"{self.session_seed}:stage:{session_round}")
        given_up = self.given_up
        candidates = []
        for stage in self.judge.stages(lucky, rng):
            aim = self._aim_of(stage, lucky, session_round, given_up)
            if aim.worth > 0:
                candidates.append((aim.worth + rng.random() * JITTER, stage, aim))
        # Of classes charged together, the smallest group a stage can show apart is retried first.
        groups = {aim.charged for _, _, aim in candidates if aim.charged}
        best, best_worth = None, 0.0
        for worth, stage, aim in candidates:
            if aim.charged and any(group < aim.charged for group in groups):
                continue
            if worth > best_worth:
                best, best_worth, self._pending = stage, worth, _Staged(session_round, aim)
        return best

    def _aim_of(self, stage: tuple[Throw, ...], lucky, session_round: int, given_up: set[str]) -> "_Aim":
        aim = self._plain_aim(stage, lucky, session_round, given_up)
        if len(stage) > 1 and aim.worth <= self._plain_aim(stage[-1:], lucky, session_round, given_up).worth:
            return _NOTHING     # its throws before the last add nothing: the shorter stage will do
        return aim

    def _plain_aim(self, stage: tuple[Throw, ...], lucky, session_round: int, given_up: set[str]) -> "_Aim":
        shown, after = self.judge.shown(self.judge.seen_of(stage), lucky, self.before)
        new = tuple(cid for cid in shown if self._open(cid, session_round, given_up))
        if any(cid in self.failures and cid not in self.seen and cid not in new for cid in shown):
            return _NOTHING     # it shows a class charged before that it may not stage now: it would fail again
        enabled = tuple(cid for cid in self._enabled(after)
                        if cid not in new and self._open(cid, session_round + 1, given_up))
        target = new or enabled
        charged = frozenset(cid for cid in target if cid in self.failures)
        if charged and len(charged) < len(target):
            return _NOTHING     # a failure again would be charged to the classes beside it not charged before
        return _Aim(sum(self._worth[cid] for cid in new) + sum(ENABLED * self._worth[cid] for cid in enabled),
                    new, enabled, charged)

    def _enabled(self, after: Before) -> list[str]:
        """The classes a round leaving ``after`` makes possible in the next one."""
        ids = []
        if after.no_roll_run:
            ids += [f"{NO_ROLL}:{after.no_roll_run + 1}", f"{LUCKY_WIN_AFTER}:{NO_ROLL}"]
        if after.lucky_won:
            ids.append(f"{LUCKY_WIN_AFTER}:{LUCKY_WIN}")
        return [cid for cid in ids if cid in self._worth]

    def observe(self, session_round: int, readings: Sequence, lucky: Sequence = ()) -> set[str]:
        """The plant's readings of a finished round (Seen, SENSOR fields or
        ``Reading``s): the classes it showed, now seen. What the round was
        staged for and did not show (or make possible next) is charged with a
        failed staging."""
        seen = tuple(r if isinstance(r, Seen) else Seen.of(r) for r in readings)
        shown, self.before = self.judge.shown(seen, lucky, self.before)
        for cid in shown:
            if cid in self._worth:
                self.seen.setdefault(cid, session_round)
        self._history.append((session_round, seen, tuple(lucky)))
        pending, self._pending = self._pending, None
        if pending is not None and pending.round == session_round:
            aim = pending.aim
            made = shown if aim.new else set(self._enabled(self.before))
            missed = [cid for cid in aim.target if cid not in made]
            if missed:
                self._charge(missed, session_round, _what_showed(readings, seen))
        return shown

    def interrupted(self) -> None:
        """A round that did not finish (failed or voided): what it showed is
        not counted, and no sequence runs across it; what it was staged for
        is charged with a failed staging."""
        self.before = Before()
        pending, self._pending = self._pending, None
        if pending is not None:
            self._charge(pending.aim.target, pending.round, "did not finish")

    def _charge(self, ids, session_round: int, what: str) -> None:
        for cid in ids:
            failed = self.failures.setdefault(cid, [])
            failed.append((session_round, what))
            self._not_before[cid] = session_round + BACKOFF ** len(failed)

    def unstaged(self) -> dict[str, str]:
        """Each class not seen that the plan tried to stage and could not, or
        gave up for want of the class it needs first: why, in words
        (``Coverage.unstaged``)."""
        out = {}
        for cid, failed in self.failures.items():
            if cid in self.seen:
                continue
            told: dict[str, list[int]] = {}
            for session_round, what in failed:
                told.setdefault(what, []).append(session_round)
            rounds = "; ".join(f"round{'s' * (len(r) > 1)} {', '.join(map(str, r))} {what}" for what, r in told.items())
            tries = f"{len(failed)} stagings failed" if len(failed) > 1 else "staging failed"
            out[cid] = (f"{tries} ({rounds}); not staged again" if self._tried_out(cid) else
                        f"{tries} ({rounds}); the session ended before it was staged again")
        given_up = self.given_up
        for cid, needs in self._needs.items():
            if cid in given_up and not self._tried_out(cid):
                out[cid] = f"needs {' or '.join(needs)} first, which could not be staged"
        return out

    def account(self):
        """The session's ``bench.rules.coverage.Coverage`` as the plan saw it."""
        account = coverage(self.game, self.rules, self._history, judge=self.judge)
        account.unstaged.update(self.unstaged())
        return account


@dataclass(frozen=True)
class _Aim:
    """What a stage aims at: its worth, the classes it shows first, those it makes possible next."""
    worth: float
    new: tuple[str, ...] = ()
    enabled: tuple[str, ...] = ()
    charged: frozenset[str] = frozenset()    # its target's classes whose staging failed before

    @property
    def target(self) -> tuple[str, ...]:
        """What a failure of the stage is charged to: the classes it shows, or
        (staged only to make them possible) those it makes possible next."""
        return self.new or self.enabled


_NOTHING = _Aim(0.0)


@dataclass(frozen=True)
class _Staged:
    """The round in play's stage and what it aims at."""
    round: int
    aim: _Aim


def _what_showed(readings: Sequence, seen: Sequence[Seen]) -> str:
    """What a round that did not show its staged classes showed, for the account: the
    plant's own words for a throw it could not stage ("...: not found in the staging sweep")."""
    for reading in readings:
        said = (getattr(reading, "detail", None) or {}).get("staged")
        if isinstance(said, str) and said.endswith(NOT_FOUND):
            return f"staged {said}"
    return "showed " + ", then ".join(_told(s) for s in seen) if seen else "showed nothing"


def _told(seen: Seen) -> str:
    if seen.pocket is not None:
        return f"pocket {seen.pocket}"
    if seen.flat is not None and not all(seen.flat):
        return "a die not flat"
    return "faces " + "-".join(map(str, sorted(seen.dice or ())))


__all__ = ["BACKOFF", "CoveragePlan", "FIRST_STAGED", "STAGE_TRIES"]
