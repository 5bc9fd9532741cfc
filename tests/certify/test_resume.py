"""Killed mid-run (SIGTERM, or SIGKILL as a power cut would), bench certify
started again finishes without redoing a finished step, and redoes the one
it was in the middle of."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from tablebench_io.commandline import Exit
from tests.certify.conftest import certify, records, start, tiny_plan


def _wait_for(path: Path, process, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert process.poll() is None, f"bench certify ended ({process.returncode}) first: {process.communicate()}"
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_killed_mid_step_it_resumes_without_redoing_finished_steps(tmp_path, how):
    plan = tiny_plan(tmp_path, scenarios=False, sessions=3, rounds=4)
    dossier = tmp_path / "dossier"
    first = start(plan, "--out", dossier)
    _wait_for(dossier / "steps" / "03-session-standard-seed2.partial" / "session", first)
    first.send_signal(how)
    _, err = first.communicate(timeout=60)
    if how == signal.SIGTERM:
        assert first.returncode == Exit.INTERRUPTED and "interrupted (SIGTERM)" in err, err
        assert "Traceback" not in err
    finished = json.loads((dossier / "steps" / "02-session-standard-seed1" / "step.json").read_text())
    assert not (dossier / "steps" / "03-session-standard-seed2").exists()
    assert not (dossier / "manifest.json").exists(), "an interrupted dossier is not sealed"

    again = certify(plan, "--out", dossier, "--json")
    assert again.returncode == Exit.OK, again.stderr
    steps = {line["step"]: line for line in records(again.stdout) if line["record"] == "step"}
    assert list(steps) == ["01-submission", "02-session-standard-seed1", "03-session-standard-seed2",
                           "04-session-standard-seed3"]
    assert not steps["01-submission"]["ran_now"] and not steps["02-session-standard-seed1"]["ran_now"]
    assert steps["03-session-standard-seed2"]["ran_now"] and steps["04-session-standard-seed3"]["ran_now"]
    assert json.loads((dossier / "steps" / "02-session-standard-seed1" / "step.json").read_text()) == finished
    assert not list((dossier / "steps").glob("*.partial"))
    redone = dossier / "steps" / "03-session-standard-seed2" / "session" / "summary.json"
    assert json.loads(redone.read_text())["rounds"] == 4


def test_a_changed_plan_is_not_mixed_into_a_dossier(tmp_path):
    plan = tiny_plan(tmp_path, scenarios=False, sessions=1, rounds=2)
    dossier = tmp_path / "dossier"
    assert certify(plan, "--out", dossier).returncode == Exit.OK
    plan.write_text(plan.read_text().replace("rounds: 2", "rounds: 3"))
    changed = certify(plan, "--out", dossier)
    assert changed.returncode == Exit.BAD_INPUT
    assert len(changed.stderr.strip().splitlines()) == 1 and "another plan" in changed.stderr
