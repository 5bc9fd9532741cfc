"""The RNG step reads bench rng's JSON lines clause by clause: a test of the
RNG family below the level (Holm) breaks its clause of § 810a.5(c), a test
too short to run is a caution on its clause (never a silent pass), and the
physical family (the dice the sessions showed: the design's, judged by the
fairness campaign) is said but is no clause of § 810a.5."""

from __future__ import annotations

import json

from bench.certify.judge_rng import _judge_rng
from bench.certify.step_records import CAUTION, FAIL, PASS
from bench.certify.steps import plan_steps


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
    collect, argv = rng.commands[0][0], rng.commands[-1][0]
    # the emulated controller's raw and scaled output collected over a link, as a device's: bench emulate
    # started for the step with the plan's seed, its address where --controller goes
    assert collect[1:3] == ["-m", "bench.certify.serve"] and collect[collect.index("--seed") + 1] == "7"
    assert collect[collect.index("--controller") + 1] == "{url}" and "--collect" in collect
    assert argv[argv.index("rng") + 1] == "collection/collection.jsonl"
    assert [a for a in argv if a.endswith("session.jsonl")] == [
        f"../{n}/session/session.jsonl" for n in names if "-session-" in n]
    assert not [n for n in (s.name for s in plan_steps(plan, rng_available=False)) if n.endswith("-rng")]


def test_a_device_s_rng_is_collected_over_the_link_and_every_test_of_810a5c_judged(tmp_path):
    """A controller on a URL (here bench emulate listening, as a device would be): its raw and
    scaled RNG output collected in bulk, and each of the fifteen tests of 810a.5(c) a passing row."""
    import subprocess
    import sys

    from tablebench_io.commandline import Exit
    from tests.certify.conftest import certify, records

    emulator = subprocess.Popen([sys.executable, "-m", "bench.cli", "emulate", "--game", "lightning-dice",
                                 "--listen", "127.0.0.1:0", "--seed", "7"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True)
    try:
        line = ""
        while not line.startswith("listening"):
            line = emulator.stdout.readline()
            assert line, "bench emulate ended before listening"
        plan = tmp_path / "plan.yaml"
        plan.write_text(f"""plan: 1
controller: {{url: "{line.split()[1]}"}}
game: lightning-dice
submission: lightning-dice
designs: standard
jurisdiction: pennsylvania
conformance: {{run: false}}
scenarios: {{run: false}}
sessions: {{count: 0}}
validate: {{runs: 0}}
edge: {{runs: 0}}
recognize: {{frames: 0}}
rng: {{collect: 2000}}
""")
        done = certify(plan, "--out", tmp_path / "dossier", "--json")
    finally:
        emulator.terminate()
        emulator.wait(timeout=30)
    assert done.returncode == Exit.OK, done.stdout[-2000:] + done.stderr
    rows = {r["clause"]: r for r in records(done.stdout) if r["record"] == "clause"}
    assert all(rows[f"810a.5(c)({n})"]["state"] == "pass" for n in range(1, 16))
    assert rows["810a.5(a)(1)"]["state"] == rows["810a.5(a)(3)"]["state"] == "pass"
    assert (tmp_path / "dossier" / "steps" / "02-rng" / "collection" / "collection.jsonl").is_file()
