"""A monitor has its own page (issue 41), and its journal replayed is
labelled by its runner: bench monitor on a relay between bench run (4
rounds, the fair-dice plant) and an emulated controller paying on a no roll
writes DIR/report.html, a FAIL naming the clause, its journal part and its
interval; the part replayed with --report says it was written by bench
monitor, not 'bench run ... virtual time (simpy)' nor 'a pytest run'."""

from __future__ import annotations

import re
import subprocess
import sys
from html import unescape

import pytest

from bench.emulator.process import emulator_process
from bench.session.runner import SessionConfig, run_session
from tests.monitor.conftest import finished, monitor_process

GAME = "lightning-dice"


@pytest.fixture(scope="module")
def monitored(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("monitored")
    with emulator_process(["--game", GAME, "--seed", "5", "--misbehave", "pay-on-no-roll"],
                          listen="127.0.0.1:0") as controller:
        with monitor_process("--game", GAME, "--relay", "127.0.0.1:0", "--to", controller, "--once",
                             "--out", tmp / "monitor") as (proc, announced):
            run = run_session(SessionConfig(game=GAME, controller=announced.split()[1], rounds=4, plant="dice",
                                            seed=3, out=str(tmp / "run"), progress=False))
            status, out, err = finished(proc)
    assert run.status == status == 1, out[-2000:] + err[-2000:]
    return tmp / "monitor", out


def _text(page: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<style>.*?</style>", "", page, flags=re.S))))


def test_the_monitor_writes_its_page_with_what_it_heard_and_judged(monitored):
    folder, said = monitored
    assert f"report: {folder / 'report.html'}" in said
    page = (folder / "report.html").read_text(encoding="utf-8")
    text = _text(page)
    assert 'data-verdict="fail"' in page and "tablebench · monitor report" in text
    assert re.search(r"FAIL: \d+ violations in 4 rounds heard", text)
    assert "625b.2(d)(5)" in text and "monitor-0001.jsonl" in text and "(matches its .head)" in text
    assert "<h2>Interval reports</h2>" in page and "<h2>Journal parts</h2>" in page


def test_a_monitors_journal_replayed_is_labelled_by_its_runner(monitored, tmp_path):
    folder, _ = monitored
    part = folder / "monitor-0001.jsonl"
    done = subprocess.run([sys.executable, "-m", "bench.cli", "replay", str(part), "--head",
                           part.with_suffix(".head").read_text().strip(), "--report", str(tmp_path / "R.html")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    text = _text((tmp_path / "R.html").read_text(encoding="utf-8"))
    assert "Replay of a monitored table" in text and "journal written by bench monitor" in text
    assert "engine bench monitor: the traffic between a table's host and its controller, heard on a tap" in text
    assert "virtual time (simpy)" not in text and "a pytest run" not in text
