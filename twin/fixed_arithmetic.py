"""Products, norms and functions of arrays whose last bits do not depend on the machine.

Measured on numpy 2.4 (docs/reproducibility.md has the table): ``a @ b`` and
``np.dot`` go through BLAS and change with the kernel OpenBLAS picks
(``OPENBLAS_CORETYPE``); ``np.exp``, ``np.tan`` and ``np.log`` on float64
change with numpy's own SIMD dispatch (``NPY_DISABLE_CPU_FEATURES``), since
their AVX-512 loops round otherwise than the scalar ones. Sums, elementwise
arithmetic and ``np.sqrt`` do not (IEEE-754 rounds each operation exactly,
and numpy's pairwise summation has a fixed order). So wherever a result can
decide an outcome (a rest, a leaving point, a camera's matrices, a player's
prediction), the twin uses these instead: a product written as the sum of
its terms in a fixed order, and transcendental functions taken from Python's
``math`` one value at a time (glibc's libm, pinned to one variant by
tablebench_io.portable_math).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np


def matmul(a, b) -> np.ndarray:
    """``a @ b`` for a matrix (or a stack of row vectors) ``a`` and a small
    matrix ``b``, summed over the inner index in order: row k of ``b``
    scaled by column k of ``a``, added one after another."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if b.ndim == 1:
        b = b[:, None]
        return matmul(a, b)[..., 0]
    if a.ndim == 1:
        return matmul(a[None, :], b)[0]
    out = a[:, 0:1] * b[0]
    for k in range(1, b.shape[0]):
        out = out + a[:, k:k + 1] * b[k]
    return out


def dot(a, b) -> float:
    """The dot product of two vectors, summed in order."""
    total = 0.0
    for x, y in zip(np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()):
        total += float(x) * float(y)
    return total


def norm(vector) -> float:
    """The Euclidean length of a vector."""
    return math.sqrt(dot(vector, vector))


def row_norms(rows) -> np.ndarray:
    """The length of each row of a matrix."""
    rows = np.asarray(rows, dtype=float)
    total = rows[:, 0] * rows[:, 0]
    for k in range(1, rows.shape[1]):
        total = total + rows[:, k] * rows[:, k]
    return np.sqrt(total)


def _each(function: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    def apply(values) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        return np.fromiter((function(x) for x in values.ravel().tolist()), dtype=float,
                           count=values.size).reshape(values.shape)
    apply.__doc__ = f"``math.{function.__name__}`` of each value (not numpy's SIMD loops)."
    return apply


cos, sin, tan, exp, expm1 = (_each(f) for f in (math.cos, math.sin, math.tan, math.exp, math.expm1))
