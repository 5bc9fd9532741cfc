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


def rtp_rows(rules: Rules) -> list[RtpRow]:
    game = get_game(rules.game)
    rows = []
    for bet in game.bet_names(rules):
        rtp = game.rtp(bet, rules)
        rows.append(RtpRow(bet=bet, win_probability=game.win_probability(bet, rules), rtp=rtp,
                           house_edge=1 - rtp, clause=game.odds_clause(bet, rules)))
    return rows
