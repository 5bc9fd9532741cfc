"""Named misbehaviours: deliberate breaches of the regulations, each a mutant
the oracle and the Gherkin suite must catch, selected by name with
``bench emulate --misbehave NAME``.

The compliant controller asks its ``Policy`` at each point where a controller
could go wrong; a misbehaviour is a Policy subclass that answers one of those
questions unlawfully. Adding one is adding a class with ``@misbehaviour``.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Iterable

from bench.errors import RulesError
from bench.rules.base import Lucky, Round, Wager


class Policy:
    """The compliant controller's answers."""

    name = "compliant"
    games: frozenset[str] = frozenset()
    clause = ""
    summary = "follows the regulations"

    def lucky_before_close(self) -> bool:
        """Reveal the Lucky Numbers with betting still open?"""
        return False

    def accept_late_wager(self) -> bool:
        """Accept a wager after no more bets?"""
        return False

    def clear_before_settle(self) -> bool:
        """Announce the dice cleared before the wagers are settled?"""
        return False

    def draw_lucky(self, ctrl, rng: random.Random) -> tuple[Lucky, ...]:
        return tuple(ctrl.game.draw_lucky(ctrl.rules, rng))

    def settle(self, ctrl, round_: Round, wagers: list[Wager]) -> dict[str, int]:
        """Every wager's ``returned`` (minor units, stake included)."""
        return {s.wager_id: s.returned for s in ctrl.game.settle(round_, wagers, ctrl.rules)}

    def craps_counting_from(self, ctrl, wager: Wager, start: int, rolls: list) -> int:
        """Dice-Ology: the index of the first roll that counts for this wager."""
        return start


MISBEHAVIOURS: dict[str, type[Policy]] = {}


def misbehaviour(cls: type[Policy]) -> type[Policy]:
    MISBEHAVIOURS[cls.name] = cls
    return cls


def policy_for(name: str | None, game: str, paytable: str | None) -> Policy:
    """The policy called ``name`` (None: compliant); raises RulesError if the
    name is unknown or does not apply to ``game``."""
    if not name:
        return Policy()
    try:
        cls = MISBEHAVIOURS[name]
    except KeyError:
        raise RulesError(f"unknown misbehaviour {name!r}; known: {', '.join(sorted(MISBEHAVIOURS))}",
                         field="--misbehave") from None
    from bench.rules import describe
    if describe(game).built_in not in cls.games:    # a game file's variant: its base game's misbehaviours
        raise RulesError(f"misbehaviour {name!r} applies to {', '.join(sorted(cls.games))}, not {game}",
                         field="--misbehave", clause=cls.clause)
    if name == OneOfAKindTwelveToOne.name and str(paytable).upper() != "A":
        raise RulesError(f"misbehaviour {name!r} needs Sic Bo paytable A (B pays 12 to 1 lawfully), "
                         f"the rules say {paytable!r}", field="--misbehave", clause=cls.clause)
    return cls()


def settle_with_lucky(ctrl, round_: Round, wagers: list[Wager], lawful: tuple[Lucky, ...]) -> dict[str, int]:
    """Settle as a controller that trusts its announced ``round_.lucky``
    blindly would: the rules settle the round with the ``lawful`` draw it
    started from, then every winning wager on an announced Lucky Number is
    paid at the announced odds, whatever they are."""
    base = {s.wager_id: s.returned
            for s in ctrl.game.settle(dataclasses.replace(round_, lucky=lawful), wagers, ctrl.rules)}
    if round_.no_roll:
        return base
    pays = {x.bet: x.pays for x in round_.lucky}
    return {w.id: (w.stake * (pays[w.bet] + 1) if base[w.id] > 0 and w.bet in pays else base[w.id])
            for w in wagers}


def _unlawful_odds(ctrl, lucky: tuple[Lucky, ...]) -> tuple[Lucky, ...]:
    """The first Lucky Number's odds raised to the smallest value the rules reject."""
    first = lucky[0]
    for pays in range(first.pays + 1, first.pays + 2000):
        candidate = (Lucky(first.bet, pays),) + lucky[1:]
        try:
            ctrl.game.check_lucky(candidate, ctrl.rules)
        except RulesError:
            return candidate
    raise AssertionError(f"no unlawful odds found above {first.pays} for {first.bet}")


def _more_lucky(ctrl, lawful, rng: random.Random, count: int) -> tuple[Lucky, ...]:
    """The lawful draw topped up to ``count`` Lucky Numbers on distinct bets,
    each extra one drawn lawfully."""
    chosen: dict[str, Lucky] = {x.bet: x for x in lawful}
    for _ in range(1000):
        for x in ctrl.game.draw_lucky(ctrl.rules, rng):
            chosen.setdefault(x.bet, x)
        if len(chosen) >= count:
            return tuple(chosen.values())[:count]
    raise AssertionError(f"could not draw {count} distinct Lucky Numbers")


class _TrustsItsLucky(Policy):
    """Announces an unlawful set of Lucky Numbers made from a lawful draw, and pays it."""

    lawful: tuple[Lucky, ...] = ()

    def draw_lucky(self, ctrl, rng):
        self.lawful = super().draw_lucky(ctrl, rng)
        return self.unlawful(ctrl, self.lawful, rng)

    def unlawful(self, ctrl, lawful, rng) -> tuple[Lucky, ...]:
        raise NotImplementedError

    def settle(self, ctrl, round_, wagers):
        return settle_with_lucky(ctrl, round_, wagers, self.lawful)


@misbehaviour
class FiveLuckyNumbers(_TrustsItsLucky):
    name = "five-lucky-numbers"
    games = frozenset({"lightning-dice"})
    clause = "625b.2(d)(2)"
    summary = "reveals five Lucky Numbers (the regulation allows two to four)"

    def unlawful(self, ctrl, lawful, rng):
        return _more_lucky(ctrl, lawful, rng, 5)


@misbehaviour
class LuckyOddsOutOfRange(_TrustsItsLucky):
    name = "lucky-odds-out-of-range"
    games = frozenset({"lightning-dice"})
    clause = "625b.2(g)(3)"
    summary = "gives the first Lucky Number enhanced odds just above its range, and pays them"

    def unlawful(self, ctrl, lawful, rng):
        return _unlawful_odds(ctrl, lawful)


@misbehaviour
class PayOnNoRoll(Policy):
    name = "pay-on-no-roll"
    games = frozenset({"lightning-dice"})
    clause = "625b.2(d)(5)"
    summary = "on a no roll, settles on the faces showing instead of returning every wager"

    def settle(self, ctrl, round_, wagers):
        return super().settle(ctrl, dataclasses.replace(round_, no_roll=False), wagers)


@misbehaviour
class ClearBeforeSettle(Policy):
    name = "clear-before-settle"
    games = frozenset({"lightning-dice"})
    clause = "625b.2(d)(6)"
    summary = "clears the dice (CLEARED) before settling the wagers"

    def clear_before_settle(self):
        return True


@misbehaviour
class LuckyBeforeNoMoreBets(Policy):
    name = "lucky-before-no-more-bets"
    games = frozenset({"lightning-dice"})
    clause = "625b.2(g)(1)"
    summary = "reveals the Lucky Numbers as betting opens, before no more bets"

    def lucky_before_close(self):
        return True


@misbehaviour
class StraightUpThirtyFiveToOne(Policy):
    name = "straight-up-35-to-1"
    games = frozenset({"lightning-roulette"})
    clause = "617c.3(f)"
    summary = "pays a winning straight up that is not a Lucky Number 35 to 1 instead of 29 to 1"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        lucky = {x.bet for x in round_.lucky}
        for w in wagers:
            if w.bet == f"straight:{round_.pocket}" and w.bet not in lucky:
                returned[w.id] = w.stake * 36
        return returned


@misbehaviour
class SixLuckyNumbers(_TrustsItsLucky):
    name = "six-lucky-numbers"
    games = frozenset({"lightning-roulette"})
    clause = "617c.3(d)"
    summary = "reveals six Lucky Numbers (the regulation allows one to five)"

    def unlawful(self, ctrl, lawful, rng):
        return _more_lucky(ctrl, lawful, rng, 6)


@misbehaviour
class LuckyPayoutNotListed(_TrustsItsLucky):
    name = "lucky-payout-not-listed"
    games = frozenset({"lightning-roulette"})
    clause = "617c.3(g)"
    summary = "gives the first Lucky Number a payout that 617c.3(g) does not list, and pays it"

    def unlawful(self, ctrl, lawful, rng):
        return _unlawful_odds(ctrl, lawful)


@misbehaviour
class SmallWinsOnTriple(Policy):
    name = "small-wins-on-triple"
    games = frozenset({"sic-bo"})
    clause = "625a.3(6)"
    summary = "pays a small bet 1 to 1 on a triple totalling 4 to 10 (2-2-2, 3-3-3), which loses"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        dice = round_.dice or ()
        if len(set(dice)) == 1 and 4 <= sum(dice) <= 10:
            for w in wagers:
                if w.bet == "small":
                    returned[w.id] = w.stake * 2
        return returned


@misbehaviour
class OneOfAKindTwelveToOne(Policy):
    name = "one-of-a-kind-12-to-1"
    games = frozenset({"sic-bo"})
    clause = "625a.6(b)(3)"
    summary = "with paytable A, pays a one of a kind 12 to 1 (paytable B's odds) on three matching dice instead of 3 to 1"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        dice = round_.dice or ()
        if len(set(dice)) == 1:
            for w in wagers:
                if w.bet == f"single:{dice[0]}":
                    returned[w.id] = w.stake * 13
        return returned


@misbehaviour
class LittleOnesSurviveSeven(Policy):
    name = "little-ones-survive-seven"
    games = frozenset({"dice-ology"})
    clause = "20:18:33:14(1)(b)"
    summary = "keeps a Little Ones bet alive after the first seven instead of losing it"

    def craps_counting_from(self, ctrl, wager, start, rolls):
        if wager.bet == "little-ones" and start == 0:
            sevens = [i for i, roll in enumerate(rolls) if sum(roll) == 7]
            if sevens:
                return sevens[0] + 1   # forget everything up to and including the first seven
        return start


@misbehaviour
class AcceptLateWager(Policy):
    name = "accept-late-wager"
    games = frozenset({"lightning-dice", "sic-bo", "lightning-roulette", "dice-ology"})
    clause = "625b.2(d)(1)"
    summary = ("accepts (and settles) a wager placed after no more bets: 625b.2(d)(1), 625a.5(c), "
               "617c.3(c), 20:18:33:14(1)(d)")

    def accept_late_wager(self):
        return True
