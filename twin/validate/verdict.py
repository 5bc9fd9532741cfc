"""A check of a campaign, and the verdict over the family of checks.

Each check keeps its test's raw p-value and gets a Holm-adjusted one
(``twin.stats.holm_adjusted``) over the family of its campaign; its verdict
is the adjusted p-value against 1 - confidence. Without the correction ten
tests at 99% would fail a fair design about one campaign in ten; with it, a
fair design fails any of them at most one campaign in a hundred (at 99%),
which is what "the design passes at 99%" should mean. A check outside the
family (a description, such as the settle times) has no verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from twin.pvalue import format_p
from twin.stats import TestResult, holm_adjusted


@dataclass
class Check:
    key: str                   # machine name, e.g. "loaded_face_dependence"
    title: str                 # what a person reads
    result: TestResult | None  # None: a description without a test
    detectable: str            # the smallest bias the campaign could see, in words
    finding: str               # what the campaign saw, in words
    adjusted_p: float = math.nan
    confidence: float = 0.99
    data: dict = field(default_factory=dict)   # what the report's pictures need

    @property
    def tested(self) -> bool:
        return self.result is not None

    @property
    def passed(self) -> bool | None:
        if self.result is None:
            return None
        return self.adjusted_p >= 1.0 - self.confidence

    def to_json(self) -> dict:
        out = {"key": self.key, "title": self.title, "passed": self.passed, "finding": self.finding,
               "smallest_detectable_bias": self.detectable}
        if self.result is not None:
            out.update(statistic=_number(self.result.statistic), p_value=_number(self.result.p_value),
                       adjusted_p_value=_number(self.adjusted_p), detail=self.result.detail,
                       p_value_text=format_p(self.result.p_value), adjusted_p_value_text=format_p(self.adjusted_p),
                       detectable=_number(self.result.detectable))
        return out


def _number(x: float | None):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return None if x is None or math.isnan(x) else str(x)
    return x


def judge(checks: list[Check], confidence: float) -> list[Check]:
    """Fill in each tested check's Holm-adjusted p-value over the family."""
    family = [c for c in checks if c.tested]
    results = [c.result for c in family if c.result is not None]     # each of the family's: tested, it has one
    # A test with too few runs to compute (a NaN p-value) cannot reject.
    p_values = [r.p_value if math.isfinite(r.p_value) else 1.0 for r in results]
    for check, adjusted in zip(family, holm_adjusted(p_values)):
        check.adjusted_p = adjusted
    for c in checks:
        c.confidence = confidence
    return checks


# What a failed check means, for a person deciding what to fix.
MEANING = {
    "loaded_face_dependence": "A tower that randomises tumbles the dice so much that the face loaded on top "
                              "stays up one time in six. These dice barely turned over on the way down: the "
                              "body needs obstacles that make them deflect and tumble (625b.2(c)(3)).",
    "faces_die": "One die shows some faces more often than a fair die would: a die or its path is biased.",
    "totals": "The totals do not follow three fair, independent dice.",
    "independence": "Two dice land together more (or less) often than chance: they move as a pair.",
    "serial_correlation": "A drop's result depends on the drop before it.",
    "no_roll_rate": "Too many drops end with a die not flat on the tray (a no roll, 625b.2(d)(5)): "
                    "the tray or the dice's material lets dice lean or balance.",
    "pocket_uniformity": "Some pockets win more often than 1 in 37 (617c.3(a)).",
    "sector_bias": "A run of neighbouring pockets wins more than its share: look at that part of the rotor.",
    "leaving_angle": "A level wheel lets the ball leave the track anywhere. A zone it never leaves from is the "
                     "mark of a tilted wheel (Thorp's forbidden zone), which a player timing the ball can "
                     "exploit: level the wheel.",
    "invalid_spin_rate": "Too many spins end without a valid pocket.",
}


def meaning_of(key: str) -> str:
    for prefix, text in MEANING.items():
        if key.startswith(prefix):
            return text
    return ""
