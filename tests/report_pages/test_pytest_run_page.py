"""A pytest run's page names its journals by their place in the wire-log
folder, a few of them (it opened with 10-14 rows of absolute temporary
paths), and its "repeat it" names a shipped submission as shipped, not by
its site-packages path (issue 41)."""

from __future__ import annotations

import shlex
from pathlib import Path

import tablebench_fixtures
from bench.scenarios.run_report import _in_logs, shipped_names


def test_repeat_it_names_a_shipped_submission_by_its_name_whatever_path_it_was_read_from(tmp_path):
    installed = tablebench_fixtures.resolve("lightning-dice", "submission")
    copied = tmp_path / "site-packages" / "tablebench_fixtures" / "submissions" / "lightning-dice.yaml"
    copied.parent.mkdir(parents=True)
    copied.write_bytes(Path(installed).read_bytes())
    own = tmp_path / "my-rules.yaml"
    own.write_text(Path(installed).read_text().replace("lightning-dice", "lightning-dice  # ours", 1))
    args = ["features/", "--controller", "emulated", f"--controller-submission={copied}", "-k", "no_roll",
            "--controller-submission", str(copied), "--controller-submission", str(own)]
    assert shlex.join(shipped_names(args)) == shlex.join(
        ["features/", "--controller", "emulated", "--controller-submission=lightning-dice", "-k", "no_roll",
         "--controller-submission", "lightning-dice", "--controller-submission", str(own)])


def test_a_journal_is_named_by_its_place_in_the_wire_log_folder(tmp_path):
    logs = tmp_path / "reports" / "controller"
    assert _in_logs(logs / "journal-lightning-dice-1.jsonl", logs) == "journal-lightning-dice-1.jsonl"
    assert _in_logs(tmp_path / "elsewhere.jsonl", logs) == str(tmp_path / "elsewhere.jsonl")
