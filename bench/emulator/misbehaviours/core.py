"""The compliant controller's ``Policy``, the registry of named misbehaviours
(``@misbehaviour``), and what several families share."""

from __future__ import annotations

import dataclasses
import random
from bench.errors import RulesError
from bench.rules.base import Lucky, Round, Wager
from bench.rules import describe
from bench.rules.dice_ology import DiceOlogy
from bench.rules.lightning_dice import LightningDice
from bench.rules.lightning_roulette import STRAIGHT_ODDS, LightningRoulette
from bench.rules.sic_bo import SicBo


class Policy:
    """The compliant controller's answers."""

    name = "compliant"
    games: frozenset[str] = frozenset()
    clause = ""
    # The clauses a bench that catches it may name, per game, where they are
    # not ``clause`` alone (a mispaid win cites the clause that sets that
    # wager's amount, which depends on the bet that won).
    clauses: dict[str, tuple[str, ...]] = {}
    rare = False          # under a random mix of bets and stakes, seen in few rounds (one in ten or fewer)
    summary = "follows the regulations"
    # Found only over many rounds: by the Lucky draw's fit (bench.oracle.lucky_draw), or when the
    # controller's own draw allows the outcome it breaks on. ``rounds_needed`` says how many.
    statistical = False
    # A misbehaviour that breaks only under one paytable (the other pays what it pays
    # lawfully): the paytable it needs, and why, for the refusal when another is declared.
    paytable_needed: str | None = None
    paytable_why = ""

    @classmethod
    def rounds_needed(cls, game: str) -> int | None:
        """The session length a bench needs to find it (as its report says:
        the Lucky draw's ``needs``, a class's rounds needed); None: any."""
        return None

    @classmethod
    def expected_clauses(cls, game: str) -> tuple[str, ...]:
        """The clauses a violation of this misbehaviour is right to name in ``game``."""
        return cls.clauses.get(game) or (cls.clause,)

    def lucky_before_close(self) -> bool:
        """Reveal the Lucky Numbers with betting still open?"""
        return False

    def accept_late_wager(self) -> bool:
        """Accept a wager after no more bets?"""
        return False

    def clear_before_settle(self) -> bool:
        """Announce the dice cleared before the wagers are settled?"""
        return False

    def lucky_after_result(self) -> bool:
        """Hold the Lucky Numbers back until the outcome is known?"""
        return False

    def accept_unlawful_wager(self, reason: str) -> bool:
        """Accept a wager the table must refuse (``reason``: duplicate-id,
        bad-stake, over-limit, unknown-bet)?"""
        return False

    def refuse_lawful_stake(self, ctrl, stake: int) -> bool:
        """Refuse a stake the submission's limits allow (``bad-stake``)?"""
        return False

    def no_roll(self, ctrl, flat, lawful: bool) -> bool:
        """Call a no roll for these flat flags (``lawful``: the rules' answer)?"""
        return lawful

    def announce_no_roll(self, ctrl) -> bool:
        """Send NOROLL for a no roll it calls (before the wagers are returned, or the dice shaken again)?"""
        return True

    def draw_lucky(self, ctrl, rng: random.Random) -> tuple[Lucky, ...]:
        return tuple(ctrl.game.draw_lucky(ctrl.rules, rng))

    def settle(self, ctrl, round_: Round, wagers: list[Wager]) -> dict[str, int]:
        """Every wager's ``returned`` (minor units, stake included). A wager the
        rules cannot settle (accepted although unlawful) is kept: returned 0."""
        lawful = [w for w in wagers if is_lawful(ctrl, w)]
        returned = {w.id: 0 for w in wagers}
        returned.update({s.wager_id: s.returned for s in ctrl.game.settle(round_, lawful, ctrl.rules)})
        return returned

    def settle_one_craps(self, ctrl, round_: Round, wager: Wager) -> int | None:
        """Dice-Ology: what the wager returns after ``round_.rolls``, or None while it is open."""
        if not is_lawful(ctrl, wager):
            return 0
        (settlement,) = ctrl.game.settle(round_, [wager], ctrl.rules)
        return None if settlement.open else settlement.returned

    def settle_frames(self, ctrl, wagers: list[Wager], returned: dict[str, int]) -> list[tuple[str, int]]:
        """The SETTLE frames to send, in order: (wager id, returned)."""
        return [(w.id, returned[w.id]) for w in wagers]

    def craps_counting_from(self, ctrl, wager: Wager, start: int, rolls: list) -> int:
        """Dice-Ology: the index of the first roll that counts for this wager."""
        return start


def is_lawful(ctrl, wager: Wager) -> bool:
    if ctrl.rules.stake_problem(wager.stake) is not None:
        return False
    try:
        ctrl.game.check_bet(wager.bet, ctrl.rules)
    except RulesError:
        return False
    return True


MISBEHAVIOURS: dict[str, type[Policy]] = {}
# Misbehaviours of the Lucky RNG that only the RNG battery finds (bench rng,
# 810a.5): named like these, kept apart from the per-round mutation score
# (bench.emulator.rng_misbehaviours registers them).
BATTERY_ONLY: dict[str, type[Policy]] = {}
# Which games a misbehaviour applies to and the clauses a bench catching it
# may cite come from the games' descriptors (bench.rules) where a descriptor
# says it; a misbehaviour that breaks one regulation's own rule names that
# regulation's game through its rules class.
LIGHTNING_DICE, SIC_BO = LightningDice.name, SicBo.name
LIGHTNING_ROULETTE, DICE_OLOGY = LightningRoulette.name, DiceOlogy.name
ALL_GAMES = frozenset({LIGHTNING_DICE, SIC_BO, LIGHTNING_ROULETTE, DICE_OLOGY})
LIGHTNING = frozenset(name for name in ALL_GAMES if describe(name).lightning)


def per_game(games, clause_of) -> dict[str, tuple[str, ...]]:
    """``{game: (clause,)}`` for each of ``games``, by ``clause_of(descriptor)``."""
    return {name: (clause_of(describe(name)),) for name in sorted(games)}


# The clause that orders settlement before the table is cleared (bench.oracle.clauses).
SETTLEMENT_ORDER = per_game(ALL_GAMES, lambda d: d.phase_clause("settlement"))


def every_misbehaviour() -> dict[str, type[Policy]]:
    """Every game-level misbehaviour a command may name: the mutation score's
    and the Lucky RNG's that only the battery finds."""
    return MISBEHAVIOURS | BATTERY_ONLY


def misbehaviour(cls: type[Policy]) -> type[Policy]:
    MISBEHAVIOURS[cls.name] = cls
    return cls


def policy_for(name: str | None, game: str, paytable: str | None) -> Policy:
    """The policy called ``name`` (None: compliant); raises RulesError if the
    name is unknown or does not apply to ``game``."""
    if not name:
        return Policy()
    try:
        cls = every_misbehaviour()[name]
    except KeyError:
        raise RulesError(f"unknown misbehaviour {name!r}; known: {', '.join(sorted(every_misbehaviour()))}",
                         field="--misbehave") from None
    from bench.rules import describe
    if describe(game).built_in not in cls.games:    # a game file's variant: its base game's misbehaviours
        raise RulesError(f"misbehaviour {name!r} applies to {', '.join(sorted(cls.games))}, not {game}",
                         field="--misbehave", clause=cls.clause)
    if cls.paytable_needed and str(paytable).upper() != cls.paytable_needed:
        raise RulesError(f"misbehaviour {name!r} needs {cls.paytable_why}, "
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


def unlawful_odds(ctrl, lucky: tuple[Lucky, ...]) -> tuple[Lucky, ...]:
    """The first Lucky Number's odds raised to the smallest value the rules reject."""
    first = lucky[0]
    for pays in range(first.pays + 1, first.pays + 2000):
        candidate = (Lucky(first.bet, pays),) + lucky[1:]
        try:
            ctrl.game.check_lucky(candidate, ctrl.rules)
        except RulesError:
            return candidate
    raise AssertionError(f"no unlawful odds found above {first.pays} for {first.bet}")


def more_lucky(ctrl, lawful, rng: random.Random, count: int) -> tuple[Lucky, ...]:
    """The lawful draw topped up to ``count`` Lucky Numbers on distinct bets,
    each extra one drawn lawfully."""
    chosen: dict[str, Lucky] = {x.bet: x for x in lawful}
    for _ in range(1000):
        for x in ctrl.game.draw_lucky(ctrl.rules, rng):
            chosen.setdefault(x.bet, x)
        if len(chosen) >= count:
            return tuple(chosen.values())[:count]
    raise AssertionError(f"could not draw {count} distinct Lucky Numbers")


class TrustsItsLucky(Policy):
    """Announces an unlawful set of Lucky Numbers made from a lawful draw, and pays it."""

    lawful: tuple[Lucky, ...] = ()

    def draw_lucky(self, ctrl, rng):
        self.lawful = super().draw_lucky(ctrl, rng)
        return self.unlawful(ctrl, self.lawful, rng)

    def unlawful(self, ctrl, lawful, rng) -> tuple[Lucky, ...]:
        raise NotImplementedError

    def settle(self, ctrl, round_, wagers):
        return settle_with_lucky(ctrl, round_, wagers, self.lawful)


LUCKY_WIN = per_game(LIGHTNING, lambda d: d.lucky_win_clause)
# The clauses that set a win's amount, per game: a wrong amount on any wager cites one of them.
WIN_AMOUNT = {name: describe(name).amount_clauses for name in sorted(ALL_GAMES)}


def lucky_winners(round_: Round, wagers: list[Wager], returned: dict[str, int]) -> list[tuple[Wager, int]]:
    """The winning wagers on a Lucky Number, with the announced odds."""
    if round_.no_roll:
        return []
    pays = {x.bet: x.pays for x in round_.lucky}
    return [(w, pays[w.bet]) for w in wagers if w.bet in pays and returned.get(w.id, 0) > 0]


def base_odds(ctrl, round_: Round, wager: Wager) -> int:
    """The paytable's odds of a winning wager, as if its bet were not Lucky."""
    if round_.pocket is not None:
        return STRAIGHT_ODDS
    odds, _ = ctrl.game.decide(wager.bet, round_.dice, ctrl.rules)
    return odds
