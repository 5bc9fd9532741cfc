"""The oracle (issue 6, item 2): the independent judge of every frame between
the bench and a game controller. ``Oracle(game, rules).observe(direction,
message, mono)`` returns the violations each frame reveals, each naming the
round, the frame and the clause; ``finish()`` ends the stream."""

from bench.oracle.clauses import PHASE_CLAUSES, PROTOCOL, phase_clause
from bench.oracle.judge import Oracle
from bench.oracle.records import RoundSummary, Violation

__all__ = ["Oracle", "PHASE_CLAUSES", "PROTOCOL", "RoundSummary", "Violation", "phase_clause"]
