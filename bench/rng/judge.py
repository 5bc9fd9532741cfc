"""``bench rng``'s judgement of a set of files: the battery on the raw and
scaled values of collections and on the Lucky draws of journals (one family,
the RNG's), the physical randomiser's tests on the faces or pockets beside
it (a family of its own: another device), the Lucky draw's independence of
the previous game and the draws' non-repeatability across sessions."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

from scipy import stats

from bench.rng import battery, recurrence
from bench.rng.outcome import Detectable, FamilyVerdict, Profile, TestOutcome, family
from bench.rng.power import z_shift
from bench.rng.sources import Draws, SourceError


@dataclass
class Judgement:
    profile: Profile
    files: list[Draws]
    rng: FamilyVerdict
    physical: FamilyVerdict | None
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.rng.passed and (self.physical is None or self.physical.passed or not self.physical.outcomes)

    def families(self) -> list[tuple[str, FamilyVerdict]]:
        """The families judged: the RNG's, and the physical randomiser's where the files had one."""
        out = [("rng", self.rng)]
        if self.physical is not None:
            out.append(("physical", self.physical))
        return out

    def failures(self) -> list:
        return [f for _, fam in self.families() for f in fam.failed]

    def verdict(self) -> str:
        """fail: a Holm-adjusted p-value under alpha; too-short: none, but a test
        could not run (a pass would claim what was not tested); pass."""
        if self.failures():
            return "fail"
        if not self.rng.outcomes or any(fam.too_short for _, fam in self.families()):
            return "too-short"
        return "pass"


def after_win(again: Sequence[bool], rate: float, alpha: float) -> TestOutcome:
    """810a.5(c)(13), "outcomes should be independent of the previous game":
    after a round whose Lucky Number won, how often that number is Lucky again,
    against its chance in any round (the submission's E[k] / positions); an
    exact two-sided binomial test (SciPy's binomtest)."""
    trials, hits = len(again), sum(again)
    result = stats.binomtest(hits, trials, rate)
    return TestOutcome("independence of the previous game", "810a.5(c)(13)", "lucky:after-win", float(hits),
                       float(result.pvalue),
                       Detectable(z_shift(math.sqrt(rate * (1 - rate) / trials), alpha),
                                  "excess of the chance a Lucky winner is Lucky again"),
                       n=trials, detail=f"Lucky again in {hits} of {trials} rounds after it won, "
                                        f"{rate * trials:.1f} expected",
                       reference="exact binomial test")


MIN_AFTER_WIN = 20


def judge(files: Sequence[Draws], profile: Profile) -> Judgement:
    alpha = profile.alpha
    run, physical = battery.Run(), battery.Run()
    notes: list[str] = []
    games = {d.game for d in files if d.lucky_first or d.physical}
    if len(games) > 1:
        raise SourceError(f"the files are of {len(games)} games ({', '.join(sorted(map(str, games)))}): "
                          "judge one game's at a time")
    for d in files:
        notes += [f"{d.path}: {n}" for n in d.notes]
        if d.raw:
            run.extend(battery.raw_words(d.raw, alpha, f"raw({_name(d)})"))
        if d.scaled:
            run.extend(battery.integers(d.scaled, d.scaled_size, alpha, f"scaled({_name(d)})"))
    journals = [d for d in files if d.lucky_first]
    if journals:
        positions = journals[0].positions
        lucky = [v for d in journals for v in d.lucky_first]
        run.extend(battery.integers(lucky, len(positions), alpha, "lucky:first"))
        again = [a for d in journals for a in d.again]
        if len(again) >= MIN_AFTER_WIN:
            run.outcomes.append(after_win(again, journals[0].lucky_rate, alpha))
        else:
            run.too_short.append(f"lucky:after-win: the independence of the previous game needs "
                                 f"{MIN_AFTER_WIN} rounds after a Lucky win, has {len(again)}")
        _across(journals, lambda d: d.lucky_first, len(positions), alpha, "lucky:across-sessions", run, notes)
    collections = [d for d in files if d.raw]
    if len(collections) > 1:
        _across(collections, lambda d: d.raw, 1 << 32, alpha, "raw:across-collections", run, notes)
    faces = [v for d in files for v in d.physical]
    physical_verdict = None
    if faces:
        what = next(d.physical_what for d in files if d.physical)
        size = next(d.physical_size for d in files if d.physical)
        physical = battery.integers(faces, size, alpha, what, only=battery.PHYSICAL_TESTS)
        physical_verdict = family(physical.outcomes, profile, physical.too_short)
    return Judgement(profile, list(files), family(run.outcomes, profile, run.too_short), physical_verdict, notes)


def _across(files: Sequence[Draws], values, size: int, alpha: float, source: str, run: battery.Run,
            notes: list[str]) -> None:
    """Non-repeatability across sessions: every pair of files whose recorded
    seeds differ (the same seed on the emulated controller is a replay by
    design; a real controller's seed is its own entropy, and one that says a
    new seed and draws the old sequence is what this finds)."""
    chosen: dict[str, Sequence[int]] = {}
    seeds: dict[object, str] = {}
    for d in files:
        if d.seed is not None and d.seed in seeds:
            notes.append(f"{d.path}: the same controller seed as {seeds[d.seed]}: left out of {source} (a replay)")
            continue
        seeds.setdefault(d.seed, d.path) if d.seed is not None else None
        chosen[d.path] = values(d)
    if len(chosen) > 1:
        run.outcomes.append(recurrence.across(chosen, size, alpha, source))


def _name(d: Draws) -> str:
    from pathlib import Path
    return Path(d.path).name
