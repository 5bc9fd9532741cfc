"""The clause matrix: every testable clause of the profile's regulations as a
row, with what exercised it, how much, the verdict and where to look; a clause
nothing exercised says why, and a row with no reason is marked unexplained
(a plan or profile to fix, never silently passed over).

The clauses are the regulations' own (``bench.rules.regulation_text``), those
the shipped scenarios are tagged with (docs/features.md), the profile's own
(the RNG clauses of § 810a.5), and ``protocol`` (docs/protocol.md, which the
link conformance checks and the oracle cites for the session's own messages).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bench.certify import features
from bench.certify.features import Scenario, shipped_scenarios
from bench.certify.plan import Plan, _sections_of_game, section_of
from bench.certify.judge_design import VALIDATE_CLAUSES
from bench.certify.step_records import Evidence, row_state
from bench.rules import describe, game_names
from bench.rules.regulation_text import CLAUSE_TEXT

NOT_EXERCISED, UNEXPLAINED = "not exercised", "unexplained"
PROTOCOL = "protocol"
RNG_SECTION = "810a.5"


@dataclass
class Row:
    clause: str
    words: str
    state: str                               # PASS, FAIL, CAUTION, NOT_EXERCISED or UNEXPLAINED
    evidence: list[tuple[str, Evidence]] = field(default_factory=list)    # (step, evidence)
    reason: str = ""

    def to_json(self) -> dict:
        return {"clause": self.clause, "state": self.state, "words": self.words[:300],
                **({"reason": self.reason} if self.reason else {}),
                "exercised_by": [{"step": step, **ev.to_json()} for step, ev in self.evidence]}


def _natural(clause: str) -> list:
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|[a-z]+", clause.lower())]


def universe(plan: Plan, scenarios: tuple[Scenario, ...]) -> dict[str, str]:
    """clause -> its words, for every clause of the profile's regulations, in the order of the regulations."""
    sections = plan.profile.sections
    clauses: dict[str, str] = {PROTOCOL: "The link and session layers of the controller protocol (bench docs protocol)."}
    found = dict(CLAUSE_TEXT)
    for scenario in scenarios:
        for clause in scenario.clauses:
            found.setdefault(clause, "(not among the seed texts; tested from the scenario's wording)")
    found.update({c: w for c, w in plan.profile.extra_clauses.items() if c not in CLAUSE_TEXT})
    chosen = [c for c in found if section_of(c) in sections]
    chosen.sort(key=lambda c: (sections.index(section_of(c) or ""), _natural(c)))
    clauses.update((c, found[c]) for c in chosen)
    return clauses


def _games_of_sections(scenarios: tuple[Scenario, ...]) -> dict[str, set[str]]:
    games: dict[str, set[str]] = {}
    for game in game_names():
        for section in _sections_of_game(game):
            games.setdefault(section, set()).add(game)
    for scenario in scenarios:
        for clause in scenario.clauses:
            if scenario.game and (cited := section_of(clause)):
                games.setdefault(cited, set()).add(scenario.game)
    return games


def _planned_off(plan: Plan) -> dict[str, str]:
    """Clauses a step of the plan would exercise, where the plan turns that step off."""
    game = describe(plan.game)
    off: dict[str, str] = {}
    if not plan.conformance:
        off[PROTOCOL] = "the plan does not run the link conformance (conformance.run: false)"
    if not plan.sessions:
        for clause in [*game.phase_clauses.values(), *game.amount_clauses, *game.lucky_draw_clauses.values()]:
            off.setdefault(clause, "the plan plays no session (sessions.count: 0)")
    if not plan.scenarios:
        for scenario in shipped_scenarios():
            if scenario.game == plan.game and not scenario.off_controller:
                for clause in scenario.clauses:
                    off.setdefault(clause, "the plan does not play the regulation scenarios (scenarios.run: false)")
    if not plan.runs:
        for clauses in VALIDATE_CLAUSES.values():
            for clause in (clauses,) if isinstance(clauses, str) else clauses:
                off.setdefault(clause, "the plan runs no fairness campaign (validate.runs: 0)")
    return off


def build(plan: Plan, finished: list, rng_available: bool, stopped: str | None = None) -> list[Row]:
    """The matrix from the finished steps (``runner.Finished``); ``stopped``: why the later steps were not run."""
    scenarios = shipped_scenarios()
    rows = {clause: Row(clause, words, NOT_EXERCISED) for clause, words in universe(plan, scenarios).items()}
    for step in finished:
        for evidence in step.outcome.evidence:
            row = rows.get(evidence.clause)
            if row is None and section_of(evidence.clause) in plan.profile.sections:
                row = rows[evidence.clause] = Row(evidence.clause, CLAUSE_TEXT.get(evidence.clause, ""), NOT_EXERCISED)
            if row is not None:
                row.evidence.append((step.name, evidence))
    game = describe(plan.game)
    game_sections = features.game_sections(plan.game)
    games_of = _games_of_sections(scenarios)
    off = _planned_off(plan)
    clauses = list(rows)
    for clause, row in rows.items():
        if row.evidence:
            row.state = row_state({ev.verdict for _, ev in row.evidence})
            continue
        row.reason = _reason(plan, clause, clauses, scenarios, game_sections, games_of, off,
                                        rng_available, stopped, game.title or plan.game)
        if not row.reason:
            row.state = UNEXPLAINED
    return list(rows.values())


def _reason(plan: Plan, clause: str, clauses: list[str], scenarios: tuple[Scenario, ...], game_sections: set[str],
            games_of: dict[str, set[str]], off: dict[str, str], rng_available: bool, stopped: str | None,
            title: str) -> str:
    section = section_of(clause)
    if clause in plan.profile.reasons:
        return plan.profile.reasons[clause]
    if section == RNG_SECTION:
        if not rng_available:
            return "the RNG battery (bench rng, § 810a.5) is not in this build"
        if not plan.rng:
            return "the plan turns the RNG battery off (rng.run: false)"
    if stopped:
        return f"not reached: {stopped}"
    if section is not None and section not in game_sections and section != RNG_SECTION:
        others = sorted(describe(g).title or g for g in games_of.get(section, ()))
        if others:
            return f"regulates {', '.join(others)}; the controller certified runs {title}"
    if clause in off:
        return off[clause]
    own = [s for s in scenarios if clause in s.clauses and (s.game == plan.game or s.game is None)]
    why = sorted({s.why_not for s in own if s.why_not})
    if own and why and all(s.why_not for s in own):
        return "its scenarios cannot be played on a controller: " + "; ".join(why)
    if any(other != clause and other.startswith(clause + "(") for other in clauses):
        return "an introductory sentence: the clauses under it are its requirements, each a row"
    return ""


def counts(rows: list[Row]) -> dict[str, int]:
    found: dict[str, int] = {}
    for row in rows:
        found[row.state] = found.get(row.state, 0) + 1
    return found
