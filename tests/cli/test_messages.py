"""Messages that leave no one guessing: each names what is wrong and what to
do instead, in one line, with the exit status of README's table."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from bench.cli import main as bench_main
from bench.play.plant import FairDicePlant
from bench.session.runner import SessionConfig, run_session
from tablebench_io.commandline import Exit
from twin.cli import main as twin_main

REPO = Path(__file__).resolve().parents[2]


def said(capsys) -> list[str]:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return [line for line in captured.err.splitlines() if line and not line.startswith("pybullet build time")]


def test_an_interruption_without_a_signal_name_is_called_sigint(tmp_path, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt()          # Ctrl-C: Python's interrupt carries no text
    monkeypatch.setattr(FairDicePlant, "read", interrupted)
    outcome = run_session(SessionConfig(rounds=2, seed=3, out=str(tmp_path / "s"), progress=False, probes=False,
                                        plant="dice"))
    assert outcome.ending == "interrupted" and outcome.reason == "session interrupted (SIGINT)"


def test_key_show_of_the_session_list_does_not_call_it_a_private_key(capsys, tmp_path):
    from bench.journal.keys import new_key
    new_key(tmp_path / "k", sessions=2)
    status = bench_main(["key", "show", str(tmp_path / "k" / "bench.sessions")])
    lines = said(capsys)
    assert status == Exit.BAD_INPUT and len(lines) == 1
    assert "private" not in lines[0] and "public" in lines[0] and "bench.pub" in lines[0], lines


@pytest.mark.parametrize("phase", ["betting=1e308", "reply=inf", "clear=nan", "lucky=3601"])
def test_a_phase_longer_than_an_hour_or_not_a_number_is_refused(capsys, tmp_path, phase):
    status = bench_main(["run", "--phase", phase, "--rounds", "1", "--out", str(tmp_path / "s")])
    lines = said(capsys)
    assert status == Exit.BAD_INPUT and len(lines) == 1 and phase in lines[0], lines
    assert not (tmp_path / "s").exists()


def test_a_broken_chain_of_one_problem_is_not_one_problems(tmp_path):
    from bench.report.page import read_session, render
    run_session(SessionConfig(rounds=1, seed=3, out=str(tmp_path / "s"), progress=False, probes=False,
                              plant="dice"))
    journal = tmp_path / "s" / "session.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"round":1', b'"round":1 ', 1)
    journal.write_bytes(b"".join(lines))
    page = render(read_session(journal))
    assert "BROKEN (1 problem)" in page and "1 problems" not in page


def test_an_unknown_misbehaviour_is_named_with_where_the_list_is(capsys, tmp_path):
    status = bench_main(["run", "--misbehave", "nope", "--rounds", "1", "--out", str(tmp_path / "s")])
    lines = said(capsys)
    assert status == Exit.BAD_INPUT and len(lines) == 1, lines
    assert "'nope'" in lines[0] and "bench emulate --help" in lines[0], lines
    assert not (tmp_path / "s" / "session.jsonl").exists()


@pytest.mark.parametrize("spec,told", [("emulated:ignores-crc", "emulated:link=ignores-crc"),
                                       ("emulated:nope", "bench emulate --help"),
                                       ("emulated:link=nope", "bench emulate --help")])
def test_a_conformance_controller_option_that_is_wrong_says_the_right_form(capsys, spec, told):
    status = bench_main(["conformance", "--controller", spec, "--check", "numbering"])
    lines = said(capsys)
    assert status == Exit.BAD_INPUT and len(lines) == 1 and told in lines[0], lines


def test_a_tower_given_to_twin_spin_is_called_a_tower(capsys):
    status = twin_main(["spin", "towers/standard"])
    lines = said(capsys)
    assert status == Exit.BAD_INPUT and len(lines) == 1, lines
    assert "tower" in lines[0] and "not a wheel" in lines[0] and "twin drop" in lines[0], lines


def test_bench_emulate_plays_the_default_game_without_game(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "bench.cli", "emulate", "--listen", "127.0.0.1:0"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "no announcement within 60 s"
        assert proc.stdout.readline().startswith("listening socket://127.0.0.1:")
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_twin_validate_says_where_it_keeps_its_runs(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status = twin_main(["validate", "towers/standard", "--drops", "3", "--workers", "1"])
    lines = said(capsys)
    assert status in (Exit.OK, Exit.VIOLATION)
    kept = list((tmp_path / ".twin-validate").glob("*.jsonl"))
    assert len(kept) == 1
    assert any(f".twin-validate/{kept[0].name}" in line and "--results" in line for line in lines), lines


def test_twin_validate_refuses_a_report_folder_it_cannot_make_before_it_runs(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("not a folder")
    status = twin_main(["validate", "towers/standard", "--drops", "2000", "--report", "a-file/report"])
    lines = said(capsys)
    assert status == Exit.BAD_INPUT and len(lines) == 1 and "a-file/report" in lines[0], lines
    # Not one drop was run: a campaign appends each run to .twin-validate/ as it comes.
    assert not (tmp_path / ".twin-validate").exists(), "refused only after the campaign ran"


def test_twin_drop_results_do_not_run_into_the_progress_bar_on_a_terminal(tmp_path):
    """On a terminal stdout and stderr share the screen: each result line
    starts on its own, the bar drawn again below it."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))   # a terminal's size: bars need one
    proc = subprocess.Popen([sys.executable, "-m", "twin.cli", "drop", "standard", "--count", "25"], cwd=REPO,
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
    os.close(follower)
    screen = b""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if select.select([leader], [], [], 1.0)[0]:
            try:
                chunk = os.read(leader, 65536)
            except OSError:             # the child closed its side
                break
            if not chunk:
                break
            screen += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(leader)
    text = screen.decode(errors="replace").replace("\r\n", "\n")
    assert proc.returncode == 0, text
    results = [line.rsplit("\r", 1)[-1] for line in text.split("\n") if "seed " in line]
    assert len(results) == 25, text
    assert all(line.startswith("seed ") for line in results), [r for r in results if not r.startswith("seed ")]
    assert "drops:" in text or "drop/s" in text, "no bar was drawn: the test shows nothing"
