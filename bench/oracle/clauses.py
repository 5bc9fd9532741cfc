"""Which clause orders each phase of a round: what the oracle cites when a
controller does the right thing at the wrong time. The clauses are each
game's data (``GameDescriptor.phase_clauses`` in ``bench/rules``, where each
entry says where it comes from); amounts are never cited from here: a wrong
payout cites the clause ``bench.rules`` gives for that wager.
"""

from __future__ import annotations

from types import MappingProxyType

from bench.errors import RulesError
from bench.rules import describe, game_names
from bench.rules.descriptor import PROTOCOL

# Every game's phase -> clause mapping, for callers that list them all.
PHASE_CLAUSES = MappingProxyType({name: describe(name).phase_clauses for name in game_names()})


def phase_clause(game: str, phase: str) -> str:
    """The clause ordering ``phase`` in ``game``; ``PROTOCOL`` when no regulation orders it."""
    try:
        return describe(game).phase_clause(phase)
    except RulesError:      # not a game of the registry: no regulation to cite
        return PROTOCOL



# The phase a message the bench waits for belongs to: a message that does not
# come (or comes out of its order, so is not there when due) is judged by the
# clause that orders that phase. A LUCKY that has not come when the bench
# would trigger the drop breaks "Lucky Numbers before the drop" (625b.2(d)(2),
# 617c.3(d)); one that comes after the result is the oracle's (g)(1) finding.
AWAITED_PHASE = MappingProxyType({
    "NOMORE": "betting", "ACCEPT": "betting", "REFUSE": "betting",
    "LUCKY": "lucky_count",
    "RELEASE": "trigger", "SPIN": "trigger", "ROLL": "trigger",
    "RESULT": "result", "NOROLL": "result",
    "SETTLE": "settlement", "SETTLED": "settlement", "CLEARED": "settlement",
})


def awaited_clause(game: str, types) -> str:
    """The clause a missing reply of one of ``types`` breaks; ``protocol`` for
    the session's own messages (HELLO, OPEN, RESET: docs/protocol.md)."""
    for type_ in types:
        phase = AWAITED_PHASE.get(type_)
        if phase is not None:
            return phase_clause(game, phase)
    return PROTOCOL


__all__ = ["AWAITED_PHASE", "PHASE_CLAUSES", "PROTOCOL", "awaited_clause", "phase_clause"]
