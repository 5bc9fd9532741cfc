"""What one test of the battery says, the profiles it is judged at, and how
the family of tests is read.

Family rule (docs/rng.md, "Reading the family"): Holm's step-down correction
over every test of the battery at the profile's level alpha = 1 - confidence.
The battery fails when any Holm-adjusted p-value is below alpha. Holm keeps
the chance that a fair generator fails the family at most alpha whatever the
dependence between the tests (Holm 1979), so a compliant controller passes at
least 95% of the time at Pennsylvania's 810a.5(c) level (measured:
benchmarks/rng_battery_bench.py). Each test's own verdict, unadjusted at
alpha, is shown beside it: over thirty tests a fair generator fails one or two
of those by chance, which is why the family is read by the rule and not by
counting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from twin.stats import holm_adjusted

POWER = 0.80        # the power at which each test's smallest detectable deviation is stated


@dataclass(frozen=True)
class Profile:
    name: str
    confidence: float
    clause: str

    @property
    def alpha(self) -> float:
        return 1.0 - self.confidence


PROFILES = {
    "pennsylvania": Profile("pennsylvania", 0.95, "810a.5(c)"),
    # 25 CFR 547.14 and W. Va. Code 29-22B-909 ask 99% (the regulation's note).
    "99": Profile("99", 0.99, "25 CFR 547.14"),
}
DEFAULT_PROFILE = "pennsylvania"


@dataclass(frozen=True)
class Detectable:
    """The smallest deviation a test finds with 80% power at this N: ``value``
    in the units ``measure`` says."""
    value: float
    measure: str

    def to_json(self) -> dict[str, Any]:
        return {"value": None if math.isinf(self.value) else self.value, "measure": self.measure}


@dataclass(frozen=True)
class TestOutcome:
    test: str           # e.g. "gap"
    clause: str         # e.g. "810a.5(c)(3)"
    source: str         # which sequence: "scaled", "raw:high-nibble", "lucky:first", "dice:faces"...
    statistic: float
    p_value: float
    detectable: Detectable
    dof: int | None = None
    n: int = 0          # the values (or bits) the test used
    detail: str = ""
    reference: str = ""   # the textbook section it follows

    __test__ = False    # not a pytest class

    def passed_at(self, profile: Profile) -> bool:
        return self.p_value >= profile.alpha


@dataclass
class FamilyVerdict:
    profile: Profile
    outcomes: list[TestOutcome]
    adjusted: list[float] = field(default_factory=list)
    too_short: list[str] = field(default_factory=list)    # tests that could not run, and why

    def __post_init__(self) -> None:
        self.adjusted = holm_adjusted([o.p_value for o in self.outcomes]) if self.outcomes else []

    @property
    def passed(self) -> bool:
        return bool(self.outcomes) and all(a >= self.profile.alpha for a in self.adjusted)

    @property
    def failed(self) -> list[tuple[TestOutcome, float]]:
        return [(o, a) for o, a in zip(self.outcomes, self.adjusted) if a < self.profile.alpha]

    def rule(self) -> str:
        return (f"Holm over {len(self.outcomes)} tests at {self.profile.confidence:.0%} "
                f"({self.profile.clause}): a fair generator fails with chance at most {self.profile.alpha:.0%}")


def family(outcomes: Sequence[TestOutcome], profile: Profile, too_short: Sequence[str] = ()) -> FamilyVerdict:
    return FamilyVerdict(profile, list(outcomes), too_short=list(too_short))
