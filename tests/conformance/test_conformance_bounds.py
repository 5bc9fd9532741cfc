"""The conformance kit is bounded against any controller: one that spews
bytes as fast as the link carries them costs bounded memory, output and
JUnit, and no check passes on messages the controller never sent."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from xml.etree import ElementTree

from bench.conformance.checks import by_name
from bench.conformance.suite import FAIL, run_one
from bench.protocol import Timeouts
from bench.rules.submission import default_rules
from tests.link.conftest import REPO

GAME = "lightning-dice"
FAST = Timeouts(byte=0.1, frame=0.5, response=0.2, retries=2)


class Spewer:
    """A 'controller' that writes bytes at every connection as fast as it can,
    and reads nothing: frame starts, line ends, and long runs of neither."""

    def __init__(self, chunk: bytes, pause: float = 0.0):
        self.pause = pause
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = "socket://127.0.0.1:%d" % self.server.getsockname()[1]
        self.chunk, self.stop = chunk, threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        self.server.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            threading.Thread(target=self._spew, args=(conn,), daemon=True).start()

    def _spew(self, conn: socket.socket) -> None:
        try:
            while not self.stop.is_set():
                conn.sendall(self.chunk)
                if self.pause:
                    time.sleep(self.pause)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.server.close()


GARBAGE = (b"\x00\xffgarbage $0001 OPEN round=1*ZZZZ\r\n" + b"x" * 3000 + b"\n") * 16


def peak_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def test_a_spewing_controller_costs_bounded_memory_output_and_junit(tmp_path):
    spewer = Spewer(GARBAGE)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "bench.cli", "conformance", "--controller", spewer.url,
                                 "--protocol", "1", "--check", "numbering", "--check", "frames-valid",
                                 "--response-timeout", "0.2", "--retries", "2", "--junit", str(tmp_path / "j.xml")],
                                cwd=REPO, stdout=open(tmp_path / "out", "wb"), stderr=subprocess.PIPE)
        peak = 0.0
        started = time.monotonic()
        while proc.poll() is None and time.monotonic() - started < 120:
            peak = max(peak, peak_mb(proc.pid))
            time.sleep(0.05)
        proc.wait(timeout=30)
    finally:
        spewer.close()
    out = (tmp_path / "out").read_bytes()
    assert proc.returncode == 1, out[-2000:]
    assert peak < 250, f"{peak:.0f} MB"
    assert len(out) < 200_000 and max(len(line) for line in out.splitlines()) < 3_000, len(out)
    assert (tmp_path / "j.xml").stat().st_size < 200_000
    cases = ElementTree.parse(tmp_path / "j.xml").getroot().findall("testcase")
    assert {c.get("name"): c.find("failure") is not None for c in cases} == \
        {"numbering[v1]": True, "frames-valid[v1]": True}


def test_no_check_passes_on_zero_messages():
    """A controller that says nothing the bench can decode (a trickle of
    bytes, well under the flood ceiling): numbering has nothing to number,
    and fails saying so instead of passing."""
    spewer = Spewer(b"y" * 200, pause=0.01)
    try:
        result = run_one(by_name()["numbering"], 1, spewer.url, game=GAME, rules=default_rules(GAME, None),
                         timeouts=FAST, budget_s=10)
    finally:
        spewer.close()
    assert result.status == FAIL and "no message" in result.detail, result.detail
    assert len(result.wire_log) < 100_000
