"""Wheels whose edge is known: a player's spins drawn directly, with an edge planted.

The verdict's interval and the comparison of two wheels (``twin.edge.verdict``)
are statistics of a threshold over a ladder of cutoffs, whose behaviour no
formula gives; they are checked by simulation instead, on campaigns drawn
here in milliseconds instead of simulated in hours. At each cutoff a share
of the spins is *planted*: the ball rests in the predicted pocket; every
other spin rests anywhere (the offset uniform over the 37 pockets), as on a
wheel that tells nothing. The player's sorting bins are drawn uniformly, and
the planted spins may be confined to one rotor-speed bin (a class of a third
of the spins, which a skipping player can find). So the edge of betting the
predicted pocket at cutoff j is known: a hit rate of q + (1 - q)/37 with
q = ``planted[j]``.
"""

from __future__ import annotations

import numpy as np

from twin.edge.bets import BINS, POCKETS, Spins
from twin.edge.wheel import Ladder

PLANTED_STREAM = 3917


def planted_spins(rng: np.random.Generator, spins: int, planted: float, informed: float,
                  in_rotor_bin: int | None) -> Spins:
    """One cutoff's spins: ``informed`` of them predicted, ``planted`` of all (or of one
    rotor bin's, three times as often) resting in the predicted pocket."""
    rotor = rng.integers(0, BINS, spins)
    place = rng.integers(0, BINS, spins)
    seen = rng.random(spins) < informed
    share = np.full(spins, planted) if in_rotor_bin is None else np.where(rotor == in_rotor_bin, BINS * planted, 0.0)
    hit = seen & (rng.random(spins) < share)
    offset = np.where(hit, 0, rng.integers(0, POCKETS, spins))
    return Spins(offset, seen, np.where(seen, rotor, 0), np.where(seen, place, 0))


def planted_ladder(seed: int, spins: int, cutoffs: list[float], planted: list[float], informed: list[float],
                   in_rotor_bin: int | None = None) -> Ladder:
    """A campaign of ``spins`` (half fit, half held out) on a wheel with the planted
    edge ``planted[j]`` at cutoff j; the spins of each cutoff drawn afresh from the
    campaign's seed (the ladder's structure is what the verdict reads)."""
    rng = np.random.default_rng([seed, PLANTED_STREAM])
    half = spins // 2
    fit = [planted_spins(rng, half, q, s, in_rotor_bin) for q, s in zip(planted, informed)]
    held = [planted_spins(rng, spins - half, q, s, in_rotor_bin) for q, s in zip(planted, informed)]
    return Ladder(list(cutoffs), fit, held)
