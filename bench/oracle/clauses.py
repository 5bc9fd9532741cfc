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


__all__ = ["PHASE_CLAUSES", "PROTOCOL", "phase_clause"]
