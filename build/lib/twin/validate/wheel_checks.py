"""The fairness checks of a wheel campaign (a single-zero wheel, 58 Pa. Code
617c.3(a): every pocket equally likely).

Runs are spin records (``twin.validate.runs.wheel_run``). Pockets and sectors
are judged on valid spins; leaving angles on every spin whose ball left the
track. A tilted wheel shows first in WHERE the ball leaves the track: the
slow ball cannot climb the raised side, so a zone of the track is never left
from (Thorp's forbidden zone). Its pockets may still look uniform, because the
rotor's phase is random; that is why the leaving angle has its own checks:
the widest empty arc (exact distribution of the largest gap between uniform
points on a circle) and a chi-square over twelve 30-degree bins. Sectors are
six runs of neighbouring pockets on the rotor: a rotor defect (a loose fret,
a shallow pocket) favours neighbours, which a 37-cell test sees late.

INVALID_CEILING is this project's choice: a dealer spins again after an
invalid spin, but a design that needs that more than once in a hundred spins
is not ready.
"""

from __future__ import annotations

from collections import Counter

from twin.stats import chi_square_goodness, detectable_face_bias, largest_empty_arc, rate_at_most, uniformity
from twin.validate.verdict import Check

INVALID_CEILING = 0.01
SECTORS = 6
ANGLE_BINS = 12
NOT_LEFT = "the ball did not leave the track in time"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _size(x: float | None, fmt: str = "{:.1%}", what: str = "", unless: str = "") -> str:
    """A detectable figure in words, or why there is none (too few runs)."""
    if x is None or x != x or x == float("inf") or ("%" in fmt and x >= 1):
        return "none: too few spins"
    return what + fmt.format(x) + unless


def sectors_of(pockets: tuple[int, ...], count: int = SECTORS) -> list[list[int]]:
    """``count`` runs of neighbouring pockets in the wheel's order, sizes differing by at most one."""
    n = len(pockets)
    bounds = [round(i * n / count) for i in range(count + 1)]
    return [list(pockets[a:b]) for a, b in zip(bounds, bounds[1:])]


def _pocket_check(numbers: list[int], pockets: tuple[int, ...], confidence: float) -> Check:
    counts = Counter(numbers)
    order = list(pockets)
    observed = [counts[p] for p in sorted(order)]
    result = uniformity("pockets", observed, confidence)
    n = max(1, len(numbers))
    k = len(order)
    hot = max(order, key=lambda p: counts[p])
    cold = min(order, key=lambda p: counts[p])
    return Check("pocket_uniformity", f"All {k} pockets equally likely (617c.3(a))", result,
                 _size(result.detectable and 1 / k + result.detectable, what="one pocket at ", unless=f" instead of {_pct(1 / k)}"),
                 f"pocket {hot} won {counts[hot]} times and pocket {cold} {counts[cold]} times in "
                 f"{len(numbers)} valid spins (fair: {len(numbers) / k:.1f} each)",
                 data={"wheel_order": order, "observed_in_wheel_order": [counts[p] for p in order],
                       "expected": n / k if numbers else 0.0})


def _sector_check(numbers: list[int], pockets: tuple[int, ...], confidence: float) -> Check:
    sectors = sectors_of(pockets)
    where = {p: i for i, s in enumerate(sectors) for p in s}
    counts = Counter(where[n] for n in numbers)
    observed = [counts[i] for i in range(len(sectors))]
    probs = [len(s) / len(pockets) for s in sectors]
    result = chi_square_goodness("sectors", observed, probs, confidence)
    n = max(1, len(numbers))
    detectable = detectable_face_bias(len(numbers), len(sectors), confidence)
    worst = max(range(len(sectors)), key=lambda i: abs(counts[i] / n - probs[i]))
    first, last = sectors[worst][0], sectors[worst][-1]
    return Check("sector_bias", f"No sector of {len(pockets) // SECTORS}-{-(-len(pockets) // SECTORS)} "
                 "neighbouring pockets favoured", result,
                 _size(1 / SECTORS + detectable, what="one sector at ", unless=f" instead of {_pct(1 / SECTORS)}"),
                 f"the sector {first} ... {last} took {counts[worst]} of {len(numbers)} valid spins "
                 f"({_pct(counts[worst] / n)}; fair: {_pct(probs[worst])})",
                 data={"sectors": sectors, "observed": observed, "expected": [p * len(numbers) for p in probs]})


def _arc_check(angles: list[float], confidence: float) -> Check:
    result = largest_empty_arc("leaving angle", angles, confidence)
    points = sorted(a % 360.0 for a in angles)
    start = end = None
    if len(points) >= 2:
        gaps = [(b - a, a) for a, b in zip(points, points[1:])] + [(points[0] + 360.0 - points[-1], points[-1])]
        width, start = max(gaps)
        end = (start + width) % 360.0
    return Check("leaving_angle_empty_arc", "No zone of the track the ball never leaves from", result,
                 _size(result.detectable, "{:.1f} deg", "a forbidden zone of "),
                 (f"no ball left the track between {start:.0f} and {end:.0f} deg: an empty arc of "
                  f"{result.statistic:.1f} deg in {len(angles)} spins, where a uniform sample leaves at most "
                  f"{result.detectable:.1f} deg empty at {100 * confidence:g}%") if start is not None
                 else "too few spins",
                 data={"angles": angles, "empty_from_deg": start, "empty_to_deg": end})


def _angle_bins_check(angles: list[float], confidence: float) -> Check:
    width = 360 / ANGLE_BINS
    counts = Counter(int((a % 360.0) // width) for a in angles)
    observed = [counts[i] for i in range(ANGLE_BINS)]
    result = uniformity("leaving angle bins", observed, confidence)
    n = max(1, len(angles))
    lo = min(range(ANGLE_BINS), key=lambda i: counts[i])
    return Check("leaving_angle_uniformity", f"Leaving angles uniform over {ANGLE_BINS} bins of {width:g} deg",
                 result, _size(result.detectable and 1 / ANGLE_BINS + result.detectable, what="one bin at ",
                       unless=f" instead of {_pct(1 / ANGLE_BINS)}"),
                 f"the emptiest bin, {lo * width:g}-{(lo + 1) * width:g} deg, holds {counts[lo]} of {len(angles)} "
                 f"leaving points ({_pct(counts[lo] / n)}; fair: {_pct(1 / ANGLE_BINS)})",
                 data={"observed": observed})


def _invalid_check(records: list[dict], confidence: float) -> Check:
    invalid = [r for r in records if not r["valid"]]
    result = rate_at_most("invalid spins", len(invalid), len(records), INVALID_CEILING, confidence)
    reasons = Counter(r["invalid_reason"] for r in invalid)
    why = "; ".join(f"{v} x {k}" for k, v in reasons.most_common()) or "none"
    return Check("invalid_spin_rate", f"Invalid spins at most {_pct(INVALID_CEILING)}", result,
                 _size(result.detectable, what="an invalid rate of "),
                 f"{len(invalid)} invalid spins in {len(records)} ({100 * len(invalid) / max(1, len(records)):.2f}%): "
                 f"{why}", data={"invalid": len(invalid)})


def wheel_checks(records: list[dict], confidence: float, design) -> list[Check]:
    """The checks of a wheel campaign, in the order a report shows them."""
    numbers = [r["number"] for r in records if r["valid"]]
    angles = [r["leave_angle_deg"] for r in records if r["invalid_reason"] != NOT_LEFT]
    return [_pocket_check(numbers, design.pockets, confidence),
            _sector_check(numbers, design.pockets, confidence),
            _arc_check(angles, confidence),
            _angle_bins_check(angles, confidence),
            _invalid_check(records, confidence)]
