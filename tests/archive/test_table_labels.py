"""A journal names its table (issue 44, item 1): ``--table`` (and the dealer,
dice set or wheel) on ``bench run`` and the pytest plugin is kept in the
session header, the journal still replays, and a name that could not be an
archive folder is refused in one line."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench(*args):
    return subprocess.run([sys.executable, "-m", "bench.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)


def _header(journal: Path) -> dict:
    with journal.open() as file:
        return json.loads(file.readline())


def test_bench_run_keeps_the_table_dealer_and_dice_set_and_the_journal_replays(tmp_path):
    out = tmp_path / "s"
    ran = _bench("run", "--plant", "dice", "--rounds", 2, "--seed", 5, "--out", out, "--no-probes",
                 "--table", "T12", "--dealer", "alice", "--dice-set", "DS-3")
    assert ran.returncode == 0, ran.stderr
    header = _header(out / "session.jsonl")
    assert (header["table"], header["dealer"], header["dice_set"]) == ("T12", "alice", "DS-3")
    assert "wheel_id" not in header          # not given, not written
    replayed = _bench("replay", out / "session.jsonl", "--head", (out / "session.head").read_text().strip())
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


def test_a_table_name_that_cannot_name_a_folder_is_one_line_and_exit_2(tmp_path):
    ran = _bench("run", "--plant", "dice", "--rounds", 1, "--out", tmp_path / "s", "--table", "../etc")
    assert ran.returncode == 2
    assert ran.stderr.count("\n") == 1 and "--table '../etc'" in ran.stderr
    assert not (tmp_path / "s").exists()     # refused before anything was written


def test_the_pytest_plugin_keeps_the_table_in_each_journal(tmp_path):
    wire = tmp_path / "wire"
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "features/test_sic_bo_on_controller.py", "-q", "-p", "no:cacheprovider",
         "-p", "no:xdist", "--tb=short", "-k", "small", "--table", "T7", "--wheel-id", "W-1",
         f"--controller-log={wire}"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert ran.returncode == 0, ran.stdout[-2000:]
    journals = sorted(wire.glob("journal-*.jsonl"))
    assert journals
    for journal in journals:
        header = _header(journal)
        assert (header["table"], header["wheel_id"]) == ("T7", "W-1")
