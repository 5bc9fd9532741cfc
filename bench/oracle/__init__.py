"""The oracle: the independent judge of every frame between
the bench and a game controller.

    oracle = Oracle(game, rules, response_timeout=3.0)
    for event in frames:                      # the link's FrameEvents
        message = judged_message(event)       # the one feed (bench.oracle.feed): live and replay alike
        if message is not None:
            oracle.observe(event.direction, message, event.mono)     # -> [Violation, ...]
    oracle.finish(last_mono)                  # overdue replies; a round in flight -> incomplete_rounds
    oracle.violations, oracle.rounds, oracle.incomplete_rounds, oracle.voided_rounds

Checks (clauses for Lightning Dice; each game's descriptor in bench/rules has its own):
betting open until the bench's CLOSE: a wager placed later and accepted, or a
lawful one placed in time and refused, (d)(1); an unlawful bet accepted, the
rules' clause; Lucky Numbers after no more bets and before the drop (g)(1),
their count (d)(2) and odds (g)(3) by ``check_lucky``, present before the drop
(d)(2); the drop only on the dealer's TRIGGER after NOMORE (d)(3); RESULT as
the plant's SENSOR showed (d)(4); NOROLL exactly when a die was not flat, with
every wager returned (d)(5); every SETTLE recomputed with ``bench.rules`` (a
wrong amount cites the clause the rules give for that wager), every accepted
wager settled once, none unknown, SETTLED totals, settlement before CLEARED
(d)(6); Dice-Ology bets resolved over the rolls made since each was placed
(a bet kept open after a seven: 20:18:33:14(1)(b)); replies within
``response_timeout``. A RESET or HELLO mid-round voids the round (listed in
``voided_rounds``, not a violation). Odd frames never raise.
"""

from bench.oracle.clauses import PHASE_CLAUSES, PROTOCOL, phase_clause
from bench.oracle.judge import Oracle
from bench.oracle.records import RoundSummary, Violation

__all__ = ["Oracle", "PHASE_CLAUSES", "PROTOCOL", "RoundSummary", "Violation", "phase_clause"]
