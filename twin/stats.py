"""Randomness statistics for campaigns of drops and spins.

Each test returns a ``TestResult`` with its statistic, p-value and verdict at a
chosen confidence (test labs judge at 95%, 58 Pa. Code 810a.5, or 99%), and,
where it makes sense, the smallest bias the campaign could have detected with
80% power, so that "passed" is never read as "proved fair" on too few samples.

The distributions come from scipy: exact, tested, and not ours to get wrong.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Sequence

DEFAULT_CONFIDENCE = 0.99
DEFAULT_POWER = 0.80


@dataclass(frozen=True)
class TestResult:
    name: str
    statistic: float
    p_value: float
    confidence: float
    detail: str = ""
    detectable: float | None = None   # smallest bias detectable at DEFAULT_POWER (see each test)

    __test__ = False  # not a pytest test class, despite the name

    @property
    def passed(self) -> bool:
        return self.p_value >= 1.0 - self.confidence

    def to_json(self) -> dict:
        data = asdict(self)
        data["passed"] = self.passed
        return data


def _noncentrality_for_power(dof: int, confidence: float, power: float) -> float:
    """The noncentrality a chi-square test with ``dof`` degrees of freedom needs
    to reject at ``confidence`` with probability ``power``."""
    from scipy import optimize, stats   # here, not at the top: replay's Lucky draw needs none of it
    critical = stats.chi2.ppf(confidence, dof)
    return optimize.brentq(lambda lam: stats.ncx2.sf(critical, dof, lam) - power, 1e-9, 1e6)


def detectable_face_bias(samples: int, categories: int, confidence: float = DEFAULT_CONFIDENCE,
                         power: float = DEFAULT_POWER) -> float:
    """The smallest absolute excess probability of ONE category (the others
    sharing the deficit equally) that a chi-square uniformity test on
    ``samples`` draws detects with ``power``. For a die: 0.01 means one face at
    17.67% instead of 16.67%."""
    if samples <= 0:
        return math.inf
    lam = _noncentrality_for_power(categories - 1, confidence, power)
    cohen_w = math.sqrt(lam / samples)
    p0 = 1.0 / categories
    # w^2 = delta^2/p0 + (k-1) * (delta/(k-1))^2 / p0 = delta^2 * k / ((k-1) * p0)
    return cohen_w * math.sqrt((categories - 1) * p0 / categories)


def chi_square_goodness(name: str, observed: Sequence[int], expected_probs: Sequence[float],
                        confidence: float = DEFAULT_CONFIDENCE) -> TestResult:
    """Observed counts against expected probabilities. Cells with tiny expected
    counts are pooled into their neighbour so the chi-square approximation holds
    (each pooled cell expects at least 5)."""
    from scipy import stats   # here, not at the top: replay's Lucky draw needs none of it
    total = sum(observed)
    if total == 0:
        return TestResult(name, 0.0, 1.0, confidence, "no samples", math.inf)
    obs_cells, exp_cells = pool_cells([float(o) for o in observed], [p * total for p in expected_probs])
    if len(obs_cells) < 2:       # every cell pooled into one: nothing to test (scipy would say p = 0)
        return TestResult(name, 0.0, 1.0, confidence, f"too few samples ({total}) for a chi-square", math.inf)
    statistic, p_value = stats.chisquare(obs_cells, exp_cells)
    uniform = len(set(round(p, 12) for p in expected_probs)) == 1
    detectable = detectable_face_bias(total, len(expected_probs), confidence) if uniform else None
    return TestResult(name, float(statistic), float(p_value), confidence,
                      f"chi-square, {len(obs_cells) - 1} degrees of freedom, {total} samples", detectable)


def pool_cells(observed: list[float], expected: list[float],
               minimum: float = 5.0) -> tuple[list[float], list[float]]:
    """Observed and expected counts with adjacent cells pooled until each
    expects at least ``minimum`` (the chi-square's approximation); the last
    short cell joins the one before, observations in cells expecting nothing
    included (bench.rng's tests pool through this too)."""
    obs_out: list[float] = []
    exp_out: list[float] = []
    obs_acc = exp_acc = 0.0
    for o, e in zip(observed, expected):
        obs_acc += o
        exp_acc += e
        if exp_acc >= minimum:
            obs_out.append(obs_acc)
            exp_out.append(exp_acc)
            obs_acc = exp_acc = 0.0
    if exp_acc > 0 or obs_acc > 0:
        if exp_out:
            obs_out[-1] += obs_acc
            exp_out[-1] += exp_acc
        else:
            obs_out.append(obs_acc)
            exp_out.append(exp_acc)
    return obs_out, exp_out


def uniformity(name: str, observed: Sequence[int], confidence: float = DEFAULT_CONFIDENCE) -> TestResult:
    categories = len(observed)
    return chi_square_goodness(name, observed, [1.0 / categories] * categories, confidence)


def independence(name: str, table: Sequence[Sequence[int]], confidence: float = DEFAULT_CONFIDENCE) -> TestResult:
    """Chi-square test of independence on a contingency table (e.g. the loaded
    face against the resting face). Rows and columns that are all zero are
    dropped; Cramér's V is given in the detail as the effect size."""
    from scipy import stats   # here, not at the top: replay's Lucky draw needs none of it
    rows = [list(r) for r in table if sum(r) > 0]
    if not rows:
        return TestResult(name, 0.0, 1.0, confidence, "no samples")
    keep = [j for j in range(len(rows[0])) if sum(r[j] for r in rows) > 0]
    rows = [[r[j] for j in keep] for r in rows]
    if len(rows) < 2 or len(keep) < 2:
        return TestResult(name, 0.0, 1.0, confidence, "fewer than two rows or columns with data")
    chi2, p_value, dof, _ = stats.chi2_contingency(rows, correction=False)
    total = sum(map(sum, rows))
    cramer_v = math.sqrt(chi2 / (total * (min(len(rows), len(keep)) - 1)))
    lam = _noncentrality_for_power(int(dof), confidence, DEFAULT_POWER)
    detectable_v = math.sqrt(lam / (total * (min(len(rows), len(keep)) - 1)))
    return TestResult(name, float(chi2), float(p_value), confidence,
                      f"contingency chi-square, {dof} degrees of freedom, Cramér's V {cramer_v:.3f}, {total} samples",
                      detectable_v)


def serial_correlation(name: str, values: Sequence[float], confidence: float = DEFAULT_CONFIDENCE) -> TestResult:
    """Lag-1 autocorrelation of consecutive results, two-sided against 0
    (normal approximation, standard error 1/sqrt(n)). The detectable figure is
    the smallest |r| rejected with 80% power."""
    from scipy import stats   # here, not at the top: replay's Lucky draw needs none of it
    n = len(values)
    if n < 3:
        return TestResult(name, 0.0, 1.0, confidence, "fewer than 3 values")
    mean = sum(values) / n
    centred = [v - mean for v in values]
    denominator = sum(c * c for c in centred)
    r = 0.0 if denominator == 0 else sum(a * b for a, b in zip(centred, centred[1:])) / denominator
    z = r * math.sqrt(n)
    p_value = 2 * stats.norm.sf(abs(z))
    z_alpha = stats.norm.ppf(1 - (1 - confidence) / 2)
    detectable = (z_alpha + stats.norm.ppf(DEFAULT_POWER)) / math.sqrt(n)
    return TestResult(name, float(r), float(p_value), confidence, f"lag-1 autocorrelation r={r:.4f}, {n} values",
                      detectable)


@dataclass(frozen=True)
class RateInterval:
    successes: int
    trials: int
    low: float
    high: float
    confidence: float

    @property
    def rate(self) -> float:
        return self.successes / self.trials if self.trials else 0.0

    def to_json(self) -> dict:
        return {**asdict(self), "rate": self.rate}


def wilson_interval(successes: int, trials: int, confidence: float = DEFAULT_CONFIDENCE) -> RateInterval:
    """The Wilson score interval for a rate (no-roll rate, invalid spins): sound
    near 0, where the textbook normal interval goes negative. SciPy's
    (``binomtest(...).proportion_ci(method="wilson")``), not one written here."""
    from scipy import stats   # here, not at the top: replay's Lucky draw needs none of it
    if trials == 0:
        return RateInterval(0, 0, 0.0, 1.0, confidence)
    ci = stats.binomtest(int(successes), int(trials)).proportion_ci(confidence_level=confidence, method="wilson")
    # At 0 (or all) successes the bound is exactly 0 (or 1); rounding must not move it.
    low = 0.0 if successes == 0 else max(0.0, float(ci.low))
    high = 1.0 if successes == trials else min(1.0, float(ci.high))
    return RateInterval(successes, trials, low, high, confidence)


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given.

    A campaign runs a family of tests; at 99% each, a fair design would fail
    one of ten about 10% of the time. Judging every adjusted p-value at the
    confidence keeps the chance that a fair design fails ANY test of the
    family at most 1 - confidence (Holm 1979), and is uniformly more powerful
    than plain Bonferroni."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def largest_gap_sf(n: int, gap: float) -> float:
    """P(the largest of the n gaps between n uniform points on a circle of
    circumference 1 is at least ``gap``), exactly (Stevens 1939, Fisher 1929):
    sum over k of (-1)^(k+1) C(n, k) (1 - k gap)^(n-1).

    The terms behave like a Poisson series with mean about n (1 - gap)^(n-1);
    once that mean exceeds 30 the alternating sum would cancel away its
    digits, and the probability is then above 1 - e^-30: 1.0 is returned."""
    if n < 2 or gap <= 0:
        return 1.0
    if gap >= 1:
        return 0.0
    first = n * (1 - gap) ** (n - 1)
    if first > 30:
        return 1.0
    terms = []
    for k in range(1, min(n, int(1 / gap)) + 1):
        rest = 1 - k * gap
        if rest <= 0:
            break
        log_term = (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                    + (n - 1) * math.log(rest))
        if log_term < -745:
            break
        terms.append((1 if k % 2 else -1) * math.exp(log_term))
    return min(1.0, max(0.0, math.fsum(terms)))


def largest_empty_arc(name: str, angles_deg: Sequence[float], confidence: float = DEFAULT_CONFIDENCE) -> TestResult:
    """Is there a zone of the circle no point falls in, wider than a uniform
    sample of this size would leave? The statistic is the widest empty arc in
    degrees; the detectable figure is the narrowest forbidden zone the test
    flags (an empty arc that wide or wider is flagged whatever the rest does).
    Aimed at Thorp's forbidden zone of a tilted roulette wheel."""
    from scipy import optimize   # here, not at the top: replay's Lucky draw needs none of it
    n = len(angles_deg)
    if n < 2:
        return TestResult(name, 0.0, 1.0, confidence, "fewer than 2 angles", math.inf)
    points = sorted(a % 360.0 for a in angles_deg)
    gaps = [(b - a, a) for a, b in zip(points, points[1:])] + [(points[0] + 360.0 - points[-1], points[-1])]
    widest, start = max(gaps)
    p_value = largest_gap_sf(n, widest / 360.0)
    alpha = 1.0 - confidence
    critical = optimize.brentq(lambda x: largest_gap_sf(n, x) - alpha, 1e-12, 1 - 1e-12) * 360.0
    return TestResult(name, float(widest), float(p_value), confidence,
                      f"widest empty arc {widest:.1f} deg from {start:.1f} to {(start + widest) % 360:.1f} deg, "
                      f"{n} angles; a uniform sample leaves at most {critical:.1f} deg empty at "
                      f"{100 * confidence:g}%", critical)


def rate_at_most(name: str, events: int, trials: int, ceiling: float,
                 confidence: float = DEFAULT_CONFIDENCE) -> TestResult:
    """One-sided exact binomial test that a rate (no rolls, invalid spins) is
    at most ``ceiling``: the p-value is P(at least ``events`` | ceiling). The
    detectable figure is the true rate the test flags with 80% power."""
    from scipy import optimize, stats   # here, not at the top: replay's Lucky draw needs none of it
    if trials == 0:
        return TestResult(name, 0.0, 1.0, confidence, "no trials", math.inf)
    p_value = float(stats.binom.sf(events - 1, trials, ceiling)) if events > 0 else 1.0
    alpha = 1.0 - confidence
    # The fewest events that reject: P(X >= c | ceiling) <= alpha.
    c = int(stats.binom.isf(alpha, trials, ceiling)) + 1
    while c > 0 and stats.binom.sf(c - 2, trials, ceiling) <= alpha:
        c -= 1
    while stats.binom.sf(c - 1, trials, ceiling) > alpha:
        c += 1
    if c > trials:
        detectable = math.inf
    else:
        detectable = optimize.brentq(lambda r: stats.binom.sf(c - 1, trials, r) - DEFAULT_POWER,
                                     ceiling, 1.0 - 1e-12)
    rate = events / trials
    return TestResult(name, rate, p_value, confidence,
                      f"{events} of {trials} ({100 * rate:.2f}%) against a ceiling of {100 * ceiling:g}%; "
                      f"{c} or more would be flagged", float(detectable))


def detectable_cell_shift(samples: int, categories: int, cell_prob: float,
                          confidence: float = DEFAULT_CONFIDENCE, power: float = DEFAULT_POWER) -> float:
    """For a chi-square goodness-of-fit test against unequal probabilities
    (the totals of three dice): the smallest absolute shift of ONE cell of
    probability ``cell_prob`` (the others sharing it in proportion) that the
    test detects with ``power``. Cohen's w^2 = delta^2 / (p (1 - p))."""
    if samples <= 0:
        return math.inf
    lam = _noncentrality_for_power(categories - 1, confidence, power)
    return math.sqrt(lam / samples) * math.sqrt(cell_prob * (1 - cell_prob))


def share_test(name: str, successes: int, trials: int, expected: float,
               confidence: float = DEFAULT_CONFIDENCE) -> TestResult:
    """Two-sided exact binomial test of a share against ``expected`` (e.g.
    how often the loaded top face stays on top: 1/6 for a fair tower; a short
    chute keeps it, a tall drop onto a flat tray turns it over). The
    detectable figure is the smallest absolute departure from ``expected``
    flagged with 80% power (normal approximation)."""
    from scipy import stats   # here, not at the top: replay's Lucky draw needs none of it
    if trials == 0:
        return TestResult(name, 0.0, 1.0, confidence, "no trials", math.inf)
    p_value = float(stats.binomtest(successes, trials, expected).pvalue)
    z = stats.norm.ppf(1 - (1 - confidence) / 2) + stats.norm.ppf(DEFAULT_POWER)
    detectable = z * math.sqrt(expected * (1 - expected) / trials)
    share = successes / trials
    return TestResult(name, share, p_value, confidence,
                      f"{successes} of {trials} ({100 * share:.1f}%) against {100 * expected:.1f}%", detectable)
