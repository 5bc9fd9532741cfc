"""bench monitor on the two read-only lines of a Y-cable (here: pseudo-
terminals fed by a splitter, as an RS-232 Y-cable feeds two receive lines):
it hears the run's rounds and gives its verdicts, and never sends a byte
down either line."""

from __future__ import annotations

import os
import select
import threading

from bench.emulator.process import emulator_process
from bench.journal.replay import replay
from bench.protocol.link import open_link, open_pty_pair
from bench.session.runner import SessionConfig, run_session
from tests.monitor.conftest import finished, monitor_process, verdicts

GAME = "lightning-roulette"


class YCable:
    """The host's line (a pty the bench opens) joined to the controller's
    link, with a copy of each direction put on a line of its own."""

    def __init__(self, controller_url: str):
        self.host = open_pty_pair()
        self.taps = {"host": open_pty_pair(), "controller": open_pty_pair()}
        self.controller = open_link(controller_url)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._join, daemon=True)
        self.thread.start()

    def path(self, which: str) -> str:
        return self.host[2] if which == "bench" else self.taps[which][2]

    def _join(self) -> None:
        host_master = self.host[0]
        while not self.stop.is_set():
            if select.select([host_master], [], [], 0.01)[0]:
                data = os.read(host_master, 4096)
                os.write(self.taps["host"][0], data)
                self.controller.write(data)
            data = self.controller.read_some(0.005)
            if data:
                os.write(self.taps["controller"][0], data)
                os.write(host_master, data)

    def written_by_the_monitor(self) -> bytes:
        """Whatever came back up the tap lines: a monitor that never sends leaves nothing."""
        found = b""
        for master, _, _ in self.taps.values():
            while select.select([master], [], [], 0.05)[0]:
                found += os.read(master, 4096)
        return found

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=2)
        self.controller.close()
        for master, slave, _ in [self.host, *self.taps.values()]:
            os.close(master)
            os.close(slave)


def test_the_monitor_on_a_y_cable_hears_every_round_and_sends_nothing(tmp_path):
    with emulator_process(["--game", GAME, "--seed", "3", "--misbehave", "straight-up-35-to-1"],
                          listen="127.0.0.1:0") as controller:
        cable = YCable(controller)
        try:
            with monitor_process("--game", GAME, "--host-line", cable.path("host"), "--controller-line",
                                 cable.path("controller"), "--rounds", 3, "--duration", 60,
                                 "--out", tmp_path / "monitor") as (proc, first):
                run = run_session(SessionConfig(game=GAME, controller=cable.path("bench"), rounds=3, plant="dice",
                                                seed=6, out=str(tmp_path / "run"), progress=False))
                status, out, _ = finished(proc)
            assert cable.written_by_the_monitor() == b""
        finally:
            cable.close()
    assert run.status == 1 and status == 1, out[-2000:]
    [journal] = sorted((tmp_path / "monitor").glob("monitor-*.jsonl"))
    watched = replay(journal)
    assert [r.round for r in watched.oracle.rounds] == [r.round for r in run.oracle.rounds] == [1, 2, 3]
    assert verdicts([journal]) == verdicts([run.journal]) and "617c.3(f)" in {v[1] for v in verdicts([journal])}
    assert "3 rounds seen whole" in out and "617c.3(f)" in out
