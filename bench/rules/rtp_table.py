"""The exact return-to-player table of a rules submission: for every bet its
chance of winning, RTP (expected amount returned per unit staked, the stake
included) and house edge (1 - RTP), all Fractions.

For the lightning games the RTP includes the submission's Lucky Number
distribution; for Lightning Dice it is the return of a round that is not a no
roll (a no roll returns the stake, 625b.2(d)(5), and so returns exactly 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from bench.rules.registry import get_game
from bench.rules.submission import Rules


@dataclass(frozen=True)
class RtpRow:
    bet: str
    win_probability: Fraction
    rtp: Fraction
    house_edge: Fraction
    clause: str


def _clause(game, bet: str, rules: Rules) -> str:
    """The clause that sets the bet's payout odds."""
    kind = bet.partition(":")[0]
    if game.name == "sic-bo":
        return "625a.6(b)" if kind == "single" else "625a.6(a)"
    if game.name == "lightning-dice":
        return "625b.2(f), (g)(3)" if rules.lucky and rules.lucky.lucky_probability(bet) else "625b.2(f)"
    if game.name == "lightning-roulette":
        return "617c.3(e)-(g)" if kind == "straight" else "617a.4"
    return game.paytable_clause


def rtp_rows(rules: Rules) -> list[RtpRow]:
    game = get_game(rules.game)
    rows = []
    for bet in game.bet_names(rules):
        rtp = game.rtp(bet, rules)
        rows.append(RtpRow(bet=bet, win_probability=game.win_probability(bet, rules), rtp=rtp,
                           house_edge=1 - rtp, clause=_clause(game, bet, rules)))
    return rows
