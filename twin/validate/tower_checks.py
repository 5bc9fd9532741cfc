"""The fairness checks of a tower campaign (58 Pa. Code 625b.2(c): the tower
must "determine dice outcomes in a randomized fashion").

Runs are drop records (``twin.validate.runs.tower_run``). Faces, totals and
the load are judged on the drops that count, i.e. not "no roll"
(625b.2(d)(5)). The loaded faces vary from drop to drop (random loading drawn
from each drop's seed), so that every row of the loaded-face table has data
and the contingency test has power. The dealer's real procedure, reloading
the dice as they came out (625b.2(d)(6)), would make the loaded face the
previous drop's face: the same dependence, seen as serial correlation, but
the drops of a chain could not run in parallel.

NO_ROLL_CEILING is this project's choice, not a regulation's: the rules only
say a no roll returns the wagers (625b.2(d)(5)); a tower that cocks a die in
more than one drop in twenty wastes the table's time and is flagged.
"""

from __future__ import annotations

import itertools
import statistics
from collections import Counter

from twin.stats import (TestResult, chi_square_goodness, detectable_cell_shift, independence, rate_at_most,
                        serial_correlation, share_test, uniformity, wilson_interval)
from twin.pvalue import p_equals
from twin.validate.verdict import Check

FACES = range(1, 7)
REASONS = {"wall": "leaning on a wall", "die": "on another die", "edge": "touching nothing but the floor",
           "unsettled": "drop never settled"}
NO_ROLL_CEILING = 0.05
TOTALS = range(3, 19)
# The exact distribution of the total of three fair dice: ways out of 216.
TOTAL_WAYS = Counter(sum(t) for t in itertools.product(FACES, repeat=3))
TOTAL_PROBS = [TOTAL_WAYS[t] / 216 for t in TOTALS]


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _size(x: float | None, fmt: str = "{:.3f}", what: str = "") -> str:
    """A detectable figure in words, or why there is none (too few runs)."""
    if x is None or x != x or x == float("inf") or ("%" in fmt and x >= 1):
        return "none: too few drops"
    return what + fmt.format(x)


def _face_check(die: int, faces: list[int], confidence: float) -> Check:
    counts = Counter(faces)
    observed = [counts[f] for f in FACES]
    result = uniformity(f"die {die} faces", observed, confidence)
    n = max(1, len(faces))
    worst = max(FACES, key=lambda f: abs(counts[f] / n - 1 / 6))
    return Check(f"faces_die_{die}", f"Faces of die {die} uniform", result,
                 _size(result.detectable and 1 / 6 + result.detectable, "{:.1%}", "one face at ") + " instead of 16.7%",
                 f"face {worst} came up {counts[worst]} times in {len(faces)} ({_pct(counts[worst] / n)}; "
                 f"fair: 16.7%)", data={"observed": observed})


def _totals_check(totals: list[int], confidence: float) -> Check:
    counts = Counter(totals)
    observed = [counts[t] for t in TOTALS]
    result = chi_square_goodness("totals", observed, TOTAL_PROBS, confidence)
    n = max(1, len(totals))
    # The detectable bias, told for the likeliest totals (10 and 11, 27/216 each).
    p10 = TOTAL_WAYS[10] / 216
    delta = detectable_cell_shift(n, len(TOTALS), p10, confidence)
    worst = max(TOTALS, key=lambda t: abs(counts[t] / n - TOTAL_WAYS[t] / 216) / (TOTAL_WAYS[t] / 216) ** 0.5)
    return Check("totals", "Totals match three fair dice", result,
                 _size(p10 + delta, "{:.1%}", "total 10 at ") + " instead of 12.5%",
                 f"total {worst} came up {counts[worst]} times in {len(totals)} ({_pct(counts[worst] / n)}; "
                 f"fair: {_pct(TOTAL_WAYS[worst] / 216)})",
                 data={"observed": observed, "expected": [p * len(totals) for p in TOTAL_PROBS]})


def _pair_check(a: int, b: int, drops: list[dict], confidence: float) -> Check:
    table = [[0] * 6 for _ in FACES]
    for r in drops:
        table[r["faces"][a] - 1][r["faces"][b] - 1] += 1
    result = independence(f"dice {a + 1} and {b + 1}", table, confidence)
    doubles = sum(table[i][i] for i in range(6)) / max(1, len(drops))
    return Check(f"independence_dice_{a + 1}_{b + 1}", f"Dice {a + 1} and {b + 1} independent", result,
                 _size(result.detectable, what="Cramér's V "),
                 f"dice {a + 1} and {b + 1} showed the same face in {_pct(doubles)} of drops (fair: 16.7%)")


def _loaded_check(drops: list[dict], confidence: float) -> Check:
    """The resting face against the loaded face, judged two ways and the
    smaller p-value taken with a Bonferroni factor of 2: the 6x6 contingency
    test sees any dependence; the share of dice whose loaded top face stayed
    on top, against 1/6, is far more powerful for the common one (a tower
    that lets dice keep, or flip, the face they were loaded with)."""
    table = [[0] * 6 for _ in FACES]
    for r in drops:
        for loaded, face in zip(r["loaded"], r["faces"]):
            table[loaded - 1][face - 1] += 1
    contingency = independence("loaded face", table, confidence)
    dice = sum(map(sum, table))
    kept = sum(table[i][i] for i in range(6))
    share = share_test("loaded face kept", kept, dice, 1 / 6, confidence)
    result = TestResult("loaded face", contingency.statistic, min(1.0, 2 * min(contingency.p_value, share.p_value)),
                        confidence, f"{contingency.detail}; kept on top: {share.detail} ({p_equals(share.p_value)}); "
                                    f"the smaller p-value times 2", contingency.detectable)
    interval = wilson_interval(kept, dice, confidence)
    return Check("loaded_face_dependence", "Resting face independent of the loaded face", result,
                 _size(result.detectable, what="Cramér's V ") + "; "
                 + _size(share.detectable, fmt="{:.1%}", what="a kept share off 16.7% by "),
                 f"the face loaded on top stayed on top for {kept} of {dice} dice ({_pct(interval.rate)}, "
                 f"{100 * confidence:g}% interval {_pct(interval.low)}-{_pct(interval.high)}; fair: 16.7%)",
                 data={"table": table, "kept": kept, "dice": dice})


def _serial_check(drops: list[dict], confidence: float) -> Check:
    totals = [sum(r["faces"]) for r in drops]     # in seed order: consecutive drops
    result = serial_correlation("totals lag 1", totals, confidence)
    return Check("serial_correlation", "Consecutive drops uncorrelated", result,
                 _size(result.detectable, what="|r| "),
                 f"consecutive totals correlate with r = {result.statistic:+.3f} over {len(totals)} drops")


def _no_roll_check(records: list[dict], confidence: float) -> Check:
    no_rolls = sum(r["no_roll"] for r in records)
    result = rate_at_most("no roll", no_rolls, len(records), NO_ROLL_CEILING, confidence)
    interval = wilson_interval(no_rolls, len(records), confidence)
    reasons = Counter(REASONS.get(reason, reason) for r in records if r["no_roll"]
                      for reason in r["not_flat"] or ["unsettled"])
    why = ", ".join(f"{k} {v}" for k, v in reasons.most_common()) or "none"
    return Check("no_roll_rate", f"No-roll rate at most {_pct(NO_ROLL_CEILING)} (625b.2(d)(5))", result,
                 _size(result.detectable, "{:.1%}", "a no-roll rate of "),
                 f"{no_rolls} no rolls in {len(records)} drops: {100 * interval.rate:.2f}% "
                 f"({100 * confidence:g}% interval {100 * interval.low:.2f}-{100 * interval.high:.2f}%); "
                 f"dice not flat: {why}",
                 data={"interval": interval.to_json(), "ceiling": NO_ROLL_CEILING})


def _settle_description(records: list[dict]) -> Check:
    times = sorted(r["settle_time_s"] for r in records if r["settled"])
    unsettled = sum(not r["settled"] for r in records)
    if times:
        q = statistics.quantiles(times, n=20) if len(times) > 1 else [times[0]] * 19
        finding = (f"at rest after {times[0]:.2f}-{times[-1]:.2f} s (median {statistics.median(times):.2f} s, "
                   f"95th percentile {q[18]:.2f} s); {unsettled} drops never settled")
    else:
        finding = f"no drop settled ({unsettled} unsettled)"
    return Check("settle_time", "Settle time (a description, no verdict)", None, "n/a", finding,
                 data={"times": times, "unsettled": unsettled})


def tower_checks(records: list[dict], confidence: float, design=None) -> list[Check]:
    """The checks of a tower campaign, in the order a report shows them."""
    counted = [r for r in records if not r["no_roll"]]
    checks = [_face_check(i + 1, [r["faces"][i] for r in counted], confidence) for i in range(3)]
    checks.append(_totals_check([sum(r["faces"]) for r in counted], confidence))
    checks += [_pair_check(a, b, counted, confidence) for a, b in ((0, 1), (0, 2), (1, 2))]
    checks.append(_loaded_check(counted, confidence))
    checks.append(_serial_check(counted, confidence))
    checks.append(_no_roll_check(records, confidence))
    checks.append(_settle_description(records))
    return checks
