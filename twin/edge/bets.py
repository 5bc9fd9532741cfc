"""How the watching player bets: straight ups round a predicted pocket, learnt on
the fit spins, measured on the held-out spins.

For each spin and cutoff the player has a predicted pocket (or nothing: too
little seen) and, if the spin was seen, two things he may sort spins by
(docs/edge.md, "The bet"): the rotor's speed as he timed it, and where among
the deflectors he expects the ball to leave the track. A *strategy* says
which of those he sorts by (``none``, ``rotor``, ``place`` or ``both``: three
bins of each, cut at the fit spins' terciles and at thirds of the deflectors'
spacing) and whether he may *skip*: bet only the classes of spins whose
cross-validated return is clearly positive. Spins he saw too little of form a class
of their own (bet blind, or skipped).

In each class he learns how far from the predicted pocket the ball comes to
rest (the offset, in pockets on the rotor), smoothed over neighbouring
pockets and, for a small class, drawn toward all spins' offsets, and bets
one unit on each of the k most likely offsets. The strategy and k are chosen
by two-fold cross-validation within the fit spins, repeated over random
halvings, with the one-standard-error rule: among the choices within one
standard error of the best, the simplest (no skipping, fewer classes, then
the most numbers). Only then is the choice measured on the held-out spins:
that measurement is the edge.

Everything here works on arrays of small integers (offsets 0-36, classes), so
that an estimate can be repeated on resampled spins (``twin.edge.verdict``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

POCKETS = 37
MAX_NUMBERS = 18        # half the wheel: more straight ups cannot beat the house
SMOOTHING = np.array([1, 2, 3, 2, 1]) / 9      # offsets -2..2 pockets
CV_REPEATS = 10         # random halvings of the fit spins
CV_SEED = 617           # their seed: the choice is the same in every run
PRIOR_SPINS = 50        # a class's offsets are drawn toward all spins' as if this many spins had shown them
BINS = 3                # of the rotor's speed, and of the leaving place among the deflectors
CONDITIONS = ("none", "rotor", "place", "both")
# One-sided 1% over every class and k tried (Bonferroni, 10 classes x 18 numbers at most)
SKIP_Z = 4.0
# The choice's margin, in standard errors of the best. Two errors steadied the choice on
# nothing-to-predict spins, but then held the player to 18 numbers where 5-9 paid more
# (the standard wheel: "safe" at every cutoff over 2,000 spins): the regulator's error.
# One error lets a lucky few numbers be chosen now and then; their wide interval makes
# a rung "not shown safe", the error on the regulator's side, and the verdict's own
# interval (twin.edge.verdict) shows how often that happens.
CHOICE_SE = 1.0


@dataclass(frozen=True)
class Strategy:
    condition: str               # what the player sorts spins by: one of CONDITIONS
    skip: bool                   # bets only the classes whose cross-validated return is positive
    numbers: int                 # straight ups a spin (k)

    @property
    def label(self) -> str:
        by = {"none": "all spins alike", "rotor": "by rotor speed", "place": "by leaving place",
              "both": "by rotor speed and leaving place"}[self.condition]
        return f"{by}{', skipping' if self.skip else ''}"


@dataclass(frozen=True)
class Spins:
    """One cutoff's spins as the player sees them: offsets of the resting pocket from
    the predicted one, whether anything was predicted, and the two sorting bins."""
    offset: np.ndarray           # int, 0-36
    informed: np.ndarray         # bool
    rotor_bin: np.ndarray        # int, 0..BINS-1 (0 where not informed)
    place_bin: np.ndarray        # int, 0..BINS-1
    ident: np.ndarray | None = None   # which spin each is (a resample repeats spins); None: all different

    def take(self, index: np.ndarray) -> "Spins":
        ident = np.arange(len(self)) if self.ident is None else self.ident
        return Spins(self.offset[index], self.informed[index], self.rotor_bin[index], self.place_bin[index],
                     ident[index])

    def __len__(self) -> int:
        return int(self.offset.size)

    def classes(self, condition: str) -> np.ndarray:
        """Class 0: nothing predicted; then one class per bin (or pair of bins)."""
        if condition == "none":
            c = np.zeros_like(self.offset)
        elif condition == "rotor":
            c = self.rotor_bin
        elif condition == "place":
            c = self.place_bin
        else:
            c = self.rotor_bin * BINS + self.place_bin
        return np.where(self.informed, c + 1, 0)


def class_count(condition: str) -> int:
    return 1 + {"none": 1, "rotor": BINS, "place": BINS, "both": BINS * BINS}[condition]


def shares(offset: np.ndarray, classes: np.ndarray, count: int) -> np.ndarray:
    """Each class's smoothed share of each offset, drawn toward all spins' shares."""
    counts = np.zeros((count, POCKETS))
    np.add.at(counts, (classes, offset), 1.0)
    smooth = sum(w * np.roll(counts, s, axis=1) for s, w in zip(range(-2, 3), SMOOTHING))
    pooled = smooth.sum(axis=0)
    pooled = pooled / max(1.0, pooled.sum())
    n = smooth.sum(axis=1, keepdims=True)
    return (smooth + PRIOR_SPINS * pooled) / (n + PRIOR_SPINS)


def rank_table(share: np.ndarray) -> np.ndarray:
    """rank[c, o]: the place of offset o among class c's offsets, most likely first
    (ties to the smaller offset)."""
    order = np.lexsort((np.broadcast_to(np.arange(POCKETS), share.shape), -share), axis=1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(POCKETS)[None, :].repeat(share.shape[0], axis=0), axis=1)
    return rank


@dataclass(frozen=True)
class CrossValidated:
    """Per strategy's condition: for every k, the cross-validated hits and bets per class."""
    hits: np.ndarray             # [classes, MAX_NUMBERS]: test spins whose offset ranked under k
    spins: np.ndarray            # [classes]: test spins (summed over the halvings)
    fit_spins: int               # spins of the fit set (the standard error's n)
    repeats: int                 # halvings: every fit spin is a test spin once in each


def cross_validate(fit: Spins, condition: str, repeats: int = CV_REPEATS, seed: int = CV_SEED) -> CrossValidated:
    count = class_count(condition)
    classes = fit.classes(condition)
    n = len(fit)
    hits = np.zeros((count, MAX_NUMBERS))
    spins = np.zeros(count)
    rng = np.random.default_rng(seed)
    # halves of the spins themselves: a spin drawn twice by a resample must not sit in
    # both halves, or the player would seem to predict what he had merely seen
    ident = np.arange(n) if fit.ident is None else fit.ident
    spins_seen = np.unique(ident)
    for _ in range(repeats):
        first = np.isin(ident, rng.permutation(spins_seen)[:spins_seen.size // 2])
        halves = (np.nonzero(first)[0], np.nonzero(~first)[0])
        for train, test in (halves, halves[::-1]):
            rank = rank_table(shares(fit.offset[train], classes[train], count))
            got = rank[classes[test], fit.offset[test]]
            below = got[:, None] < np.arange(1, MAX_NUMBERS + 1)[None, :]
            np.add.at(hits, classes[test], below.astype(float))
            spins += np.bincount(classes[test], minlength=count)
    return CrossValidated(hits, spins, n, repeats)


def wilson_low(hits: np.ndarray, spins: np.ndarray, z: float) -> np.ndarray:
    """The Wilson score interval's lower end of a hit rate, z standard errors down
    (a few spins that all hit prove little: 2 of 2 gives 0.11 at z = 4)."""
    spins = np.maximum(spins, 1e-12)
    p = hits / spins
    centre = p + z * z / (2 * spins)
    spread = z * np.sqrt(np.maximum(p * (1 - p), 0.0) / spins + z * z / (4 * spins * spins))
    return (centre - spread) / (1 + z * z / spins)


def _score(hits: float, spins: float, pays_per_unit: float, fit_spins: int, share: float) -> tuple[float, float]:
    """Mean return per unit staked and its standard error (over the fit spins bet)."""
    if spins <= 0:
        return -math.inf, math.inf
    p = hits / spins
    mean = p * pays_per_unit - 1
    bet = max(1.0, share * fit_spins)
    return mean, pays_per_unit * math.sqrt(max(p * (1 - p), 1e-12) / bet)


def candidates(cv: CrossValidated, condition: str, pays: float) -> list[tuple[Strategy, float, float, tuple[int, ...]]]:
    """Every (skip, k) of a condition with its cross-validated return, standard error
    and the classes bet."""
    out = []
    total = cv.spins.sum()
    for k in range(1, MAX_NUMBERS + 1):
        per_unit = pays / k
        every = tuple(range(cv.spins.size))
        mean, se = _score(cv.hits[:, k - 1].sum(), total, per_unit, cv.fit_spins, 1.0)
        out.append((Strategy(condition, False, k), mean, se, every))
        # a class is kept when its cross-validated return is clearly positive: above zero by
        # SKIP_Z standard errors (a bound for every class and k tried at once); by a
        # plain "positive", some class among dozens always looks so by luck, and a
        # few spins bet on it decide the verdict by their wide interval alone
        low = wilson_low(cv.hits[:, k - 1] / cv.repeats, cv.spins / cv.repeats, SKIP_Z) * per_unit - 1
        kept = tuple(int(c) for c in np.nonzero((cv.spins > 0) & (low > 0))[0])
        if kept and len(kept) < cv.spins.size:
            h, s = cv.hits[list(kept), k - 1].sum(), cv.spins[list(kept)].sum()
            mean, se = _score(h, s, per_unit, cv.fit_spins, s / total)
            out.append((Strategy(condition, True, k), mean, se, kept))
    return out


def choose(fit: Spins, pays: float, conditions=CONDITIONS) -> tuple[Strategy, float, float, tuple[int, ...]]:
    """The strategy the player settles on from the fit spins (the one-standard-error
    rule over every condition, skipping or not, and k), its cross-validated return,
    that return's standard error and the classes it bets."""
    if len(fit) < 2:
        return Strategy("none", False, MAX_NUMBERS), -math.inf, math.inf, (0, 1)
    options = []
    for condition in conditions:
        options += candidates(cross_validate(fit, condition), condition, pays)
    best = max(options, key=lambda o: o[1])
    floor = best[1] - CHOICE_SE * best[2]
    simplest = [o for o in options if o[1] >= floor]
    return min(simplest, key=lambda o: (o[0].skip, CONDITIONS.index(o[0].condition), -o[0].numbers))


@dataclass(frozen=True)
class HeldOut:
    hits: int
    bets: int                    # held-out spins bet on
    spins: int                   # held-out spins in all


def measure(fit: Spins, held: Spins, strategy: Strategy, kept: tuple[int, ...]) -> HeldOut:
    """The chosen strategy, learnt on all fit spins, played on the held-out spins."""
    count = class_count(strategy.condition)
    rank = rank_table(shares(fit.offset, fit.classes(strategy.condition), count))
    classes = held.classes(strategy.condition)
    bet = np.isin(classes, kept)
    hit = rank[classes, held.offset] < strategy.numbers
    return HeldOut(int((hit & bet).sum()), int(bet.sum()), len(held))
