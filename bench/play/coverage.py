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
"""

from __future__ import annotations

import random
from typing import Sequence

from bench.rules.coverage import Before, ClassCoverage, Seen, coverage
from bench.rules.outcome_classes import LUCKY_WIN, LUCKY_WIN_AFTER, NO_ROLL, OutcomeClass, Throw

FIRST_STAGED = 2        # round 1 of a session is always ordinary play
PERISHABLE = 3.0        # worth of a class only some rounds can show
ENABLED = 0.5           # share of its worth a class has when a round makes it possible next
JITTER = 1.5            # the seeded draw added to each stage's worth: varies the order


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

    @property
    def classes(self) -> tuple[OutcomeClass, ...]:
        return self.judge.classes

    @property
    def done(self) -> bool:
        return all(c.id in self.seen for c in self.judge.classes)

    def stage(self, session_round: int, lucky: Sequence = ()) -> tuple[Throw, ...] | None:
        """The throws to stage in this round (None: an ordinary round)."""
        if session_round < FIRST_STAGED or self.done:
            return None
        rng = random.Random(f"{self.session_seed}:stage:{session_round}")
        best, best_worth = None, 0.0
        for stage in self.judge.stages(lucky, rng):
            worth = self._worth_of(stage, lucky)
            if worth <= 0:
                continue
            worth += rng.random() * JITTER
            if worth > best_worth:
                best, best_worth = stage, worth
        return best

    def _worth_of(self, stage: tuple[Throw, ...], lucky) -> float:
        worth = self._plain_worth(stage, lucky)
        if len(stage) > 1 and worth <= self._plain_worth(stage[-1:], lucky):
            return 0.0          # its throws before the last add nothing: the shorter stage will do
        return worth

    def _plain_worth(self, stage: tuple[Throw, ...], lucky) -> float:
        shown, after = self.judge.shown(self.judge.seen_of(stage), lucky, self.before)
        new = [cid for cid in shown if cid in self._worth and cid not in self.seen]
        worth = sum(self._worth[cid] for cid in new)
        for cid in self._enabled(after):
            if cid not in self.seen and cid not in new:
                worth += ENABLED * self._worth[cid]
        return worth

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
        ``Reading``s): the classes it showed, now seen."""
        seen = tuple(r if isinstance(r, Seen) else Seen.of(r) for r in readings)
        shown, self.before = self.judge.shown(seen, lucky, self.before)
        for cid in shown:
            if cid in self._worth:
                self.seen.setdefault(cid, session_round)
        self._history.append((session_round, seen, tuple(lucky)))
        return shown

    def interrupted(self) -> None:
        """A round that did not finish (failed or voided): what it showed is
        not counted, and no sequence runs across it."""
        self.before = Before()

    def account(self):
        """The session's ``bench.rules.coverage.Coverage`` as the plan saw it."""
        return coverage(self.game, self.rules, self._history, judge=self.judge)


__all__ = ["CoveragePlan", "FIRST_STAGED"]
