"""How the oracle follows a round from the plant's command to SETTLED: one
state machine for each way a round can progress, as the game's kind of
outcome names it (``OutcomeKind.progress``, ``bench.rules.outcome_kind``).

- ``OneThrowRounds``: one RESULT is the round's outcome and settles every
  wager (Lightning Dice, Sic Bo, Lightning Roulette).
- ``SeriesRounds``: throw after throw, each RESULT resolving the side bets it
  decides and saying how many are still open, until none is (Dice-Ology,
  S.D. 20:18:33:14). A resolved bet is owed its SETTLE before the
  controller's next command (or SETTLED), not before the bench's TRIGGER:
  the bench triggers the next roll on RESULT while the controller is still
  sending that roll's SETTLE frames.

They are apart from ``bench.oracle.judge`` so that each state machine reads
as a whole instead of as branches in four of the judge's handlers; the judge
keeps what every round shares (the round's boundaries, the betting, the
Lucky Numbers, the SETTLE frames' amounts) and asks its ``progress`` the rest.
A new kind that progresses like one of these touches ``bench/rules`` only; a
new way of progressing is a class here and its name in ``PROGRESS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bench.oracle.records import RoundState
from bench.rules.outcome_kind import ONE_THROW, SERIES

if TYPE_CHECKING:
    from bench.oracle.judge import Oracle


class OneThrowRounds:
    """One throw (one drop, shake or spin) is the round's outcome."""

    def __init__(self, oracle: Oracle):
        self.oracle = oracle

    def commanded(self, r: RoundState, frame: int) -> None:
        """The controller commanded the plant (nothing is owed before a first throw)."""

    def resulted(self, r: RoundState, m: Any, reading: Any, frame: int) -> None:
        """A RESULT, on the reading it follows: the round's one outcome, every wager settled by it."""
        oracle = self.oracle
        if r.resolved:
            oracle._flag(oracle._clause("result"), frame, "a second outcome for one round")
            return
        r.outcome = oracle.outcome.settled_outcome(reading)
        r.resolved = True
        self.judge_throw(r)

    def judge_throw(self, r: RoundState) -> None:
        """What the round's one outcome (or its void) owes every wager not yet judged."""
        oracle = self.oracle
        todo = [w for w in r.accepted.values() if w.id not in r.expected]
        if not todo:
            return
        found = oracle.recompute.one_throw(todo, **oracle.outcome.round_fields(r.outcome), no_roll=r.no_roll,
                                           lucky=r.lucky or (), lucky_lawful=r.lucky_lawful or not oracle.lightning)
        r.expected.update(found)

    def settled_unresolved(self, r: RoundState, wager_id: str, returned: int, frame: int) -> None:
        """A SETTLE for a wager whose outcome the rules have not reached."""
        oracle = self.oracle
        oracle._flag(oracle._clause("settlement"), frame, f"wager {wager_id} settled before the outcome")

    def settled_all(self, r: RoundState, frame: int) -> None:
        """The controller's SETTLED: the round's outcome must have come first."""
        if not r.resolved:
            self.oracle._flag(self.oracle._clause("settlement"), frame, "SETTLED before the round's outcome")


class SeriesRounds:
    """Numbered throws until every side bet resolves."""

    def __init__(self, oracle: Oracle):
        self.oracle = oracle

    def commanded(self, r: RoundState, frame: int) -> None:
        """The next roll commanded: every bet the rolls so far resolved must be settled by now."""
        self.kept_open(r, frame, f"before roll {len(r.rolls) + 1}")

    def resulted(self, r: RoundState, m: Any, reading: Any, frame: int) -> None:
        """A roll's RESULT: the bets it resolves, and the count of those still open."""
        oracle = self.oracle
        r.rolls.append(tuple(reading["dice"]))
        newly = []
        for w in r.accepted.values():
            if w.id in r.expected:
                continue
            settlement = oracle.recompute.over_rolls(w, r.rolls[r.counting_from[w.id]:])
            if settlement is None or not settlement.open:
                r.expected[w.id] = settlement
                newly.append(w)
        still_open = [w for w in r.accepted.values() if w.id not in r.expected]
        # Bets already reported as kept open count as open in the controller's eyes: not reported again.
        kept = [wager_id for wager_id in r.flagged if wager_id not in r.settled]
        said = m.get("open")
        if said is not None and said not in (len(still_open), len(still_open) + len(kept)):
            if said > len(still_open) and newly:
                # A count cannot say which bet is kept open: wait for the roll's
                # SETTLEs, then each unsettled bet is named with its own clause.
                r.count_claim = (frame, said, len(still_open), [w.id for w in newly])
            else:
                oracle._flag(oracle._clause("settlement"), frame, f"RESULT says {said} bet(s) still open, "
                                                                  f"the rules say {len(still_open)}")
        r.active = True

    def judge_throw(self, r: RoundState) -> None:
        """A series is judged roll by roll (``resulted``); nothing waits for a last throw."""

    def kept_open(self, r: RoundState, frame: int, when: str) -> None:
        """A bet the rules resolved but the controller has not settled."""
        oracle = self.oracle
        named = set()
        claim_frame, said, due, resolved = r.count_claim or (None, None, None, ())
        r.count_claim = None
        for wager_id, settlement in r.expected.items():
            if wager_id in r.settled or wager_id in r.flagged:
                continue
            r.flagged.add(wager_id)
            named.add(wager_id)
            outcome = "lost" if settlement and settlement.returned == 0 else "won"
            # Name the RESULT that kept it open, if its count did; else where it was noticed.
            at, why = (claim_frame, f"the RESULT keeps it open ({said} open)") if wager_id in resolved \
                else (frame, f"it is still unsettled {when}")
            oracle._flag(settlement.clause if settlement else oracle._clause("settlement"), at,
                         f"wager {wager_id} {outcome} (the rolls resolved it) but {why}")
        if claim_frame is not None:
            if not named.intersection(resolved):
                # Every resolved bet was settled after all: only the count was wrong.
                oracle._flag(oracle._clause("settlement"), claim_frame,
                             f"RESULT says {said} bet(s) still open, the rules say {due}")

    def settled_unresolved(self, r: RoundState, wager_id: str, returned: int, frame: int) -> None:
        """A SETTLE for a bet the rolls so far keep open."""
        oracle = self.oracle
        still = oracle.recompute.over_rolls(r.accepted[wager_id], r.rolls[r.counting_from[wager_id]:])
        clause = still.clause if still else oracle._clause("settlement")
        oracle._flag(clause, frame, f"wager {wager_id} settled ({returned}) while the rules keep it open")

    def settled_all(self, r: RoundState, frame: int) -> None:
        """The controller's SETTLED: every resolved bet settled, and none still open."""
        oracle = self.oracle
        self.kept_open(r, frame, "at SETTLED")
        for w in r.accepted.values():
            if w.id not in r.expected and w.id not in r.settled:
                oracle._flag(oracle._clause("settlement"), frame, f"SETTLED while wager {w.id} is still open")


RoundProgress = OneThrowRounds | SeriesRounds

# The oracle's state machine for each way of progressing a kind can name.
PROGRESS: dict[str, type[OneThrowRounds] | type[SeriesRounds]] = {ONE_THROW: OneThrowRounds, SERIES: SeriesRounds}


def judging(oracle: Oracle) -> RoundProgress:
    """The state machine that follows ``oracle``'s rounds, as its game's kind of outcome progresses."""
    return PROGRESS[oracle.outcome.progress](oracle)


__all__ = ["OneThrowRounds", "PROGRESS", "RoundProgress", "SeriesRounds", "judging"]
