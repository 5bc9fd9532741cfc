"""The payouts an edge is measured against, each with the clause that sets it.

The twin never imports ``bench`` (where the full rules live), so the few
payouts a predicting player would use are repeated here, "N to 1" as odds N.

Wheel, a straight up (one number):

- ``lightning``: 29 to 1, a Lightning Roulette straight up whose number is
  not a Lucky Number (58 Pa. Code 617c.3(f)).
- ``lightning-lucky``: the same with the Lucky Numbers. The random number
  generator picks 1 to 5 Lucky Numbers (617c.3(d)) *after all wagers have been
  placed*, each with odds from the list of 617c.3(g), paid when the ball lands
  on it (617c.3(e)). The draw does not depend on the ball, so for a player
  who must bet before it a straight up is worth its expected odds:
  ``29 + (mean count / 37) * (mean Lucky odds - 29)``. The regulation sets
  the ranges, not the weights; the defaults (2.7 Lucky Numbers, mean odds
  110.25) are those of the bench's default rules submission
  (fixtures/submissions/lightning-roulette.yaml), which returns 97.10%.
- ``classic``: 35 to 1, the standard single-zero straight up (617a.4, whose
  text is not among the seed regulations).

Tower, the Lightning Dice base paytable (625b.2(f)) for the bets a player who
sees the loaded faces would weigh: low and high (625b.2(e)(1),(2): the small
and big bets of 625a.3(6),(7), totals 4-10 and 11-17, losing on any triple,
as the bench's default rules read them), any triple (625b.2(e)(4)) and the
sixteen totals (625b.2(e)(5)).
"""

from __future__ import annotations

from dataclasses import dataclass

POCKETS = 37                                   # 617c.3(a): a single-zero wheel

LIGHTNING_STRAIGHT = 29                        # 617c.3(f)
CLASSIC_STRAIGHT = 35                          # 617a.4
LUCKY_COUNT_RANGE = (1, 5)                     # 617c.3(d)
LUCKY_ODDS = (499, 399, 349, 299, 249, 199, 149, 99, 49)   # 617c.3(g)(1)-(9)
DEFAULT_LUCKY_MEAN_COUNT = 2.7                 # the bench's default submission
DEFAULT_LUCKY_MEAN_ODDS = 110.25


@dataclass(frozen=True)
class StraightPayout:
    """A straight up paying ``odds`` to 1 (a mean when Lucky Numbers may raise it)."""
    key: str
    odds: float
    clause: str
    label: str

    @property
    def house_edge(self) -> float:
        """Expected return of a unit straight up on a fair wheel (negative: the house's edge)."""
        return (1 + self.odds) / POCKETS - 1


def lucky_mean_odds(mean_count: float = DEFAULT_LUCKY_MEAN_COUNT,
                    mean_lucky_odds: float = DEFAULT_LUCKY_MEAN_ODDS) -> float:
    """Expected odds of a straight up bet before the Lucky Numbers are drawn (617c.3(d)-(g))."""
    low, high = LUCKY_COUNT_RANGE
    if not low <= mean_count <= high:
        raise ValueError(f"the mean count of Lucky Numbers must be within {low}-{high} (617c.3(d)), "
                         f"got {mean_count}")
    if not min(LUCKY_ODDS) <= mean_lucky_odds <= max(LUCKY_ODDS):
        raise ValueError(f"the mean Lucky odds must be within {min(LUCKY_ODDS)}-{max(LUCKY_ODDS)} "
                         f"(617c.3(g)), got {mean_lucky_odds}")
    share = mean_count / POCKETS
    return (1 - share) * LIGHTNING_STRAIGHT + share * mean_lucky_odds


def straight_payouts(mean_count: float = DEFAULT_LUCKY_MEAN_COUNT,
                     mean_lucky_odds: float = DEFAULT_LUCKY_MEAN_ODDS) -> dict[str, StraightPayout]:
    """The three straight-up tables, by key."""
    return {p.key: p for p in (
        StraightPayout("lightning", LIGHTNING_STRAIGHT, "617c.3(f)", "Lightning, 29 to 1"),
        StraightPayout("lightning-lucky", lucky_mean_odds(mean_count, mean_lucky_odds), "617c.3(d)-(g)",
                       "Lightning with Lucky Numbers"),
        StraightPayout("classic", CLASSIC_STRAIGHT, "617a.4", "classic, 35 to 1"),
    )}


# Lightning Dice base paytable, 625b.2(f): "N to 1".
TOWER_TOTAL_ODDS = {3: 149, 4: 49, 5: 24, 6: 14, 7: 9, 8: 6, 9: 5, 10: 4,
                    11: 4, 12: 5, 13: 6, 14: 9, 15: 14, 16: 24, 17: 49, 18: 149}
TOWER_ANY_TRIPLE_ODDS = 24
TOWER_LOW_HIGH_ODDS = 1
TOWER_CLAUSES = {"low": "625b.2(e)(1), (f)", "high": "625b.2(e)(2), (f)",
                 "any-triple": "625b.2(e)(4), (f)", "total": "625b.2(e)(5), (f)"}


def tower_bet_wins(bet: str, faces: tuple[int, int, int]) -> bool:
    """Whether ``bet`` wins on three resting faces."""
    total = sum(faces)
    triple = faces[0] == faces[1] == faces[2]
    if bet == "low":
        return 4 <= total <= 10 and not triple
    if bet == "high":
        return 11 <= total <= 17 and not triple
    if bet == "any-triple":
        return triple
    return total == int(bet.split(":")[1])


def tower_odds(bet: str) -> int:
    if bet in ("low", "high"):
        return TOWER_LOW_HIGH_ODDS
    if bet == "any-triple":
        return TOWER_ANY_TRIPLE_ODDS
    return TOWER_TOTAL_ODDS[int(bet.split(":")[1])]


TOWER_BETS = ("low", "high", "any-triple") + tuple(f"total:{t}" for t in range(3, 19))
