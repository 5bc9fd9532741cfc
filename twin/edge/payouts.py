"""The payouts an edge is measured against, as data, each with the clause that sets it.

The twin holds no paytable numbers: they are read through
``tablebench_io.paytables`` from the one copy the rules settle by too
(``tablebench_fixtures/paytables.yaml``), changed by the game file or the
rules submission given to ``twin edge --game``. "N to 1" is odds N.

Wheel, a straight up (one number):

- ``lightning``: a Lightning Roulette straight up whose number is not a Lucky
  Number (617c.3(f)).
- ``lightning-lucky``: the same with the Lucky Numbers. The random number
  generator picks Lucky Numbers (617c.3(d)) *after all wagers have been
  placed*, each with odds from the list of 617c.3(g), paid when the ball lands
  on it (617c.3(e)). The draw does not depend on the ball, so for a player
  who must bet before it a straight up is worth its expected odds:
  ``straight + (mean count / 37) * (mean Lucky odds - straight)``. The
  regulation sets the ranges, not the weights; the means are those of a
  rules submission (default: the bench's, fixtures/submissions/lightning-roulette.yaml).
- ``classic``: the standard single-zero straight up (617a.4, whose text is
  not among the seed regulations).

Tower, the Lightning Dice base paytable (625b.2(f)), or a game file's, for
the bets a player who sees the loaded faces would weigh: low and high
(625b.2(e)(1),(2): the small and big bets of 625a.3(6),(7), totals 4-10 and
11-17, losing on any triple, as the bench's default rules read them), any
triple (625b.2(e)(4)) and the totals (625b.2(e)(5)), those the game offers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import tablebench_fixtures

from tablebench_io import paytables
from tablebench_io.paytables import DiceGame, LuckyMeans
from twin.errors import GameFileError

POCKETS = paytables.POCKETS                   # 617c.3(a): a single-zero wheel
ROULETTE = paytables.ROULETTE_GAME
# The rules submission whose Lucky draw a wheel's straight ups are worth by default (the bench's default rules).
DEFAULT_SUBMISSION = f"submissions/{ROULETTE}"


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


def _located(value: str | Path, *kinds: str) -> str:
    """A path, or the name of a shipped game file or submission."""
    try:
        return tablebench_fixtures.resolve(str(value), *kinds)
    except ValueError as err:
        raise GameFileError(str(err)) from None


def lucky_means(submission: str | Path | None = None) -> LuckyMeans:
    """A Lightning Roulette rules submission's Lucky draw, on average (default: the bench's)."""
    path = _located(submission or DEFAULT_SUBMISSION, "submission", "game")
    return paytables.read_lucky_means(path, GameFileError)


def lucky_mean_odds(straight: int, mean_count: float, mean_lucky_odds: float) -> float:
    """Expected odds of a straight up bet before the Lucky Numbers are drawn (617c.3(d)-(g))."""
    terms = paytables.lucky_terms(ROULETTE)
    low, high = terms.count
    if not low <= mean_count <= high:
        raise ValueError(f"the mean count of Lucky Numbers must be within {low}-{high} ({terms.count_clause}), "
                         f"got {mean_count}")
    if not min(terms.pays) <= mean_lucky_odds <= max(terms.pays):
        raise ValueError(f"the mean Lucky odds must be within {min(terms.pays)}-{max(terms.pays)} "
                         f"({terms.pays_clause}), got {mean_lucky_odds}")
    share = mean_count / POCKETS
    return (1 - share) * straight + share * mean_lucky_odds


def straight_payouts(mean_count: float | None = None, mean_lucky_odds: float | None = None,
                     submission: str | Path | None = None) -> dict[str, StraightPayout]:
    """The three straight-up tables, by key; the Lucky means from ``submission``
    (default: the bench's) unless given."""
    lightning = paytables.table(ROULETTE, "lightning")
    standard = paytables.table(ROULETTE, "standard")
    straight, classic = lightning.rows["straight"], standard.rows["straight"]
    if mean_count is None or mean_lucky_odds is None:
        means = lucky_means(submission)
        mean_count = means.count if mean_count is None else mean_count
        mean_lucky_odds = means.odds if mean_lucky_odds is None else mean_lucky_odds
    terms = paytables.lucky_terms(ROULETTE)
    return {p.key: p for p in (
        StraightPayout("lightning", straight, lightning.clause, f"Lightning, {straight} to 1"),
        StraightPayout("lightning-lucky", lucky_mean_odds(straight, mean_count, mean_lucky_odds),
                       f"{terms.count_clause}-(g)", "Lightning with Lucky Numbers"),
        StraightPayout("classic", classic, standard.clause, f"classic, {classic} to 1"),
    )}


# -- the tower ---------------------------------------------------------------------

# The bets of 625b.2(e) whose winning faces the twin's player weighs, and the clause of each.
TOWER_CLAUSES = {"low": "625b.2(e)(1), (f)", "high": "625b.2(e)(2), (f)",
                 "any-triple": "625b.2(e)(4), (f)", "total": "625b.2(e)(5), (f)"}


def dice_game(game_file: str | Path | None = None) -> DiceGame:
    """The Lightning Dice paytable a tower's edge is weighed by: the base one
    (625b.2(f)), or a game file's (a path, or a shipped game by name)."""
    if game_file is None:
        return paytables.shipped_dice_game()
    game = paytables.read_dice_game(_located(game_file, "game", "submission"), GameFileError)
    for option, reading in game.options.items():
        if option in ("low_high", "totals") and reading != paytables.DICE_OPTIONS[option][0]:
            raise GameFileError(f"twin edge weighs the default reading {paytables.DICE_OPTIONS[option][0]!r}, "
                                f"not {reading!r}", file=game.source, field=f"options.{option}",
                                clause="625b.2(e)")
    return game


def tower_bets(game: DiceGame) -> tuple[str, ...]:
    """The bets the player weighs, in paytable order: low, high, any triple, the totals the game offers."""
    weighed = [bet for bet in game.base.rows if bet.partition(":")[0] in TOWER_CLAUSES]
    return tuple(b for b in weighed if game.offered is None or b in game.offered)


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


def tower_odds(game: DiceGame, bet: str) -> int:
    return game.base.rows[bet]
