"""Which clause orders each phase of a round, per game: what the oracle cites
when a controller does the right thing at the wrong time.

The regulations number the phases of Lightning Dice one by one (625b.2(d)(1)-(6),
(g)(1)); the other games' texts are less complete, so each entry below says
where it comes from. Amounts are never cited from here: a wrong payout cites
the clause ``bench.rules`` gives for that wager.
"""

from __future__ import annotations

from types import MappingProxyType

# Phase names the oracle uses:
#   betting      wagers only while betting is open; refusing a lawful one is a finding too
#   lucky        when the Lucky Numbers may be revealed
#   lucky_count  how many must be revealed (missing Lucky Numbers)
#   trigger      the drop / spin / throw only on the dealer's trigger, after no more bets
#   result       the outcome announced is the one the plant showed
#   no_roll      a no roll called exactly when a die did not land flat
#   settlement   every wager settled once, before the table is cleared
#   deadline     a reply the bench waited for too long (not a regulation: docs/protocol.md)
PROTOCOL = "protocol"

PHASE_CLAUSES = MappingProxyType({
    "lightning-dice": MappingProxyType({
        "betting": "625b.2(d)(1)",      # wagers "prior to the time allotted ... having expired"
        "lucky": "625b.2(g)(1)",        # after "no more bets", before the winning wager is established
        "lucky_count": "625b.2(d)(2)",  # the RNG "shall be activated to reveal between two and four"
        "trigger": "625b.2(d)(3)",      # "The dealer shall trigger the release of the dice"
        "result": "625b.2(d)(4)",       # the dice at rest reveal the outcome
        "no_roll": "625b.2(d)(5)",      # dice not flat: "no roll", every wager returned
        "settlement": "625b.2(d)(6)",   # settled before the dice are removed from the tray
    }),
    "sic-bo": MappingProxyType({
        # § 625a.5 (procedures for opening and dealing the game) is cited by 625b.2(g)(1)
        # for "no more bets" in (c); its text is not among the seed regulations.
        "betting": "625a.5(c)",
        "trigger": "625a.5",
        "result": "625a.5",
        "no_roll": "625a.5",            # the shaker's dice must show an outcome; otherwise shaken again
        "settlement": "625a.5",
    }),
    "lightning-roulette": MappingProxyType({
        "betting": "617c.3(c)",         # straight wagers "before the croupier calls no more bets"
        "lucky": "617c.3(d)",           # "After all wagers have been placed, the RNG shall be initiated"
        "lucky_count": "617c.3(d)",     # "between 1 and 5 numbers"
        "trigger": "617a.5",            # rotation of wheel and ball, cited by 617c.3(c)
        "result": "617c.3(e)",          # where the ball "comes to rest"
        "settlement": "617c.3(e)",      # the winning straight "shall win and be paid"
    }),
    "dice-ology": MappingProxyType({
        "betting": "20:18:33:14(1)(d)",  # "A player may bet this feature at the beginning of the roll only"
        "trigger": "20:18:33:14",        # a variation of craps: the shooter throws on the dealer's call
        "result": "20:18:33:14(1)(e)",   # the dealer marks the number rolled
        "no_roll": "20:18:33:14",        # craps: a die not flat is no roll, thrown again
        "settlement": "20:18:33:14(1)(f)",  # paid (or lost) and taken down as each bet resolves
    }),
})

# The clause of a winning wager on a Lucky Number, when the oracle has to settle
# it itself because the round's Lucky Numbers as a whole were unlawful.
LUCKY_WIN_CLAUSE = MappingProxyType({"lightning-dice": "625b.2(g)(3)", "lightning-roulette": "617c.3(e)"})


def phase_clause(game: str, phase: str) -> str:
    """The clause ordering ``phase`` in ``game``; ``protocol`` when no regulation orders it."""
    return PHASE_CLAUSES.get(game, {}).get(phase, PROTOCOL)

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
