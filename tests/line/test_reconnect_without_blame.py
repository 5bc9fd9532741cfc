"""``bench run --reconnect`` when the device goes away in the middle of a
round's settlement: what was on the line is lost with the device, and that
is the link's doing, not the controller's (issue 45: after an unplug just
after a round's first SETTLE, the oracle blamed the controller for the reply
to SENSOR and for the SETTLEs lost with the device). The round is void; it
is judged only on what crossed (docs/protocol.md 5)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from bench.emulator.line import SerialLine
from bench.emulator.process import emulator_process

REALTIME = ("--realtime", "--phase", "betting=0.4", "--phase", "lucky=0.1", "--phase", "result=0.3",
            "--phase", "clear=0.3")
UNPLUGGED_S = 3.0     # longer than the controller's 4 sends of 0.5 s: it gives up what was in flight


class CutAfterFirstSettle(SerialLine):
    """A line whose device is pulled out just after the first SETTLE of round
    1 reached it: the bytes behind it are lost, as on a real unplug."""

    cut_at: float | None = None
    dropping = False

    def _deliver(self, direction, fd, name, now):
        if name == "to_bench" and self.cut_at is None:
            waiting = bytes(direction.waiting)
            at = waiting.find(b" SETTLE round=1 ")
            end = waiting.find(b"\n", at) if at >= 0 else -1
            if end >= 0:
                direction.waiting[:] = waiting[:end + 1]
                super()._deliver(direction, fd, name, now)
                direction.waiting.clear()
                self.cut_at, self.dropping = now, True
                return
        if name == "to_bench" and self.dropping:
            direction.waiting.clear()        # unplugged: nothing reaches the bench
            return
        super()._deliver(direction, fd, name, now)


def test_settlements_lost_with_the_device_are_not_the_controllers_fault(tmp_path):
    out = tmp_path / "S"
    with CutAfterFirstSettle(tmp_path / "ttyUSB0", baud=115200) as line:
        with emulator_process(["--game", "lightning-dice", "--seed", "7"], listen=line.controller_path):
            bench = subprocess.Popen([sys.executable, "-m", "bench.cli", "run", "--controller", str(line.device),
                                      "--rounds", "2", "--plant", "dice", "--seed", "3", *REALTIME, "--out", str(out),
                                      "--no-progress", "--reconnect", "15"], cwd=tmp_path,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            deadline = time.monotonic() + 60
            while line.cut_at is None and bench.poll() is None and time.monotonic() < deadline:
                time.sleep(0.005)
            assert line.cut_at is not None, "round 1's settlement never began"
            line.unplug()
            time.sleep(UNPLUGGED_S)
            line.dropping = False
            line.replug()
            stdout, stderr = bench.communicate(timeout=120)
    summary = json.loads((out / "summary.json").read_text())
    # The round in flight is void (a failed round, exit status 1); nothing is the controller's fault.
    assert bench.returncode == 1 and summary["violations_by_clause"] == {}, stdout[-3000:] + stderr[-2000:]
    [(void_round, why)] = summary["failed_rounds"].items()
    assert void_round == "1" and "void: the link was lost" in why
    # bench replay judges the journal the same way.
    replayed = subprocess.run([sys.executable, "-m", "bench.cli", "replay", str(out / "session.jsonl"), "--head",
                               (out / "session.head").read_text().strip()], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
    assert "0 violations" in replayed.stdout, replayed.stdout[-2000:]
