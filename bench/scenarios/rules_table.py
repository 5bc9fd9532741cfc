"""The game table as the Gherkin scenarios see it, settled by the rules engine.

Every "when" step goes through one ``RulesTable``: the player places wagers,
the random number generator reveals the Lucky Numbers, the dice come to rest
(or the ball, or the shooter's rolls), and the table settles.
``bench.scenarios.controller_table.ControllerTable`` has the same methods and drives a
game controller over its link instead, so the scenarios run unchanged against
the rules engine, real or emulated hardware (the ``open_table`` fixture
decides which).

Settlement goes through ``bench.rules.settle_json.settle_line``: the same JSON
line ``bench settle`` reads, so a scenario checks the path a journal records.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Iterable

from bench.errors import RulesError
from bench.rules import Lucky, Wager, get_game
from bench.rules.settle_json import settle_line
from bench.rules.submission import Rules, default_rules

# The ambiguous clauses, as the feature files word the two readings, mapped to
# the rules-submission option that selects each (docs/rules.md documents the
# options; features/*.feature carry both texts and the choice).
READINGS: dict[str, dict[str, dict[str, str]]] = {
    # 58 Pa. Code § 625b.2(e)(1),(e)(2) against the labels of (f) and (g)(3).
    "the low and high bets": {
        "the small and big bets under § 625a.3(6) and (7)": {"low_high": "small-big"},
        "Low (3—9) and High (12—18) of the paytable (f)": {"low_high": "paytable-label"},
    },
    # § 625b.2(e)(3) on a triple.
    "any double on a triple": {
        "at least two of the three dice": {"any_double_on_triple": "wins"},
        "exactly two of the three dice": {"any_double_on_triple": "loses"},
    },
    # § 625b.2(e)(5) "a total value bet under § 625a.3(4)" against (f)'s 3 and 18.
    "the total value bets": {
        "totals 3 to 18, as the paytables (f) and (g)(3) list them": {"totals": "3-18"},
        "the total value bet under § 625a.3(4), totals 4 to 17": {"totals": "4-17"},
    },
    # § 625b.2(d)(5) "all three dice fail to land flat".
    "a die that fails to land flat": {
        "any die not flat is a no roll": {"no_roll": "any-die"},
        "a no roll only when all three dice fail to land flat": {"no_roll": "all-dice"},
    },
    # § 625a.3(2) two of a kind on a triple of its number (Sic Bo).
    "two of a kind on a triple": {
        "at least two of the three dice": {"double_on_triple": "wins"},
        "exactly two of the three dice": {"double_on_triple": "loses"},
    },
}


class RulesTable:
    """One table of one game for one round at a time, its rules fixed by a
    submission (``default_rules`` unless a scenario reads a clause otherwise)."""

    def __init__(self, game: str, paytable: str | None = None, rules: Rules | None = None):
        self.game = get_game(game)
        self.rules = rules if rules is not None else default_rules(game, paytable)
        self.wagers: list[Wager] = []
        self.lucky: tuple[Lucky, ...] = ()
        self.outcome: dict[str, object] = {}
        self._settlements: dict[str, dict] | None = None

    @property
    def game_name(self) -> str:
        return self.game.name

    # -- what the layout offers ------------------------------------------------
    def offers(self) -> list[str]:
        # the rules: a reading may change the layout (625b.2(e)(5) totals)
        return list(self.game.bet_names(self.rules))

    # -- the round -------------------------------------------------------------
    def read_as(self, question: str, reading: str) -> None:
        """Select one reading of an ambiguous clause in the rules submission."""
        try:
            chosen = READINGS[question][reading]
        except KeyError:
            raise AssertionError(f"no reading {reading!r} of {question!r} is mapped to a rules option; "
                                 f"known: {READINGS.get(question)}") from None
        self.rules = dataclasses.replace(self.rules, options={**dict(self.rules.options), **chosen})

    def place(self, bet: str, stake: int) -> str:
        """Place a wager; a bet the layout does not offer raises RulesError."""
        self.game.check_bet(bet, self.rules)
        wager = Wager(f"w{len(self.wagers) + 1}", bet, stake)
        self.wagers.append(wager)
        return wager.id

    def reveal_lucky(self, lucky: Iterable[tuple[str, int]]) -> tuple[Lucky, ...]:
        """The random number generator's announcement, checked against the
        regulation before any dice fall; an unlawful one raises RulesError."""
        announced = tuple(Lucky(bet, pays) for bet, pays in lucky)
        self.game.check_lucky(announced, self.rules)
        self.lucky = announced
        return announced

    def check_announcement(self, lucky: Iterable[Lucky]) -> None:
        """The oracle's check of an announcement made elsewhere (a draw, or a
        controller's reveal); RulesError naming the clause if unlawful."""
        self.game.check_lucky(tuple(lucky), self.rules)

    def draw_lucky(self, seed: int) -> tuple[Lucky, ...]:
        """Let the random number generator draw this round's Lucky Numbers
        from the submission's distribution, seeded for reproducibility."""
        self.lucky = tuple(self.game.draw_lucky(self.rules, random.Random(seed)))
        return self.lucky

    def roll(self, dice: Iterable[int], flat: Iterable[bool] | None = None) -> None:
        """The dice come to rest showing these numbers; ``flat`` says which
        landed flat on the bottom (all of them unless given). Whether a die
        not flat makes a "no roll" is the submission's reading of
        58 Pa. Code § 625b.2(d)(5), decided by the game, not here."""
        self.outcome = {"dice": list(dice)}
        if flat is not None:
            self.outcome["flat"] = list(flat)
        self._settlements = None

    def call_no_roll(self) -> None:
        """The dealer calls "no roll" (58 Pa. Code § 625b.2(d)(5))."""
        self.outcome["no_roll"] = True
        self._settlements = None

    def spin(self, pocket: int) -> None:
        self.outcome = {"pocket": pocket}
        self._settlements = None

    def shoot(self, rolls: Iterable[tuple[int, int]]) -> None:
        """Dice-Ology: the shooter's two-dice rolls made after the bets."""
        self.outcome = {"rolls": [list(r) for r in rolls]}
        self._settlements = None

    def settle(self) -> dict[str, dict]:
        """Every wager's settlement by wager id: ``returned``, ``clause`` and,
        for Dice-Ology, ``open``. Bad input raises RulesError."""
        if self._settlements is None:
            line: dict[str, object] = {
                "game": self.game.name,
                "wagers": [{"id": w.id, "bet": w.bet, "stake": w.stake} for w in self.wagers],
                **self.outcome,
            }
            if self.rules.paytable is not None:
                line["paytable"] = self.rules.paytable
            if self.game.descriptor.lightning:
                line["lucky"] = [{"bet": n.bet, "pays": n.pays} for n in self.lucky]
            result = settle_line(line, self.rules)
            self._settlements = {s["id"]: s for s in result["settlements"]}
        return self._settlements

    def settlement_for(self, bet: str) -> tuple[Wager, dict]:
        matches = [w for w in self.wagers if w.bet == bet]
        assert len(matches) == 1, f"the scenario placed {len(matches)} wagers on {bet!r}; expected one"
        wager = matches[0]
        settlements = self.settle()
        assert wager.id in settlements, f"no settlement for wager {wager.id} on {bet!r}: {settlements}"
        return wager, settlements[wager.id]

    # -- the oracle's figures (rules engine only) --------------------------------
    def win_probability(self, bet: str):
        return self.game.win_probability(bet, self.rules)

    def rtp(self, bet: str):
        return self.game.rtp(bet, self.rules)


def refusal(action) -> RulesError | None:
    """Run ``action``; return the RulesError it raised, or None if it was accepted."""
    try:
        action()
    except RulesError as err:
        return err
    return None
