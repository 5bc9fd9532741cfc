"""The Lucky Number RNG battery of 58 Pa. Code § 810a.5 (``bench rng``,
docs/rng.md): the fifteen tests 810a.5(c) names, over sequences of integers
in a range (scaled values, Lucky positions, dice faces, wheel pockets) and
the bit tests over raw words, each with its statistic, p-value, verdict at the
profile's confidence and the smallest deviation it could detect at this N;
the family read by Holm's rule; repeats across sessions."""
