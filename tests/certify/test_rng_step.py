"""The RNG step reads bench rng's JSON lines clause by clause: a test of the
RNG family below the level (Holm) breaks its clause of § 810a.5(c), a test
too short to run is a caution on its clause (never a silent pass), and the
physical family (the dice the sessions showed: the design's, judged by the
fairness campaign) is said but is no clause of § 810a.5."""

from __future__ import annotations

import json

from bench.certify.steps import CAUTION, FAIL, PASS, _judge_rng, plan_steps


def _line(**fields) -> str:
    return json.dumps({"schema": "tablebench.rng/1", **fields}) + "\n"


def test_each_clause_of_the_battery_gets_the_verdict_of_its_tests(tmp_path):
    (tmp_path / "rng.jsonl").write_text(
        _line(record="test", family="rng", test="chi-square", clause="810a.5(c)(1)", n=400, passed=True,
              family_passed=True)
        + _line(record="test", family="rng", test="runs", clause="810a.5(c)(11)", n=400, passed=False,
                family_passed=False, detail="too few runs")
        + _line(record="too-short", family="rng", reason="lucky:first: the poker test needs 50 hands, has 16")
        + _line(record="test", family="physical", test="chi-square", clause="810a.5(c)(1)", n=99, passed=False,
                family_passed=False)
        + _line(record="verdict", passed=False, status=1, verdict="fail"))
    outcome = _judge_rng(tmp_path, [1], "steps/09-rng")
    by_clause = {}
    for evidence in outcome.evidence:
        by_clause.setdefault(evidence.clause, set()).add(evidence.verdict)
    assert by_clause["810a.5(c)(1)"] == {PASS}             # the physical family's failure is not the RNG's
    assert by_clause["810a.5(c)(11)"] == {FAIL}
    assert by_clause["810a.5(c)(5)"] == {CAUTION}          # the poker test did not run
    assert by_clause["810a.5(a)(3)"] == {FAIL}             # the family as a whole
    assert outcome.status == FAIL and "physical family" in outcome.summary


def test_the_battery_judges_the_sessions_journals_after_them(tmp_path):
    from bench.certify.plan import load_plan
    plan = load_plan("lightning-dice-standard")
    names = [step.name for step in plan_steps(plan, rng_available=True)]
    assert names[-1].endswith("-rng")
    rng = plan_steps(plan, rng_available=True)[-1]
    argv = rng.commands[0][0]
    assert [a for a in argv if a.endswith("session.jsonl")] == [
        f"../{n}/session/session.jsonl" for n in names if "-session-" in n]
    assert not [n for n in (s.name for s in plan_steps(plan, rng_available=False)) if n.endswith("-rng")]
