"""bench monitor on the two read-only lines of a Y-cable (here: pseudo-
terminals fed by a splitter, as an RS-232 Y-cable feeds two receive lines):
it hears the run's rounds and gives its verdicts, and never sends a byte
down either line."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from pathlib import Path

from bench.emulator.process import emulator_process
from bench.journal.replay import replay
from bench.session.runner import SessionConfig, run_session
from tests.monitor.conftest import finished, monitor_process, verdicts

GAME = "lightning-roulette"


class YCable:
    """The splitter (tests/monitor/ycable.py) in a process of its own."""

    def __init__(self, controller_url: str):
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("ycable.py")), controller_url],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert select.select([self.proc.stdout], [], [], 30)[0], "the Y-cable said nothing within 30 s"
        self.paths = json.loads(self.proc.stdout.readline())

    def path(self, which: str) -> str:
        return self.paths[which]

    def written_by_the_monitor(self) -> bytes:
        """Whatever came back up the tap lines: a monitor that never sends leaves nothing."""
        out, _ = self.proc.communicate("done\n", timeout=30)
        return bytes.fromhex(json.loads(out)["written_back"])

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


def test_the_monitor_on_a_y_cable_hears_every_round_and_sends_nothing(tmp_path):
    # --hold-s 8: the monitor, the splitter, the controller and the session share this machine's
    # cores with the rest of the suite; an ACK read before its message (the message's line starved
    # for a moment) waits up to the hold. --duration 30, under finished()'s wait: a monitor that
    # loses sight of a round ends by itself and the assertion shows what it said. (CI's failures of
    # this test were not the load: the merge forgot messages after 64, and one round's 108 SETTLEs
    # outran the host line's ACKs of them; tests/monitor/test_monitor_line_behind_a_burst.py.)
    with emulator_process(["--game", GAME, "--seed", "3", "--misbehave", "straight-up-35-to-1"],
                          listen="127.0.0.1:0") as controller:
        cable = YCable(controller)
        try:
            with monitor_process("--game", GAME, "--host-line", cable.path("host"), "--controller-line",
                                 cable.path("controller"), "--rounds", 3, "--duration", 30, "--hold-s", 8,
                                 "--out", tmp_path / "monitor") as (proc, first):
                run = run_session(SessionConfig(game=GAME, controller=cable.path("bench"), rounds=3, plant="dice",
                                                seed=6, out=str(tmp_path / "run"), progress=False))
                status, out, _ = finished(proc, timeout=60)
            assert cable.written_by_the_monitor() == b""
        finally:
            cable.close()
    assert run.status == 1 and status == 1, out[-2000:]
    [journal] = sorted((tmp_path / "monitor").glob("monitor-*.jsonl"))
    watched = replay(journal)
    assert [r.round for r in watched.oracle.rounds] == [r.round for r in run.oracle.rounds] == [1, 2, 3]
    assert verdicts([journal]) == verdicts([run.journal]) and "617c.3(f)" in {v[1] for v in verdicts([journal])}
    assert "3 rounds seen whole" in out and "617c.3(f)" in out
