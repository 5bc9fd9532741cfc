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

from bench.errors import RulesError
from bench.rules.base import Lucky, Round, Wager
from bench.rules import describe
from bench.rules.coverage import ClassCoverage
from bench.rules.submission import default_rules
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
        lawful = [w for w in wagers if _lawful(ctrl, w)]
        returned = {w.id: 0 for w in wagers}
        returned.update({s.wager_id: s.returned for s in ctrl.game.settle(round_, lawful, ctrl.rules)})
        return returned

    def settle_one_craps(self, ctrl, round_: Round, wager: Wager) -> int | None:
        """Dice-Ology: what the wager returns after ``round_.rolls``, or None while it is open."""
        if not _lawful(ctrl, wager):
            return 0
        (settlement,) = ctrl.game.settle(round_, [wager], ctrl.rules)
        return None if settlement.open else settlement.returned

    def settle_frames(self, ctrl, wagers: list[Wager], returned: dict[str, int]) -> list[tuple[str, int]]:
        """The SETTLE frames to send, in order: (wager id, returned)."""
        return [(w.id, returned[w.id]) for w in wagers]

    def craps_counting_from(self, ctrl, wager: Wager, start: int, rolls: list) -> int:
        """Dice-Ology: the index of the first roll that counts for this wager."""
        return start


def _lawful(ctrl, wager: Wager) -> bool:
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


def _per_game(games, clause_of) -> dict[str, tuple[str, ...]]:
    """``{game: (clause,)}`` for each of ``games``, by ``clause_of(descriptor)``."""
    return {name: (clause_of(describe(name)),) for name in sorted(games)}


# The clause that orders settlement before the table is cleared (bench.oracle.clauses).
SETTLEMENT_ORDER = _per_game(ALL_GAMES, lambda d: d.phase_clause("settlement"))


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
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(d)(2)"
    summary = "reveals five Lucky Numbers (the regulation allows two to four)"

    def unlawful(self, ctrl, lawful, rng):
        return _more_lucky(ctrl, lawful, rng, 5)


@misbehaviour
class LuckyOddsOutOfRange(_TrustsItsLucky):
    name = "lucky-odds-out-of-range"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(g)(3)"
    summary = "gives the first Lucky Number enhanced odds just above its range, and pays them"

    def unlawful(self, ctrl, lawful, rng):
        return _unlawful_odds(ctrl, lawful)


@misbehaviour
class PayOnNoRoll(Policy):
    name = "pay-on-no-roll"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(d)(5)"
    summary = "on a no roll, settles on the faces showing instead of returning every wager"

    def settle(self, ctrl, round_, wagers):
        return super().settle(ctrl, dataclasses.replace(round_, no_roll=False), wagers)


@misbehaviour
class ClearBeforeSettle(Policy):
    name = "clear-before-settle"
    games = ALL_GAMES
    clause = "625b.2(d)(6)"
    clauses = SETTLEMENT_ORDER
    summary = "clears the dice (CLEARED) before settling the wagers"

    def clear_before_settle(self):
        return True


@misbehaviour
class LuckyBeforeNoMoreBets(Policy):
    name = "lucky-before-no-more-bets"
    games = LIGHTNING
    clause = "625b.2(g)(1)"
    clauses = _per_game(LIGHTNING, lambda d: d.phase_clause("lucky"))
    summary = "reveals the Lucky Numbers as betting opens, before no more bets"

    def lucky_before_close(self):
        return True


@misbehaviour
class StraightUpThirtyFiveToOne(Policy):
    name = "straight-up-35-to-1"
    games = frozenset({LIGHTNING_ROULETTE})
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
    games = frozenset({LIGHTNING_ROULETTE})
    clause = "617c.3(d)"
    summary = "reveals six Lucky Numbers (the regulation allows one to five)"

    def unlawful(self, ctrl, lawful, rng):
        return _more_lucky(ctrl, lawful, rng, 6)


@misbehaviour
class LuckyPayoutNotListed(_TrustsItsLucky):
    name = "lucky-payout-not-listed"
    games = frozenset({LIGHTNING_ROULETTE})
    clause = "617c.3(g)"
    summary = "gives the first Lucky Number a payout that 617c.3(g) does not list, and pays it"

    def unlawful(self, ctrl, lawful, rng):
        return _unlawful_odds(ctrl, lawful)


@misbehaviour
class SmallWinsOnTriple(Policy):
    name = "small-wins-on-triple"
    games = frozenset({SIC_BO})
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
    games = frozenset({SIC_BO})
    clause = "625a.6(b)(3)(i)"      # paytable A's 3 to 1; (ii) is paytable B's 12 to 1
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
    games = frozenset({DICE_OLOGY})
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
    games = ALL_GAMES
    clause = "625b.2(d)(1)"
    clauses = _per_game(ALL_GAMES, lambda d: d.betting_clause)
    summary = ("accepts (and settles) a wager placed after no more bets: 625b.2(d)(1), 625a.5(c), "
               "617c.3(c), 20:18:33:14(1)(d)")

    def accept_late_wager(self):
        return True



# -- payouts on a Lucky Number ----------------------------------------------
# Under a random mix of bets these are rare: the round's Lucky Numbers must
# win, and a player must hold them (the bench's covering play holds every
# position; its staged plan makes a Lucky Number win at each listed position).

LUCKY_WIN = _per_game(LIGHTNING, lambda d: d.lucky_win_clause)
# The clauses that set a win's amount, per game: a wrong amount on any wager cites one of them.
WIN_AMOUNT = {name: describe(name).amount_clauses for name in sorted(ALL_GAMES)}


def _lucky_winners(round_: Round, wagers: list[Wager], returned: dict[str, int]) -> list[tuple[Wager, int]]:
    """The winning wagers on a Lucky Number, with the announced odds."""
    if round_.no_roll:
        return []
    pays = {x.bet: x.pays for x in round_.lucky}
    return [(w, pays[w.bet]) for w in wagers if w.bet in pays and returned.get(w.id, 0) > 0]


@misbehaviour
class LuckyWinOneUnitShort(Policy):
    name = "lucky-win-one-unit-short"
    games = LIGHTNING
    clause = "625b.2(g)(3)"
    clauses = LUCKY_WIN
    rare = True
    summary = "pays a winning wager on a Lucky Number one minor unit short"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        for w, _ in _lucky_winners(round_, wagers, returned):
            returned[w.id] -= 1
        return returned


@misbehaviour
class LuckyWinAtBaseOdds(Policy):
    name = "lucky-win-at-base-odds"
    games = LIGHTNING
    clause = "625b.2(g)(3)"
    clauses = LUCKY_WIN
    rare = True
    summary = "pays a winning wager on a Lucky Number at the base paytable's odds"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        for w, _ in _lucky_winners(round_, wagers, returned):
            returned[w.id] = w.stake * (_base_odds(ctrl, round_, w) + 1)
        return returned


def _base_odds(ctrl, round_: Round, wager: Wager) -> int:
    """The paytable's odds of a winning wager, as if its bet were not Lucky."""
    if round_.pocket is not None:
        return STRAIGHT_ODDS
    odds, _ = ctrl.game.decide(wager.bet, round_.dice, ctrl.rules)
    return odds


def _covers(game: str, bet: str, outcome) -> bool:
    """Does ``bet`` (another kind than the Lucky one) win with this outcome?"""
    from bench.rules.lightning_roulette import COVERED
    if bet in COVERED:      # a roulette bet: the pockets it holds (no dice bet shares a name with one)
        return not bet.startswith("straight:") and outcome in COVERED[bet]
    return bet in ("low", "high", "any-double")


@misbehaviour
class LuckyOddsOnOtherBets(Policy):
    name = "lucky-odds-on-other-bets"
    games = LIGHTNING
    clause = "625b.2(f)"
    clauses = {LIGHTNING_ROULETTE: ("617a.4",)}
    rare = True
    summary = ("pays the winning Lucky Number's enhanced odds on the other winning bets that hold it "
               "(low, high, any double; splits, streets, corners, six lines), which get base odds")

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        winners = _lucky_winners(round_, wagers, returned)
        if not winners:
            return returned
        pays = winners[0][1]
        outcome = ctrl.outcome.of_round(round_)
        for w in wagers:
            if returned[w.id] > 0 and w.bet not in {x.bet for x in round_.lucky} and _covers(ctrl.game_name, w.bet, outcome):
                returned[w.id] = w.stake * (pays + 1)
        return returned


@misbehaviour
class StaleLuckyAfterNoRoll(Policy):
    name = "stale-lucky-after-no-roll"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(g)(3)"
    clauses = {LIGHTNING_DICE: ("625b.2(g)(3)", "625b.2(f)")}
    rare = True
    summary = "settles the round after a no roll with the Lucky Numbers of the no-roll round (a stale paytable, one round)"

    stale: tuple[Lucky, ...] | None = None

    def settle(self, ctrl, round_, wagers):
        if round_.no_roll:
            self.stale = round_.lucky
            return super().settle(ctrl, round_, wagers)
        stale, self.stale = self.stale, None
        return super().settle(ctrl, round_ if stale is None else dataclasses.replace(round_, lucky=stale), wagers)


@misbehaviour
class StaleLuckyAfterLuckyWin(Policy):
    name = "stale-lucky-after-lucky-win"
    games = frozenset({LIGHTNING_ROULETTE})
    clause = "617c.3(e)"
    clauses = {LIGHTNING_ROULETTE: ("617c.3(e)", "617c.3(f)")}
    rare = True
    summary = "settles the round after a Lucky Number won with that round's Lucky Numbers (a stale paytable, one round)"

    stale: tuple[Lucky, ...] | None = None

    def settle(self, ctrl, round_, wagers):
        stale, self.stale = self.stale, None
        if any(x.bet == f"straight:{round_.pocket}" for x in round_.lucky):
            self.stale = round_.lucky
        return super().settle(ctrl, round_ if stale is None else dataclasses.replace(round_, lucky=stale), wagers)


# -- order of the round's messages ------------------------------------------

@misbehaviour
class LuckyAfterResult(Policy):
    name = "lucky-after-result"
    games = LIGHTNING
    clause = "625b.2(d)(2)"
    clauses = {LIGHTNING_DICE: ("625b.2(d)(2)", "625b.2(g)(1)"), LIGHTNING_ROULETTE: ("617c.3(d)",)}
    summary = "holds the Lucky Numbers back until the outcome is known, then reveals and pays them"

    def lucky_after_result(self):
        return True


# -- settlement frames --------------------------------------------------------

@misbehaviour
class SettleTwice(Policy):
    name = "settle-twice"
    games = ALL_GAMES
    clause = "625b.2(d)(6)"
    clauses = SETTLEMENT_ORDER
    summary = "sends the SETTLE of the round's first settled wager twice"

    def settle_frames(self, ctrl, wagers, returned):
        frames = super().settle_frames(ctrl, wagers, returned)
        return frames + frames[:1]


@misbehaviour
class SettlePhantomWager(Policy):
    name = "settle-phantom-wager"
    games = ALL_GAMES
    clause = "625b.2(d)(6)"
    clauses = SETTLEMENT_ORDER
    summary = "settles a wager nobody placed (a refused wager's id, paid its stake back)"

    def settle_frames(self, ctrl, wagers, returned):
        frames = super().settle_frames(ctrl, wagers, returned)
        return frames + [(f"ghost{ctrl.round}", 100)] if frames else frames


# -- amounts that depend on the stake ------------------------------------------

@misbehaviour
class OddStakeRounding(Policy):
    name = "odd-stake-rounding"
    games = ALL_GAMES
    clause = "625b.2(f)"
    clauses = WIN_AMOUNT
    rare = True
    summary = "works a win out on the stake rounded down to an even amount (odd stakes are paid short)"

    def _short(self, wager: Wager, amount: int) -> int:
        if amount > wager.stake and wager.stake % 2:
            return amount - amount // wager.stake     # the odds plus one, times one unit less of stake
        return amount

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        return {w.id: self._short(w, returned[w.id]) for w in wagers}

    def settle_one_craps(self, ctrl, round_, wager):
        amount = super().settle_one_craps(ctrl, round_, wager)
        return amount if amount is None else self._short(wager, amount)


PAYOUT_CAP = 20_000   # minor units: random players at stakes of 1-10 units rarely win more on one wager


@misbehaviour
class PayoutCap(Policy):
    name = "payout-cap"
    games = frozenset({LIGHTNING_DICE, SIC_BO, LIGHTNING_ROULETTE})
    clause = "625b.2(f)"
    # A no roll returns every stake (625b.2(d)(5)): a large one is capped too.
    clauses = {**WIN_AMOUNT, LIGHTNING_DICE: WIN_AMOUNT[LIGHTNING_DICE] + ("625b.2(d)(5)",)}
    rare = True
    summary = f"never returns more than {PAYOUT_CAP} minor units on one wager (a cap the rules do not have)"

    def settle(self, ctrl, round_, wagers):
        return {k: min(v, PAYOUT_CAP) for k, v in super().settle(ctrl, round_, wagers).items()}


# -- wagers that must be refused ------------------------------------------------

class _AcceptsUnlawful(Policy):
    games = ALL_GAMES
    reason = ""

    def accept_unlawful_wager(self, reason):
        return reason == self.reason


@misbehaviour
class AcceptUnknownBet(_AcceptsUnlawful):
    name = "accept-unknown-bet"
    reason = "unknown-bet"
    clause = "625b.2(e)(5)"
    # The probe's bet is a total the dice cannot make; a scenario's may be of any shape ((e), 625a.3).
    clauses = {LIGHTNING_DICE: ("625b.2(e)(5)", "625b.2(e)"), SIC_BO: ("625a.3(4)", "625a.3"),
               LIGHTNING_ROULETTE: ("617c.3(a)",), DICE_OLOGY: ("20:18:33:14",)}
    summary = "accepts a bet the game does not offer (and lets it lose)"


@misbehaviour
class AcceptZeroStake(_AcceptsUnlawful):
    name = "accept-zero-stake"
    reason = "bad-stake"
    clause = "protocol"
    summary = "accepts a wager with a stake of zero"


@misbehaviour
class AcceptOverLimit(_AcceptsUnlawful):
    name = "accept-over-limit"
    reason = "over-limit"
    clause = "601a.2"
    summary = "accepts a stake over the maximum of the rules submission"


@misbehaviour
class AcceptDuplicateId(_AcceptsUnlawful):
    name = "accept-duplicate-id"
    reason = "duplicate-id"
    clause = "protocol"
    summary = "accepts a second wager under an id already used in the round"


# -- another reading of an ambiguous clause than the submission declares -------

class _OtherReading(Policy):
    option = ""
    reading = ""

    def _rules(self, ctrl):
        return dataclasses.replace(ctrl.rules, options={**dict(ctrl.rules.options), self.option: self.reading})

    def settle(self, ctrl, round_, wagers):
        return {s.wager_id: s.returned for s in ctrl.game.settle(round_, wagers, self._rules(ctrl))}


@misbehaviour
class AnyDoubleLosesOnTriple(_OtherReading):
    name = "any-double-loses-on-triple"
    games = frozenset({LIGHTNING_DICE})
    option, reading = "any_double_on_triple", "loses"
    clause = "625b.2(f)"
    rare = True
    summary = "reads 625b.2(e)(3) as 'exactly two dice' (any double loses on a triple) against the submission's 'wins'"


@misbehaviour
class LowHighByLabel(_OtherReading):
    name = "low-high-by-label"
    games = frozenset({LIGHTNING_DICE})
    option, reading = "low_high", "paytable-label"
    clause = "625b.2(f)"
    clauses = {LIGHTNING_DICE: ("625b.2(e)(1)", "625b.2(e)(2)", "625b.2(f)")}
    summary = "settles low and high by (f)'s labels (3-9, 12-18) against the submission's small/big reading of (e)(1),(2)"


@misbehaviour
class NoRollOnlyIfAllCocked(Policy):
    name = "no-roll-only-if-all-cocked"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(d)(5)"
    rare = True
    summary = "reads (d)(5) 'all three dice fail to land flat' literally against the submission's 'any die'"

    def no_roll(self, ctrl, flat, lawful):
        return not any(flat)


@misbehaviour
class DoubleLosesOnTriple(_OtherReading):
    name = "double-loses-on-triple"
    games = frozenset({SIC_BO})
    option, reading = "double_on_triple", "loses"
    clause = "625a.6(a)"
    rare = True
    summary = "lets a double bet lose on a triple of its number, against the submission's reading of 625a.3(2)"


# -- paytables ------------------------------------------------------------------

class _OtherPaytable(Policy):
    paytable = ""

    def _round(self, round_):
        return dataclasses.replace(round_, paytable=self.paytable)

    def _rules(self, ctrl):
        return dataclasses.replace(ctrl.rules, paytable=self.paytable)


@misbehaviour
class SicBoTotalsByPaytableB(_OtherPaytable):
    name = "sic-bo-totals-by-paytable-b"
    games = frozenset({SIC_BO})
    clause = "625a.6(a)"
    paytable = "B"
    summary = "with paytable A, pays the total bets by paytable B (a stale paytable for the totals)"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        totals = [w for w in wagers if w.bet.startswith("total:")]
        if totals:
            returned.update({s.wager_id: s.returned for s in ctrl.game.settle(
                self._round(round_), totals, self._rules(ctrl))})
        return returned


@misbehaviour
class SinglePairPaysEven(Policy):
    name = "single-pair-pays-even"
    games = frozenset({SIC_BO})
    clause = "625a.6(b)(2)"
    summary = "pays a one of a kind showing on two dice 1 to 1 instead of 2 to 1"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        dice = round_.dice or ()
        for w in wagers:
            if w.bet.startswith("single:") and dice.count(int(w.bet[7:])) == 2 and not round_.no_roll:
                returned[w.id] = w.stake * 2
        return returned


@misbehaviour
class DiceOlogyPayTableTwo(_OtherPaytable):
    name = "dice-ology-pay-table-2"
    games = frozenset({DICE_OLOGY})
    clause = "20:18:33:14(1)(c)"
    clauses = {DICE_OLOGY: WIN_AMOUNT[DICE_OLOGY]}
    paytable = "2"
    rare = True
    summary = "with Pay Table 1, pays a winning side bet by Pay Table 2"

    def settle_one_craps(self, ctrl, round_, wager):
        if not _lawful(ctrl, wager):
            return 0
        (settlement,) = ctrl.game.settle(self._round(round_), [wager], self._rules(ctrl))
        return None if settlement.open else settlement.returned


@misbehaviour
class BigOnesSurviveSeven(Policy):
    name = "big-ones-survive-seven"
    games = frozenset({DICE_OLOGY})
    clause = "20:18:33:14(2)(c)"
    summary = "keeps a Big Ones bet alive after the first seven instead of losing it"

    def craps_counting_from(self, ctrl, wager, start, rolls):
        if wager.bet == "big-ones" and start == 0:
            sevens = [i for i, roll in enumerate(rolls) if sum(roll) == 7]
            if sevens:
                return sevens[0] + 1
        return start


@misbehaviour
class EvenMoneyHalfBackOnZero(Policy):
    name = "even-money-half-back-on-zero"
    games = frozenset({LIGHTNING_ROULETTE})
    clause = "617a.4"
    rare = True
    summary = "returns half the stake of an even-money bet when the ball lands on 0 (la partage, which 617a.4 does not give)"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        if round_.pocket == 0:
            for w in wagers:
                if w.bet in ("red", "black", "odd", "even", "1-18", "19-36"):
                    returned[w.id] = w.stake // 2
        return returned


# -- outcomes a session sees only if it stages them (bench.play.coverage) ----------

def _class_rounds(game: str, class_id: str) -> int | None:
    """The rounds a session needs to see a class of the controller's draw with 99% chance."""
    judge = ClassCoverage(game, default_rules(game, describe(game).default_paytable))
    found = [c for c in judge.classes if c.id == class_id]
    return judge.rounds_needed(found[0]) if found else None


@misbehaviour
class HighWinsOnHighTriple(Policy):
    name = "high-wins-on-high-triple"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(e)(2)"
    rare = True
    summary = "pays a high bet 1 to 1 on 4-4-4 and 5-5-5, which lose (the big bet of 625a.3(7) loses on any triple)"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        dice = round_.dice or ()
        if not round_.no_roll and len(set(dice)) == 1 and dice[0] in (4, 5):
            for w in wagers:
                if w.bet == "high" and _lawful(ctrl, w):
                    returned[w.id] = w.stake * 2
        return returned


@misbehaviour
class TotalThreeEighteenAtTripleOdds(Policy):
    name = "total-3-18-at-triple-odds"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(f)"
    clauses = {LIGHTNING_DICE: ("625b.2(f)", "625b.2(g)(3)")}
    rare = True
    summary = "settles totals 3 and 18 (1-1-1, 6-6-6) as the any-triple bet, 24 to 1 instead of 149 to 1"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        dice = round_.dice or ()
        if not round_.no_roll and len(set(dice)) == 1 and dice[0] in (1, 6):
            for w in wagers:
                if w.bet == f"total:{sum(dice)}" and returned[w.id] > 0:
                    returned[w.id] = w.stake * 25
        return returned


@misbehaviour
class SecondNoRollSettles(Policy):
    name = "second-no-roll-settles"
    games = frozenset({LIGHTNING_DICE, SIC_BO})
    clause = "625b.2(d)(5)"
    clauses = {LIGHTNING_DICE: ("625b.2(d)(5)",), SIC_BO: ("625a.5",)}
    rare = True
    summary = ("takes the dice as they lie on a second no roll right after one (a limit of one re-drop or "
               "re-shake), settling on a cocked die")

    last_was_no_roll = False

    def no_roll(self, ctrl, flat, lawful):
        called = lawful and not self.last_was_no_roll
        self.last_was_no_roll = lawful
        return called


@misbehaviour
class LuckyBeyondThirdAtBase(Policy):
    name = "lucky-beyond-third-at-base"
    games = LIGHTNING
    clause = "625b.2(g)(3)"
    clauses = LUCKY_WIN
    rare = True
    summary = "pays a win on the fourth or fifth Lucky Number listed at base odds (a display of three enhanced slots)"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        late = {x.bet for x in round_.lucky[3:]}
        for w, _ in _lucky_winners(round_, wagers, returned):
            if w.bet in late:
                returned[w.id] = w.stake * (_base_odds(ctrl, round_, w) + 1)
        return returned


@misbehaviour
class LuckyZeroAtBase(Policy):
    name = "lucky-zero-at-29-to-1"
    games = frozenset({LIGHTNING_ROULETTE})
    clause = "617c.3(e)"
    rare = True
    statistical = True
    summary = "pays a straight up on 0 at 29 to 1 even when 0 is a Lucky Number (zero treated as never Lucky)"

    @classmethod
    def rounds_needed(cls, game):
        return _class_rounds(game, "lucky-pocket:0")

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        if round_.pocket == 0:
            for w in wagers:
                if w.bet == "straight:0" and returned[w.id] > 0:
                    returned[w.id] = w.stake * (STRAIGHT_ODDS + 1)
        return returned


# -- stakes at the limits (bench.rules.cover.boundary_stakes) ------------------------

@misbehaviour
class RefuseMaxStake(Policy):
    name = "refuse-max-stake"
    games = ALL_GAMES
    clause = "601a.2"
    summary = "refuses a stake of exactly the submission's maximum (a limit taken as 'below the maximum')"

    def refuse_lawful_stake(self, ctrl, stake):
        return stake == ctrl.rules.max_stake


@misbehaviour
class RefuseMinStake(Policy):
    name = "refuse-min-stake"
    games = ALL_GAMES
    clause = "601a.2"
    summary = "refuses a stake of exactly the submission's minimum (a limit taken as 'above the minimum')"

    def refuse_lawful_stake(self, ctrl, stake):
        return stake == ctrl.rules.min_stake


# -- the Lucky draw as a distribution (bench.oracle.lucky_draw) ----------------------

@misbehaviour
class LuckyOddsOnly49Or99(Policy):
    name = "lucky-odds-49-or-99"
    games = frozenset({LIGHTNING_ROULETTE})
    clause = "617c.3(g)"
    statistical = True
    summary = "draws Lucky odds of 49 or 99 to 1 only, never the other seven payouts of 617c.3(g)"

    def draw_lucky(self, ctrl, rng):
        lawful = super().draw_lucky(ctrl, rng)
        return tuple(Lucky(x.bet, 49 if rng.random() < 0.425 / 0.7 else 99) for x in lawful)


@misbehaviour
class TotalEighteenNeverLucky(Policy):
    name = "total-18-never-lucky"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(g)(1)"
    statistical = True
    summary = "never draws total 18 as a Lucky Number (drawn again whenever it comes up)"

    @classmethod
    def rounds_needed(cls, game):
        # What the bench's report says it needs: the oracle's own figure (asked by the mutation bench only).
        from bench.oracle.lucky_draw import judge
        rules = default_rules(game)
        return judge(rules.lucky, describe(game).lucky_draw_clauses, []).needs

    def draw_lucky(self, ctrl, rng):
        while True:
            drawn = super().draw_lucky(ctrl, rng)
            if all(x.bet != "total:18" for x in drawn):
                return drawn


@misbehaviour
class AlwaysTwoLuckyNumbers(Policy):
    name = "always-two-lucky-numbers"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(d)(2)"
    statistical = True
    summary = "reveals two Lucky Numbers every round (lawful each time; the submission draws three or four in 60%)"

    def draw_lucky(self, ctrl, rng):
        return super().draw_lucky(ctrl, rng)[:2]


@misbehaviour
class LuckyOddsNotInSubmission(Policy):
    name = "lucky-odds-not-in-submission"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(g)(1)"
    summary = ("gives the first Lucky Number odds within 625b.2(g)(3)'s range that the submission never draws "
               "(one more than drawn), and pays them")

    def draw_lucky(self, ctrl, rng):
        lawful = super().draw_lucky(ctrl, rng)
        first = lawful[0]
        low, high = ctrl.game.enhanced_ranges[first.bet]
        support = {pays for pays, p in ctrl.rules.lucky.pays_distribution(first.bet) if p > 0}
        pays = next(v for v in list(range(first.pays + 1, high + 1)) + list(range(low, first.pays)) if v not in support)
        return (Lucky(first.bet, pays),) + lawful[1:]


@misbehaviour
class LuckyRepeatAfterNoRoll(Policy):
    name = "lucky-repeat-after-no-roll"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(d)(2)"
    rare = True
    summary = "reveals the no-roll round's Lucky Numbers again in the round after it (the draw kept, not made afresh)"

    kept: tuple[Lucky, ...] | None = None

    def draw_lucky(self, ctrl, rng):
        drawn = super().draw_lucky(ctrl, rng)
        kept, self.kept = self.kept, None
        return kept or drawn

    def settle(self, ctrl, round_, wagers):
        if round_.no_roll:
            self.kept = round_.lucky
        return super().settle(ctrl, round_, wagers)


@misbehaviour
class LuckyPositionsRepeatAfterNoRoll(Policy):
    name = "lucky-positions-repeat-after-no-roll"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(d)(2)"
    rare = True
    summary = ("reveals the no-roll round's Lucky positions again in the round after it, with odds drawn afresh "
               "(the positions kept, not drawn again)")

    kept: tuple[Lucky, ...] | None = None

    def draw_lucky(self, ctrl, rng):
        from bench.rules.lucky import draw
        drawn = super().draw_lucky(ctrl, rng)
        kept, self.kept = self.kept, None
        if not kept:
            return drawn
        distribution = ctrl.rules.lucky
        # New odds for at least one position (where its distribution has another value), each
        # lawful and drawn from the submission: only the positions repeat.
        for _ in range(100):
            fresh = tuple(Lucky(x.bet, draw(distribution.pays_distribution(x.bet), rng)) for x in kept)
            if fresh != kept:
                return fresh
        return kept

    def settle(self, ctrl, round_, wagers):
        if round_.no_roll:
            self.kept = round_.lucky
        return super().settle(ctrl, round_, wagers)


# -- outcomes a staged round must show as staged (issue 45, item 5) ------------------

@misbehaviour
class TotalThreeEighteenClamped(Policy):
    name = "ld-total-3-18-clamped"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(f)"
    rare = True
    summary = ("pays a win on total 3 or 18 that is not a Lucky Number at 99 to 1 (its base odds clamped to two "
               "digits; 625b.2(f): 149 to 1, by (g)(2)); a Lucky one is paid at its announced odds")

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        lucky = {x.bet for x in round_.lucky}
        for w in wagers:
            if w.bet in ("total:3", "total:18") and w.bet not in lucky and returned[w.id] > 0 and not round_.no_roll:
                returned[w.id] = w.stake * (99 + 1)
        return returned


@misbehaviour
class SicBoReshakeOnNoRoll(Policy):
    name = "sicbo-reshake-on-noroll"
    games = frozenset({SIC_BO})
    clause = "625a.5"
    rare = True
    summary = ("shakes the dice again when one is not flat without calling the no roll (no NOROLL, "
               "straight to the next RELEASE): a round with a die not flat never ends for the bench")

    def announce_no_roll(self, ctrl):
        return False
