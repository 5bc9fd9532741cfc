"""Misbehaviours of the Lucky Number RNG itself (58 Pa. Code § 810a.5): each
passes every per-round rule and the session's Lucky draw fit
(``bench.oracle.lucky_draw``) over a short session, and breaks only what the
RNG battery (``bench rng``, docs/rng.md) judges: the raw output before
scaling, the scaled values, their independence from round to round and from
session to session.

The controller's Lucky RNG is modelled as what the test-mode exchange
(docs/protocol.md, "Raw RNG output") shows of it: a stream of raw 32-bit
words, and a scaling of those words onto a range. ``LuckyRng`` is the
compliant one (Mersenne Twister words from the recorded seed, scaled by
rejection on the high bits, as Python's ``randrange`` does); each misbehaviour
brings its own, and breaks the in-play draw the same way where the defect
would reach it.

They are registered apart from ``MISBEHAVIOURS`` (``BATTERY_ONLY``): the
per-round oracle and ``bench run`` rightly find nothing in them, so the
mutation score's "every misbehaviour is caught by its clause" is not theirs
to meet; ``bench rng`` is (tests/rng/).
"""

from __future__ import annotations

import random
import weakref
from typing import Callable

from bench.emulator.misbehaviours import BATTERY_ONLY, LIGHTNING, Policy
from bench.rules.base import Lucky, Round, Wager
from bench.rules.exact import draw

WORD_BITS = 32
RNG_BATCH = 16      # values in one RNGDATA: 16 words of 10 digits fit a 256-byte frame (docs/protocol.md)


def below(word: Callable[[], int], size: int) -> int:
    """A value uniform on ``range(size)`` from raw words: the high bits of one
    word, drawn again while out of range (rejection, as ``random.randrange``;
    no modulo bias)."""
    if not 0 < size <= 1 << WORD_BITS:
        raise ValueError(f"size {size} out of 1..2**{WORD_BITS}")
    bits = size.bit_length()
    while True:
        value = word() >> (WORD_BITS - bits)
        if value < size:
            return value


class LuckyRng:
    """The compliant Lucky RNG as the test-mode exchange shows it."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.restart()

    def restart(self) -> None:
        """A new session on a controller left on: the stream goes on (a
        compliant generator is not reseeded to where it began)."""
        if not hasattr(self, "_source"):
            self._source = random.Random(f"{self.seed}:lucky-rng")

    def word(self) -> int:
        return self._source.getrandbits(WORD_BITS)

    def scale(self, size: int) -> int:
        return below(self.word, size)

    def raw(self, count: int) -> list[int]:
        return [self.word() for _ in range(count)]

    def scaled(self, count: int, size: int) -> list[int]:
        return [self.scale(size) for _ in range(count)]


def lucky_rng(policy: Policy, seed: int) -> LuckyRng:
    """The Lucky RNG of a controller with this policy, made once and kept on
    the policy (a collection resumed goes on with the same stream)."""
    kept = _KEPT.get(policy)
    if kept is None:
        factory = getattr(policy, "make_lucky_rng", None)
        kept = factory(seed) if factory is not None else LuckyRng(seed)
        _KEPT[policy] = kept
    return kept


_KEPT: weakref.WeakKeyDictionary[Policy, LuckyRng] = weakref.WeakKeyDictionary()


def session_started(policy: Policy, seed: int) -> None:
    """Called at each HELLO the controller answers: a generator that restarts
    its sequence does it here."""
    lucky_rng(policy, seed).restart()
    hook = getattr(policy, "on_session_start", None)
    if hook is not None:
        hook()


def battery_only(cls: type[Policy]) -> type[Policy]:
    BATTERY_ONLY[cls.name] = cls
    return cls


def _with_first(ctrl, lawful: tuple[Lucky, ...], bet: str, rng: random.Random) -> tuple[Lucky, ...]:
    """The lawful draw with ``bet`` as its first Lucky Number: moved to the
    front if drawn, else in place of the first, its odds drawn from its own
    distribution. The count, the positions' distinctness and every odds'
    support are the lawful draw's."""
    kept = [x for x in lawful if x.bet == bet]
    if kept:
        return (kept[0],) + tuple(x for x in lawful if x.bet != bet)
    pays = draw(ctrl.rules.lucky.pays_distribution(bet), rng)
    assert isinstance(pays, int)
    return (Lucky(bet, pays),) + lawful[1:]


class _RngPolicy(Policy):
    games = LIGHTNING
    statistical = True


# -- defects of the generator or its scaling: raw and scaled values -----------------

class _ModuloRng(LuckyRng):
    def scale(self, size: int) -> int:
        return self.word() % 100 % size


@battery_only
class ModuloBias(_RngPolicy):
    name = "modulo-bias"
    clause = "810a.5(d)"
    summary = ("scales its raw words onto the Lucky positions through two decimal digits (word % 100 % positions): "
               "the raw output is fair, the low positions come up more often")

    def make_lucky_rng(self, seed: int) -> LuckyRng:
        return _ModuloRng(seed)

    def draw_lucky(self, ctrl, rng):
        lawful = super().draw_lucky(ctrl, rng)
        positions = ctrl.rules.lucky.positions
        chosen: list[str] = []
        while len(chosen) < len(lawful):
            bet = positions[rng.getrandbits(WORD_BITS) % 100 % len(positions)]
            if bet not in chosen:
                chosen.append(bet)
        return tuple(Lucky(bet, _pays(ctrl, bet, rng)) for bet in chosen)


def _pays(ctrl, bet: str, rng: random.Random) -> int:
    pays = draw(ctrl.rules.lucky.pays_distribution(bet), rng)
    assert isinstance(pays, int)
    return pays


RAW_PERIOD = 4096       # words before the short-period generator's raw stream repeats
ROUND_PERIOD = 256      # rounds before its in-play draws repeat


class _PeriodicRng(LuckyRng):
    def restart(self) -> None:
        if not hasattr(self, "_table"):
            source = random.Random(f"{self.seed}:short-period")
            self._table = [source.getrandbits(WORD_BITS) for _ in range(RAW_PERIOD)]
            self._at = 0

    def word(self) -> int:
        value = self._table[self._at % RAW_PERIOD]
        self._at += 1
        return value


@battery_only
class ShortPeriodRng(_RngPolicy):
    name = "short-period-rng"
    clause = "810a.5(c)(11)"
    summary = (f"a generator of short period: its raw stream repeats every {RAW_PERIOD} words and the Lucky draws "
               f"every {ROUND_PERIOD} rounds (each value fair, the pattern recurrent)")

    def __init__(self) -> None:
        self._round_seeds: list[int] | None = None
        self._drawn = 0

    def make_lucky_rng(self, seed: int) -> LuckyRng:
        return _PeriodicRng(seed)

    def draw_lucky(self, ctrl, rng):
        if self._round_seeds is None:
            source = random.Random(f"{ctrl.seed}:short-period:rounds")
            self._round_seeds = [source.getrandbits(WORD_BITS) for _ in range(ROUND_PERIOD)]
        seed = self._round_seeds[self._drawn % ROUND_PERIOD]
        self._drawn += 1
        return super().draw_lucky(ctrl, random.Random(seed))


class _StuckLowBitRng(LuckyRng):
    def word(self) -> int:
        return super().word() & ~1


@battery_only
class StuckLowBit(_RngPolicy):
    name = "stuck-low-bit"
    clause = "810a.5(c)(2)"
    summary = ("bit 0 of every raw word is stuck at 0; the scaling reads the high bits, so the Lucky draws are fair "
               "and only the raw output shows it")

    def make_lucky_rng(self, seed: int) -> LuckyRng:
        return _StuckLowBitRng(seed)


FOLLOW_CHANCE = 0.25    # how often the next value is the one after the last


class _FollowingRng(LuckyRng):
    def restart(self) -> None:
        super().restart()
        if not hasattr(self, "_last"):
            self._last: dict[int, int] = {}

    def scale(self, size: int) -> int:
        last = self._last.get(size)
        if last is not None and self.word() < FOLLOW_CHANCE * (1 << WORD_BITS):
            value = (last + 1) % size
        else:
            value = below(self.word, size)
        self._last[size] = value
        return value


@battery_only
class LuckyFollowsPrevious(_RngPolicy):
    name = "lucky-follows-previous"
    clause = "810a.5(c)(13)"
    summary = (f"in {FOLLOW_CHANCE:.0%} of rounds the first Lucky Number is the position after the previous round's "
               "first (each position still Lucky as often as it should be)")

    def __init__(self) -> None:
        self._previous: str | None = None

    def make_lucky_rng(self, seed: int) -> LuckyRng:
        return _FollowingRng(seed)

    def draw_lucky(self, ctrl, rng):
        lawful = super().draw_lucky(ctrl, rng)
        positions = ctrl.rules.lucky.positions
        if self._previous is not None and rng.random() < FOLLOW_CHANCE:
            following = positions[(positions.index(self._previous) + 1) % len(positions)]
            lawful = _with_first(ctrl, lawful, following, rng)
        self._previous = lawful[0].bet
        return lawful


FIXED_SEED = "factory"      # what the same-sequence controller seeds from, whatever seed it says


class _RestartingRng(LuckyRng):
    def restart(self) -> None:
        self._source = random.Random(f"{FIXED_SEED}:lucky-rng")


@battery_only
class SameSequenceAfterRestart(_RngPolicy):
    name = "same-sequence-after-restart"
    clause = "810a.5(a)(1)"
    summary = ("seeds its Lucky RNG from a fixed value at every start and every new session: each session draws "
               "the same sequence, whatever seed it announces")

    def __init__(self) -> None:
        self._drawn = 0

    def make_lucky_rng(self, seed: int) -> LuckyRng:
        return _RestartingRng(seed)

    def on_session_start(self) -> None:
        self._drawn = 0

    def draw_lucky(self, ctrl, rng):
        self._drawn += 1
        return super().draw_lucky(ctrl, random.Random(f"{FIXED_SEED}:lucky:{self._drawn}"))


# -- defects of the in-play draw only (outside play the generator is fair) ---------

AGAIN_CHANCE = 0.5


def lucky_bets_won(ctrl, round_: Round) -> list[str]:
    """The round's Lucky Numbers that its outcome made win (a notional unit on
    each, settled by the rules; none after a no roll)."""
    if round_.no_roll or not round_.lucky:
        return []
    notional = [Wager(f"lucky-{i}", x.bet, 1) for i, x in enumerate(round_.lucky)]
    settled = {s.wager_id: s.returned for s in ctrl.game.settle(round_, notional, ctrl.rules)}
    return [w.bet for w in notional if settled.get(w.id, 0) > 0]


@battery_only
class LuckyAgainAfterWin(_RngPolicy):
    name = "lucky-again-after-win"
    clause = "810a.5(c)(13)"
    summary = (f"after a Lucky Number wins, makes it Lucky again in the next round {AGAIN_CHANCE:.0%} of the "
               "time (a fair draw: about one time in six)")

    def __init__(self) -> None:
        self._won: list[str] = []

    def settle(self, ctrl, round_, wagers):
        self._won = lucky_bets_won(ctrl, round_)
        return super().settle(ctrl, round_, wagers)

    def draw_lucky(self, ctrl, rng):
        lawful = super().draw_lucky(ctrl, rng)
        won, self._won = self._won, []
        if won and rng.random() < AGAIN_CHANCE:
            return _with_first(ctrl, lawful, won[0], rng)
        return lawful


@battery_only
class LuckyFavoursANumber(_RngPolicy):
    name = "lucky-favours-a-number"
    clause = "810a.5(a)(2)"
    summary = "makes the lowest eligible position Lucky about twice as often as a fair draw does"

    def draw_lucky(self, ctrl, rng):
        lawful = super().draw_lucky(ctrl, rng)
        distribution = ctrl.rules.lucky
        favoured = distribution.positions[0]
        fair = float(distribution.lucky_probability(favoured))
        # Lucky with chance fair + (1 - fair) * extra = 2 * fair.
        extra = fair / (1 - fair)
        if all(x.bet != favoured for x in lawful) and rng.random() < extra:
            return _with_first(ctrl, lawful, favoured, rng)
        return lawful
