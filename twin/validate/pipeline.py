"""A validation from end to end: the design, the campaign, the checks, the report."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from twin.kinds import KINDS, design_kind, plant_kind
from twin.validate.campaign import Plan, campaign_twin, default_results_path, run_campaign
from twin.validate.engines import make_engine
from twin import __version__
from twin.shipped import shipped_design
from twin.validate.runs import design_for
from twin.validate.verdict import Check, judge, meaning_of

__all__ = ["Outcome", "design_kind", "validate"]    # design_kind: twin.kinds's, kept here for callers


@dataclass
class Outcome:
    kind: str
    design_path: str
    design_name: str
    first_seed: int
    confidence: float
    engine: str
    workers: int
    results_path: str
    checks: list[Check]
    records: list[dict] = field(repr=False, default_factory=list)
    elapsed_s: float = 0.0
    report_path: str | None = None
    no_more_bets: dict | None = None     # a wheel's latest safe call time (twin.edge)
    twin: dict | None = None             # the twin that drew the runs (twin.fingerprint); None: not recorded

    @property
    def runs(self) -> int:
        return len(self.records)

    @property
    def failed(self) -> list[str]:
        return [c.key for c in self.checks if c.passed is False]

    @property
    def passed(self) -> bool:
        return not self.failed

    def to_json(self) -> dict:
        tested = [c for c in self.checks if c.tested]
        return {
            "tablebench": __version__,
            "design": self.design_path, "design_name": self.design_name, "kind": self.kind,
            "runs": self.runs, "first_seed": self.first_seed, "confidence": self.confidence,
            "correction": f"Holm over the {len(tested)} tests of the family: a fair design fails any "
                          f"of them with probability at most {1 - self.confidence:g}",
            "passed": self.passed, "failed": self.failed,
            "why": [{"check": c.key, "finding": c.finding, "meaning": meaning_of(c.key)}
                    for c in self.checks if c.passed is False],
            "checks": [c.to_json() for c in self.checks],
            "engine": self.engine, "workers": self.workers, "results_file": self.results_path,
            "elapsed_s": round(self.elapsed_s, 2), "report": self.report_path, "twin": self.twin,
            **({"no_more_bets": self.no_more_bets} if self.no_more_bets else {}),
        }


def validate(design: str | Path, runs: int, *, kind: str | None = None, workers: int = 1,
             engine: str = "local", ray_address: str | None = None, seed: int = 0,
             confidence: float = 0.99, results: str | Path | None = None,
             report: str | Path | None = None, progress: bool = False) -> Outcome:
    """Run (or resume) a campaign of ``runs`` drops or spins on ``design`` and
    judge it. Raises ``DesignError`` for a design that cannot be built,
    ``CampaignError`` for a results file of another campaign, ``EngineError``
    for an engine that cannot start."""
    path = shipped_design(design, *((kind,) if kind else ()))
    kind = kind or design_kind(path)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if runs < 1:
        raise ValueError(f"runs must be at least 1, got {runs}")
    if not 0.5 <= confidence < 1:
        raise ValueError(f"confidence must be in [0.5, 1), got {confidence}")
    loaded = design_for(kind, path, None)          # a design error shows here, before any worker starts
    plan = Plan(kind, path, Path(path).read_text(encoding="utf-8"), seed, runs)
    results_path = Path(results) if results else default_results_path(plan)
    started = time.perf_counter()
    runner = make_engine(engine, workers, ray_address)
    try:
        records = run_campaign(plan, runner, results_path, progress)
    finally:
        runner.close()
    elapsed = time.perf_counter() - started
    plant = plant_kind(kind)
    checks = judge(plant.part("checks")(records, confidence, loaded), confidence)
    outcome = Outcome(kind, path, getattr(loaded, "name", Path(path).stem), seed, confidence, engine,
                      runner.workers, str(results_path), checks, records, elapsed, twin=campaign_twin(results_path))
    if plant.validation_extra:              # a wheel: the edge's latest safe call (twin.edge)
        outcome.no_more_bets = plant.part("validation_extra")(path, records, results_path, workers, confidence,
                                                              progress)
    if report:
        from twin.validate.report import write_report
        outcome.report_path = str(write_report(outcome, loaded, Path(report)))
    return outcome
