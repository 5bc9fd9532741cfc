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
# A class bet alone holds at least this share of the spins: at 2,000 spins, 10 held-out spins
MIN_CLASS_SHARE = 0.01
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
    counts = np.bincount(classes * POCKETS + offset, minlength=count * POCKETS).reshape(count, POCKETS).astype(float)
    # round the wheel: column j of ``ring`` is offset j - 2, so a shift by s is a slice
    ring = np.concatenate([counts[:, -2:], counts, counts[:, :2]], axis=1)
    smooth = sum(w * ring[:, 2 - s:2 - s + POCKETS] for s, w in zip(range(-2, 3), SMOOTHING))
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
    """Per strategy's condition: for every k, the cross-validated hits and bets per class;
    and, fold by fold, what the skip test saw on the fold's training spins alone
    (``inner_*``) beside what the fold's test spins then did (``fold_*``): the nested
    split that scores a skipping strategy on spins its classes were not chosen on."""
    hits: np.ndarray             # [classes, MAX_NUMBERS]: test spins whose offset ranked under k
    spins: np.ndarray            # [classes]: test spins (summed over the halvings)
    fit_spins: int               # spins of the fit set (the standard error's n)
    repeats: int                 # halvings: every fit spin is a test spin once in each
    fold_hits: np.ndarray        # [folds, classes, MAX_NUMBERS]: each fold's test spins' hits
    fold_spins: np.ndarray       # [folds, classes]
    inner_hits: np.ndarray       # [folds, classes, MAX_NUMBERS]: a two-fold within each fold's training spins
    inner_spins: np.ndarray      # [folds, classes]


def _tested(offset: np.ndarray, classes: np.ndarray, train: np.ndarray, test: np.ndarray,
            count: int) -> tuple[np.ndarray, np.ndarray]:
    """Hits under every k and spins per class of ``test``, the offsets learnt on ``train``."""
    rank = rank_table(shares(offset[train], classes[train], count))
    got = rank[classes[test], offset[test]]
    # test spins per class and rank; a bet on k numbers hits those ranked under k
    by_rank = np.bincount(classes[test] * POCKETS + got, minlength=count * POCKETS).reshape(count, POCKETS)
    hits = np.cumsum(by_rank, axis=1)[:, :MAX_NUMBERS].astype(float)
    return hits, by_rank.sum(axis=1).astype(float)


def cross_validate(fit: Spins, condition: str, repeats: int = CV_REPEATS, seed: int = CV_SEED) -> CrossValidated:
    count = class_count(condition)
    classes = fit.classes(condition)
    n = len(fit)
    hits = np.zeros((count, MAX_NUMBERS))
    spins = np.zeros(count)
    fold_hits, fold_spins, inner_hits, inner_spins = [], [], [], []
    rng = np.random.default_rng(seed)
    inner_rng = np.random.default_rng([seed, 2])      # its own stream: the outer halvings are as they were
    # halves of the spins themselves: a spin drawn twice by a resample must not sit in
    # both halves, or the player would seem to predict what he had merely seen
    ident = np.arange(n) if fit.ident is None else fit.ident
    spins_seen = np.unique(ident)
    for _ in range(repeats):
        first = np.isin(ident, rng.permutation(spins_seen)[:spins_seen.size // 2])
        halves = (np.nonzero(first)[0], np.nonzero(~first)[0])
        for train, test in (halves, halves[::-1]):
            h, c = _tested(fit.offset, classes, train, test, count)
            hits += h
            spins += c
            fold_hits.append(h)
            fold_spins.append(c)
            # the skip test run on the training half alone, by a two-fold of its own spins
            own = np.unique(ident[train])
            inner_first = np.isin(ident[train], inner_rng.permutation(own)[:own.size // 2])
            a, b = train[inner_first], train[~inner_first]
            h1, c1 = _tested(fit.offset, classes, a, b, count)
            h2, c2 = _tested(fit.offset, classes, b, a, count)
            inner_hits.append(h1 + h2)
            inner_spins.append(c1 + c2)
    return CrossValidated(hits, spins, n, repeats, np.array(fold_hits), np.array(fold_spins),
                          np.array(inner_hits), np.array(inner_spins))


def wilson_low(hits: np.ndarray, spins: np.ndarray, z: float) -> np.ndarray:
    """The Wilson score interval's lower end of a hit rate, z standard errors down
    (a few spins that all hit prove little: 2 of 2 gives 0.11 at z = 4)."""
    spins = np.maximum(spins, 1e-12)
    p = hits / spins
    centre = p + z * z / (2 * spins)
    spread = z * np.sqrt(np.maximum(p * (1 - p), 0.0) / spins + z * z / (4 * spins * spins))
    return (centre - spread) / (1 + z * z / spins)


def _score(hits: float, spins: float, pays_per_unit: float, fit_spins: float, share: float) -> tuple[float, float]:
    """Mean return per unit staked and its standard error (over the fit spins bet)."""
    if spins <= 0:
        return -math.inf, math.inf
    p = hits / spins
    mean = p * pays_per_unit - 1
    bet = max(1.0, share * fit_spins)
    return mean, pays_per_unit * math.sqrt(max(p * (1 - p), 1e-12) / bet)


def skip_kept(hits: np.ndarray, spins: np.ndarray, per_unit: float, weight: float = 1.0) -> np.ndarray:
    """The skip test: the classes whose return, from ``hits`` of ``spins`` (each
    spin a test spin once), is above zero by SKIP_Z standard errors (a bound for
    every class and k tried at once; by a plain "positive", some class among dozens
    always looks so by luck), and that hold at least MIN_CLASS_SHARE of the spins
    (a class of a few spins proves nothing either way: its held-out bets are too
    few to measure). ``weight``: how many spins each counts for (a halving judged
    as the whole campaign, ``twin.edge.verdict``). A boolean per class."""
    low = wilson_low(hits * weight, spins * weight, SKIP_Z) * per_unit - 1
    return (spins > 0) & (spins >= MIN_CLASS_SHARE * spins.sum()) & (low > 0)


def candidates(cv: CrossValidated, condition: str, pays: float, weight: float = 1.0
               ) -> list[tuple[Strategy, float, float, tuple[int, ...]]]:
    """Every (skip, k) of a condition with its cross-validated return, standard error
    and the classes bet. A skipping strategy's return is nested: in each fold the
    classes are chosen by the skip test on the fold's training spins alone and
    scored on its test spins, so a class that looked good by luck is scored on
    spins that did not choose it (scoring the classes on the spins that chose
    them let a class of 0.7% of the spins, lucky on them, carry a whole ladder:
    issue 39). The classes then bet on the held-out spins are chosen by the same
    test on all the fit spins."""
    out = []
    total = cv.spins.sum()
    every = tuple(range(cv.spins.size))
    for k in range(1, MAX_NUMBERS + 1):
        per_unit = pays / k
        mean, se = _score(cv.hits[:, k - 1].sum(), total, per_unit, cv.fit_spins * weight, 1.0)
        out.append((Strategy(condition, False, k), mean, se, every))
        chosen = skip_kept(cv.hits[:, k - 1] / cv.repeats, cv.spins / cv.repeats, per_unit, weight)
        kept = tuple(int(c) for c in np.nonzero(chosen)[0])
        if not kept or len(kept) == cv.spins.size:
            continue
        h = s = 0.0
        for fold in range(cv.fold_spins.shape[0]):
            inner = skip_kept(cv.inner_hits[fold, :, k - 1], cv.inner_spins[fold], per_unit, weight)
            h += float(cv.fold_hits[fold, inner, k - 1].sum())
            s += float(cv.fold_spins[fold, inner].sum())
        if s > 0:
            mean, se = _score(h, s, per_unit, cv.fit_spins * weight, s / total)
            out.append((Strategy(condition, True, k), mean, se, kept))
    return out


def choose(fit: Spins, pays: float, conditions=CONDITIONS, weight: float = 1.0
           ) -> tuple[Strategy, float, float, tuple[int, ...]]:
    """The strategy the player settles on from the fit spins (the one-standard-error
    rule over every condition, skipping or not, and k), its cross-validated return,
    that return's standard error and the classes it bets. ``weight``: how many
    spins each fit spin counts for in the standard errors and the skip test."""
    if len(fit) < 2:
        return Strategy("none", False, MAX_NUMBERS), -math.inf, math.inf, (0, 1)
    options = []
    for condition in conditions:
        options += candidates(cross_validate(fit, condition), condition, pays, weight)
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
