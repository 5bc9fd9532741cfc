"""The battery: every test 810a.5(c) names over one sequence of integers in
a range, the bit tests over raw words, and the family read by Holm's rule
(``bench.rng.outcome``). A test the sequence is too short for is not run and
says what it needs; it is not counted as passed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from bench.rng import bits, frequency, patterns, recurrence, serial
from bench.rng.chisq import TooShort
from bench.rng.outcome import TestOutcome

IntegerTest = Callable[[Sequence[int], int, float, str], TestOutcome]

# In the order 810a.5(c) lists them; "recurrence" is (c)(11)'s "patterns of
# occurrences should not be recurrent", beside its runs test.
INTEGER_TESTS: tuple[tuple[str, IntegerTest], ...] = (
    ("810a.5(c)(1)", frequency.chi_square),
    ("810a.5(c)(2)", frequency.equidistribution),
    ("810a.5(c)(3)", patterns.gap),
    ("810a.5(c)(4)", serial.overlaps),
    ("810a.5(c)(5)", patterns.poker),
    ("810a.5(c)(6)", patterns.coupon_collector),
    ("810a.5(c)(7)", patterns.permutation),
    ("810a.5(c)(8)", frequency.kolmogorov_smirnov),
    ("810a.5(c)(9)", serial.adjacency),
    ("810a.5(c)(10)", patterns.order_statistic),
    ("810a.5(c)(11)", serial.runs),
    ("810a.5(c)(11)", recurrence.recurrence),
    ("810a.5(c)(12)", serial.interplay_correlation),
    ("810a.5(c)(13)", serial.serial_correlation),
    ("810a.5(c)(14)", frequency.subsequences),
    ("810a.5(c)(15)", frequency.poisson),
)

# The physical randomiser (dice faces, wheel pockets): the tests that apply
# where the design is meant to be uniform over its faces or pockets.
PHYSICAL_TESTS = ("810a.5(c)(1)", "810a.5(c)(3)", "810a.5(c)(9)", "810a.5(c)(11)", "810a.5(c)(13)")


@dataclass
class Run:
    outcomes: list[TestOutcome] = field(default_factory=list)
    too_short: list[str] = field(default_factory=list)

    def extend(self, other: "Run") -> None:
        self.outcomes += other.outcomes
        self.too_short += other.too_short


def integers(values: Sequence[int], size: int, alpha: float, source: str,
             only: Sequence[str] | None = None) -> Run:
    """Every integer test (or those of the clauses ``only``) on ``values`` in ``range(size)``."""
    values = [int(v) for v in values]
    bad = next((v for v in values if not 0 <= v < size), None)
    if bad is not None:
        raise ValueError(f"{source}: value {bad} outside 0..{size - 1}")
    run = Run()
    for clause, test in INTEGER_TESTS:
        if only is not None and clause not in only:
            continue
        try:
            run.outcomes.append(test(values, size, alpha, source))
        except TooShort as err:
            run.too_short.append(f"{source}: {err}")
    return run


NIBBLE = 16


def raw_words(words: Sequence[int], alpha: float, source: str = "raw") -> Run:
    """The raw 32-bit words: the NIST bit tests, the bit positions, the KS
    test on word / 2^32, and the integer battery on the high and the low
    four bits of each word (a defect of the low bits, which a scaling by the
    high bits hides, shows there)."""
    run = Run()
    array = np.asarray(words, dtype=np.uint64)
    if array.size and int(array.max()) >= 1 << bits.WORD_BITS:
        raise ValueError(f"{source}: a raw word over 32 bits")
    stream = bits.bits_of([int(w) for w in array])
    for test in (bits.monobit, bits.block_frequency, bits.bit_runs, bits.longest_run):
        try:
            run.outcomes.append(test(stream, alpha, f"{source}:bits"))
        except TooShort as err:
            run.too_short.append(f"{source}:bits: {err}")
    try:
        run.outcomes.append(bits.bit_positions([int(w) for w in array], alpha, f"{source}:bits"))
        run.outcomes.append(frequency.kolmogorov_smirnov_unit(array / float(1 << bits.WORD_BITS), alpha,
                                                              f"{source}:words", "word / 2^32"))
    except TooShort as err:
        run.too_short.append(f"{source}: {err}")
    run.extend(integers((array >> 28).tolist(), NIBBLE, alpha, f"{source}:high-nibble"))
    run.extend(integers((array & 0xF).tolist(), NIBBLE, alpha, f"{source}:low-nibble"))
    return run
