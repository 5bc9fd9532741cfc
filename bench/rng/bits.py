"""Bit tests of the raw words, before scaling: NIST SP 800-22 rev. 1a's
frequency (monobit, 2.1), frequency within a block (2.2), runs (2.3) and
longest run of ones in a block (2.4), and the frequency of each bit position
of the word (not NIST's: a stuck bit hides in the monobit count of all bits,
not in its own position's).

Written here, after looking at the Python implementations: nistrng (last
release 2021), sts-pylib (a C wrapper, 2020) and coinflip (2020) are not kept
up and pull in their own numerics; the four tests are short, and their
p-values are SciPy's (``erfc``, ``gammaincc``, ``chi2``). The category
probabilities of 2.4 are computed exactly (a count of bit strings by their
longest run) rather than copied from the tables.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

import numpy as np
from scipy import special, stats

from bench.rng.chisq import TooShort
from bench.rng.outcome import Detectable, TestOutcome
from bench.rng.power import cohen_w, noncentrality, z_shift

NIST = "NIST SP 800-22 rev. 1a"
WORD_BITS = 32


def bits_of(words: Sequence[int]) -> np.ndarray:
    """The words' bits, most significant first, as 0/1 uint8."""
    array = np.asarray(words, dtype=">u4")
    return np.unpackbits(array.view(np.uint8))


def _need(n: int, needed: int, what: str) -> None:
    if n < needed:
        raise TooShort(f"{what} needs {needed} bits, has {n}")


def monobit(bits: np.ndarray, alpha: float, source: str) -> TestOutcome:
    n = len(bits)
    _need(n, 100, "the frequency (monobit) test")
    s = int(2 * int(bits.sum()) - n)
    s_obs = abs(s) / math.sqrt(n)
    return TestOutcome("frequency (monobit)", "810a.5(c)(2)", source, s_obs, float(special.erfc(s_obs / math.sqrt(2))),
                       Detectable(z_shift(0.5 / math.sqrt(n), alpha), "excess of P(bit = 1) over 1/2"),
                       n=n, detail=f"ones {int(bits.sum())} of {n}", reference=f"{NIST} 2.1")


BLOCK = 128


def block_frequency(bits: np.ndarray, alpha: float, source: str) -> TestOutcome:
    n = len(bits)
    blocks = n // BLOCK
    _need(n, BLOCK * 20, "the frequency within a block test")
    share = bits[:blocks * BLOCK].reshape(blocks, BLOCK).mean(axis=1)
    chi = float(4 * BLOCK * ((share - 0.5) ** 2).sum())
    return TestOutcome("frequency within a block", "810a.5(c)(2)", source, chi,
                       float(special.gammaincc(blocks / 2, chi / 2)),
                       Detectable(math.sqrt(noncentrality(blocks, alpha) / (4 * BLOCK * blocks)),
                                  "root mean square shift of a block's share of ones"),
                       dof=blocks, n=blocks * BLOCK, detail=f"{blocks} blocks of {BLOCK}", reference=f"{NIST} 2.2")


def bit_runs(bits: np.ndarray, alpha: float, source: str) -> TestOutcome:
    n = len(bits)
    _need(n, 100, "the runs test")
    pi = float(bits.mean())
    if abs(pi - 0.5) >= 2 / math.sqrt(n):       # NIST's prerequisite: the monobit test must pass
        p_value, runs_seen = 0.0, 0
    else:
        runs_seen = 1 + int((bits[1:] != bits[:-1]).sum())
        p_value = float(special.erfc(abs(runs_seen - 2 * n * pi * (1 - pi))
                                     / (2 * math.sqrt(2 * n) * pi * (1 - pi))))
    return TestOutcome("runs of bits", "810a.5(c)(11)", source, float(runs_seen), p_value,
                       Detectable(z_shift(math.sqrt(n) / 2, alpha) / n, "change in the share of bits that differ "
                                                                         "from the one before"),
                       n=n, detail=f"{runs_seen} runs" if runs_seen else "monobit prerequisite failed",
                       reference=f"{NIST} 2.3")


@lru_cache(maxsize=16)
def longest_run_probabilities(block: int, low: int, high: int) -> tuple[float, ...]:
    """P(the longest run of ones in ``block`` fair bits is <= low, low+1, ..., >= high), exactly."""
    def at_most(k: int) -> int:
        # strings of length ``block`` with no run of ones longer than k: count by the current run length
        counts = [1] + [0] * k
        for _ in range(block):
            total = sum(counts)
            counts = [total] + counts[:-1]
        return sum(counts)
    cumulative = [at_most(k) for k in range(low, high)]
    whole = 2 ** block
    cells = [cumulative[0]] + [b - a for a, b in zip(cumulative, cumulative[1:])] + [whole - cumulative[-1]]
    return tuple(c / whole for c in cells)


def longest_run(bits: np.ndarray, alpha: float, source: str) -> TestOutcome:
    n = len(bits)
    _need(n, 6272, "the longest run of ones test (NIST's M = 128)")
    block, low, high = (10_000, 10, 16) if n >= 750_000 else (128, 4, 9)
    blocks = n // block
    array = bits[:blocks * block].reshape(blocks, block)
    longest = np.zeros(blocks, dtype=np.int64)
    run = np.zeros(blocks, dtype=np.int64)
    for column in array.T:
        run = (run + 1) * column
        np.maximum(longest, run, out=longest)
    observed = np.bincount(np.clip(longest, low, high) - low, minlength=high - low + 1)
    probabilities = np.array(longest_run_probabilities(block, low, high))
    result = stats.chisquare(observed, probabilities * blocks)
    dof = high - low
    return TestOutcome("longest run of ones", "810a.5(c)(11)", source, float(result.statistic), float(result.pvalue),
                       Detectable(cohen_w(blocks, dof, alpha), "Cohen's w over the blocks' longest runs"),
                       dof=dof, n=blocks * block, detail=f"{blocks} blocks of {block}", reference=f"{NIST} 2.4")


def bit_positions(words: Sequence[int], alpha: float, source: str) -> TestOutcome:
    """Each of the 32 bit positions set half the time: the sum of the 32
    squared z-scores is chi-square with 32 degrees of freedom."""
    n = len(words)
    if n < 100:
        raise TooShort(f"the bit position test needs 100 words, has {n}")
    bits = bits_of(words).reshape(n, WORD_BITS)
    ones = bits.sum(axis=0).astype(float)
    z = (ones - n / 2) / math.sqrt(n / 4)
    chi = float((z * z).sum())
    worst = int(np.argmax(np.abs(z)))
    return TestOutcome("bit positions", "810a.5(c)(2)", source, chi, float(stats.chi2.sf(chi, WORD_BITS)),
                       Detectable(math.sqrt(noncentrality(WORD_BITS, alpha) / n) / 2,
                                  "excess of one bit position's P(1) over 1/2"),
                       dof=WORD_BITS, n=n, detail=f"bit {WORD_BITS - 1 - worst} set {int(ones[worst])} of {n} times",
                       reference="per bit position; after NIST SP 800-22 rev. 1a 2.1")
