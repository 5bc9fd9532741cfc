"""The judges of the designs' campaigns: fairness (``twin validate``,
each check by the clause it speaks to, ``VALIDATE_CLAUSES``), a watching
player's edge (``twin edge``), and the result as a camera sees it (``twin
frames``, then ``bench recognize``).

Apart from the controller's steps (``bench.certify.judge_controller``):
these judge the twin's campaigns on a design, never the controller; the
matrix (``bench.certify.matrix``) reads ``VALIDATE_CLAUSES`` too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from bench.certify.command_output import _verdict_line, json_lines
from bench.certify.plan import Plan
from bench.certify.step_records import CAUTION, FAIL, PASS, Evidence, Outcome, _design_label, _rel
from bench.rules import describe

# What each fairness check of twin validate speaks to: the tower's obstacles must
# tumble the dice (625b.2(c)(3)), the tower must determine the outcome "in a
# randomized fashion" (625b.2(c)), a die not flat is a no roll (625b.2(d)(5));
# a Lightning Roulette wheel is a single zero wheel whose pockets come up alike (617c.3(a)).
VALIDATE_CLAUSES: dict[str, str | tuple[str, ...]] = {
    "faces_die_": "625b.2(c)", "totals": "625b.2(c)", "independence_dice_": "625b.2(c)",
    "serial_correlation": "625b.2(c)", "loaded_face_dependence": "625b.2(c)(3)",
    "no_roll_rate": ("625b.2(d)(5)", "625b.2(c)(4)"),       # the dice come to rest flat in the tray, or a no roll
    "pocket_uniformity": "617c.3(a)", "sector_bias": "617c.3(a)", "leaving_angle_": "617c.3(a)",
    "invalid_spin_rate": "617c.3(a)",
}


def design_clauses(key: str) -> tuple[str, ...]:
    """The clauses a check of twin validate speaks to (none: a description without a verdict)."""
    found = next((clauses for prefix, clauses in VALIDATE_CLAUSES.items() if key.startswith(prefix)), ())
    return (found,) if isinstance(found, str) else found


def _judge_validate(plan: Plan, design: str) -> Callable[[Path, list[int], str], Outcome]:
    def judge(folder: Path, statuses: list[int], where: str) -> Outcome:
        lines = json_lines(folder / "validation.jsonl")
        verdict = _verdict_line(lines)
        if statuses[0] not in (0, 1) or not verdict:
            return Outcome("error", f"twin validate could not run the campaign (exit {statuses[0]}; see stderr.txt)")
        page = _rel(where, "report/index.html")
        by_clause: dict[str, list[dict[str, Any]]] = {}
        for check in lines:
            for clause in design_clauses(str(check.get("key"))) if check.get("record") == "check" else ():
                by_clause.setdefault(clause, []).append(check)
        runs = verdict.get("runs", plan.runs)
        evidence = []
        for clause, checks in by_clause.items():
            failed = [c for c in checks if c.get("passed") is False]
            judged = [c for c in checks if c.get("passed") is not None]
            state = FAIL if failed else PASS if judged else CAUTION
            evidence.append(Evidence(
                clause, f"twin validate of {_design_label(design)}: " + ", ".join(str(c.get("title")) for c in checks),
                f"{runs} runs, {len(checks)} check(s) at {plan.profile.fairness_confidence:g}", state, page,
                note="; ".join(str(c.get("finding")) for c in failed[:3])))
        passed = bool(verdict.get("passed"))
        return Outcome(PASS if passed else FAIL, f"{runs} runs; " + ("every check passed" if passed else
                       "failed: " + ", ".join(str(c.get("key")) for c in lines
                                              if c.get("record") == "check" and c.get("passed") is False)),
                       evidence, pages=[page], seeds={"first_seed": plan.campaign_seed, "twin": verdict.get("twin")})
    return judge


def _judge_edge(plan: Plan, design: str) -> Callable[[Path, list[int], str], Outcome]:
    def judge(folder: Path, statuses: list[int], where: str) -> Outcome:
        verdict = _verdict_line(json_lines(folder / "edge.jsonl"))
        if statuses[0] not in (0, 1) or not verdict:
            return Outcome("error", f"twin edge could not run (exit {statuses[0]}; see stderr.txt)")
        page = _rel(where, "report/index.html")
        passed = bool(verdict.get("passed"))
        edge, low, high = verdict.get("edge"), verdict.get("low"), verdict.get("high")
        words = f"a watching player's edge {edge} ({low} to {high} at {verdict.get('confidence')})"
        clause = describe(plan.game).betting_clause      # how late "no more bets" may be called
        return Outcome(PASS if passed else FAIL, words, [Evidence(
            clause, f"twin edge of {_design_label(design)}: what watching the {describe(plan.game).plant} before "
            "no more bets is worth", f"{verdict.get('runs', plan.edge_runs)} runs", PASS if passed else FAIL, page,
            note=words)], pages=[page], seeds={"first_seed": plan.campaign_seed})
    return judge


def _judge_recognize(plan: Plan, design: str) -> Callable[[Path, list[int], str], Outcome]:
    def judge(folder: Path, statuses: list[int], where: str) -> Outcome:
        lines = json_lines(folder / "recognize.jsonl")
        verdict = _verdict_line(lines)
        if statuses[0] != 0 or statuses[-1] not in (0, 1) or not verdict:
            return Outcome("error", f"the frames or their recognition failed (exit {statuses}; see stderr.txt)")
        scores = next((d for d in lines if d.get("record") == "scores"), {})
        page = _rel(where, "report.html")
        passed = bool(verdict.get("passed"))
        accuracy = scores.get("face_accuracy", scores.get("pocket_accuracy"))
        clause = describe(plan.game).phase_clause("result")     # the outcome the reading reveals
        return Outcome(PASS if passed else FAIL, f"{scores.get('frames')} frames read, accuracy {accuracy}",
                       [Evidence(clause, f"bench recognize (reference recogniser) on frames of {_design_label(design)}",
                                 f"{scores.get('frames')} frames", PASS if passed else FAIL, page,
                                 note=f"accuracy {accuracy}")], pages=[page],
                       seeds={"first_seed": plan.campaign_seed})
    return judge
