"""Killed mid-run (SIGTERM, or SIGKILL as a power cut would), bench certify
started again finishes without redoing a finished step, and redoes the one
it was in the middle of."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

from tablebench_io.commandline import Exit
from tests.certify.conftest import certify, records, start, tiny_plan


def _wait_for(path: Path, process, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert process.poll() is None, f"bench certify ended ({process.returncode}) first: {process.communicate()}"
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def _stop_during(plan: Path, dossier: Path, step: str, how: signal.Signals) -> None:
    """bench certify started on ``plan`` and stopped by ``how`` while ``step`` is half-way."""
    running = start(plan, "--out", dossier)
    _wait_for(dossier / "steps" / f"{step}.partial" / "session", running)
    running.send_signal(how)
    _, err = running.communicate(timeout=60)
    if how == signal.SIGTERM:
        assert running.returncode == Exit.INTERRUPTED and "interrupted (SIGTERM)" in err, err
        assert "Traceback" not in err
    assert not (dossier / "steps" / step).exists()
    assert not (dossier / "manifest.json").exists(), "an interrupted dossier is not sealed"


def test_killed_mid_step_it_resumes_without_redoing_finished_steps(tmp_path):
    """Stopped by SIGTERM (Ctrl-C's kin) in one step, then by SIGKILL (as a power cut) in the next,
    then let run: each finished step is run once, each half-written one again from the start."""
    plan = tiny_plan(tmp_path, scenarios=False, sessions=3, rounds=4)
    dossier, steps = tmp_path / "dossier", tmp_path / "dossier" / "steps"
    _stop_during(plan, dossier, "03-session-standard-seed2", signal.SIGTERM)
    first = (steps / "02-session-standard-seed1" / "step.json").read_text()
    _stop_during(plan, dossier, "04-session-standard-seed3", signal.SIGKILL)
    second = (steps / "03-session-standard-seed2" / "step.json").read_text()
    assert (steps / "02-session-standard-seed1" / "step.json").read_text() == first

    again = certify(plan, "--out", dossier, "--json")
    assert again.returncode == Exit.OK, again.stderr
    ran = {line["step"]: line["ran_now"] for line in records(again.stdout) if line["record"] == "step"}
    assert ran == {"01-submission": False, "02-session-standard-seed1": False, "03-session-standard-seed2": False,
                   "04-session-standard-seed3": True}
    assert (steps / "02-session-standard-seed1" / "step.json").read_text() == first
    assert (steps / "03-session-standard-seed2" / "step.json").read_text() == second
    assert not list(steps.glob("*.partial"))
    redone = steps / "04-session-standard-seed3" / "session" / "summary.json"
    assert json.loads(redone.read_text())["rounds"] == 4


def test_a_changed_plan_is_not_mixed_into_a_dossier(tmp_path):
    plan = tiny_plan(tmp_path, scenarios=False, sessions=0, rounds=2)      # the submission's step alone
    dossier = tmp_path / "dossier"
    assert certify(plan, "--out", dossier).returncode == Exit.OK
    plan.write_text(plan.read_text().replace("rounds: 2", "rounds: 3"))
    changed = certify(plan, "--out", dossier)
    assert changed.returncode == Exit.BAD_INPUT
    assert len(changed.stderr.strip().splitlines()) == 1 and "another plan" in changed.stderr


def test_a_step_that_could_not_do_its_job_is_run_again_and_a_verdict_is_kept(tmp_path):
    """An error (a link that would not open, a full disk) is no verdict: started again, the step is
    run again; a step that reached a verdict, pass or fail, is not."""
    import sys

    from bench.certify.runner import run_plan
    from bench.certify.step_records import FAIL, Outcome, Step

    said = iter(["error", FAIL])

    def judge(folder, statuses, where):
        return Outcome(next(said), "as told")

    step = Step("01-probe", "a probe", [([sys.executable, "-c", "pass"], None)], judge)
    (tmp_path / "steps").mkdir()
    first = run_plan([step], tmp_path, 30)
    second = run_plan([step], tmp_path, 30)
    third = run_plan([step], tmp_path, 30)
    assert [r.outcome.status for r in (first[0], second[0], third[0])] == ["error", FAIL, FAIL]
    assert (second[0].ran_now, third[0].ran_now) == (True, False)
