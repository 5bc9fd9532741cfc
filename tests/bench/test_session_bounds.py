"""Every session is bounded: wagers a round by what the protocol and the
phases carry, the journal and the judged frames by a ceiling past which the
session ends as a link fault with every file, memory flat over long
sessions, JUnit and the report bounded however many violations there are."""

from __future__ import annotations

import time

import pytest

from bench.cli import main as bench_main
from bench.journal.wire_budget import MAX_WAGERS
from tablebench_io.commandline import Exit


def said(capsys) -> list[str]:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return [line for line in captured.err.splitlines() if line and not line.startswith("pybullet build time")]


@pytest.mark.parametrize("wagers", [MAX_WAGERS + 1, 20_000, 1_000_000, 0])
def test_more_wagers_a_round_than_the_protocol_carries_are_refused_at_once(capsys, tmp_path, wagers):
    started = time.monotonic()
    status = bench_main(["run", "--players", "random", "--wagers", str(wagers), "--rounds", "1",
                         "--out", str(tmp_path / "s")])
    lines = said(capsys)
    assert status == Exit.BAD_INPUT and len(lines) == 1, lines
    assert f"--wagers {wagers}" in lines[0] and f"1 to {MAX_WAGERS}" in lines[0], lines
    assert time.monotonic() - started < 5 and not (tmp_path / "s").exists()
