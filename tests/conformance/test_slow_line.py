"""``bench conformance`` on a line with a speed (docs/protocol.md section 17):
what the checks put in flight and how long their long line is come from the
line's baud rate, so that a compliant controller behind a 9,600-baud line
passes as it does over TCP. The emulated controller sits behind a paced
serial line (``bench.emulator.line.SerialLine``), as ``bench run --baud``
puts it. The full suite at 9,600 baud (about two minutes) is
benchmarks/conformance_line_bench.py; here, the checks a slow line broke."""

from __future__ import annotations

import re

import pytest

from bench.cli import main
from bench.conformance.checks import REPLY_S, Context, by_name, largest_frame
from bench.conformance.speed import CheckLine, with_baud
from bench.conformance.suite import PASS, connect, run_suite
from bench.conformance.wire import CheckFailed, Wire
from bench.emulator.line import SerialLine
from bench.emulator.process import emulator_process
from bench.protocol import Timeouts
from bench.protocol.frame import MAX_FRAME
from bench.protocol.line_speed import LineError, window_for
from bench.protocol.session import WINDOW
from bench.rules.submission import default_rules
from tests.json_schemas import assert_json_lines

GAME = "lightning-dice"
RULES = default_rules(GAME, None)


# -- what the line allows, worked out -------------------------------------------------

def test_at_9600_baud_the_window_is_the_lines_and_the_long_line_fits_the_checks_time():
    slow, tcp, fast = CheckLine(9600), CheckLine(None), CheckLine(115200)
    # The window bench run and the pytest plugin keep at that speed, not the protocol's 16.
    assert slow.window == window_for(9600) < WINDOW and tcp.window == fast.window == WINDOW
    # 64 KiB took 68 s at 9,600 baud; sized, the line carries it in the 5 s a quarter of a check's budget allows...
    assert tcp.long_line_bytes == 65536 and slow.long_line_bytes == 4800
    assert slow.line.seconds(slow.long_line_bytes) <= 5.0
    # ... and it is still far longer than a frame, and than what the frame timeout lets in.
    assert slow.long_line_bytes > 4 * MAX_FRAME
    assert slow.long_line_bytes > slow.line.bytes_per_s * Timeouts().frame
    # Each write of it is what the line carries in a second: a real port's write blocks until it has all.
    assert slow.line.seconds(slow.write_chunk) <= 1.0
    # Before closing a check the bench listens at least as long as the controller's next frame takes to come.
    assert slow.quiet_s > slow.line.seconds(120 + 16) and slow.quiet_s > tcp.quiet_s


def test_the_line_comes_from_the_url_or_baud_as_for_bench_run():
    assert CheckLine.of("/dev/ttyUSB0?baud=9600").baud == 9600
    assert CheckLine.of("/dev/ttyUSB0").baud == 115200                 # a device without one: section 1
    assert CheckLine.of("socket://10.0.0.7:7001").baud is None         # TCP: no line speed
    assert with_baud("/dev/ttyUSB0", 9600) == "/dev/ttyUSB0?baud=9600"
    assert with_baud("rfc2217://h:4000?logging=debug", 9600) == "rfc2217://h:4000?logging=debug&baud=9600"
    with pytest.raises(LineError, match="disagree"):
        with_baud("/dev/ttyUSB0?baud=19200", 9600)


class _Mute:
    """A link that takes what is written and never answers."""

    def __init__(self):
        self.written = b""

    def write(self, data: bytes) -> None:
        self.written += data

    def read_some(self, timeout: float) -> bytes:
        return b""

    def close(self) -> None:
        pass


@pytest.mark.parametrize("name", ["hello-fields", "frames-valid", "hello-resent", "hello-wrong-game"])
def test_every_version_2_hello_announces_the_window_the_line_carries(name):
    link = _Mute()
    # A short budget: the check gives up soon after its HELLO, which is all that is looked at.
    wire = Wire(link, GAME, Timeouts(), budget_s=0.3)
    with pytest.raises(CheckFailed):
        by_name()[name].run(Context(wire, 2, GAME, RULES, Timeouts(), None, CheckLine(9600)))
    hello = link.written.split(b"\r\n")[0]
    assert b" HELLO proto=2 " in hello, hello
    assert re.search(rb" window=(\d+)\*", hello)[1] == b"%d" % window_for(9600), hello


# -- the command -------------------------------------------------------------------------

def bench(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["conformance", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_line_too_slow_for_the_checks_is_refused_at_once_in_one_line(capsys):
    status, out, err = bench(capsys, "--controller", "emulated", "--baud", "4800")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert f"line budget: at 4800 baud a {largest_frame(GAME, RULES)}-byte frame" in err
    assert "bench docs protocol 17" in err


def test_baud_and_a_url_naming_another_are_bad_usage(capsys):
    status, out, err = bench(capsys, "--controller", "/dev/ttyUSB9?baud=19200", "--baud", "9600")
    assert status == 2 and out == "" and err.count("\n") == 1 and "disagree" in err


def test_the_emulated_controller_behind_a_9600_baud_line_passes_the_long_line(capsys):
    status, out, err = bench(capsys, "--controller", "emulated", "--baud", "9600", "--protocol", "1",
                             "--check", "rejects-very-long-line", "--json")
    assert status == 0, out + err
    lines = assert_json_lines(out, "conformance")
    (check,), verdict = lines[:-1], lines[-1]
    assert check["check"] == "rejects-very-long-line[v1]" and check["status"] == "pass", check
    assert "4,800-byte line" in check["detail"]
    assert verdict["line"] == {"baud": 9600, "window": window_for(9600), "long_line_bytes": 4800}
    assert verdict["url"].endswith("?baud=9600")


# -- a controller behind a paced line ------------------------------------------------

# The checks 9,600 baud broke: the long line's (and every check after it, behind its bytes), the
# out-of-order resend's replies, the window's, and the last, which ended with a round still talking.
SLOW_LINE_CHECKS = ("rejects-very-long-line", "out-of-order", "window", "cumulative-ack", "go-back-n",
                    "error-reasons")


def test_a_compliant_controller_behind_a_9600_baud_line_passes_and_is_left_with_nothing_to_resend(tmp_path):
    t = Timeouts()
    with SerialLine(tmp_path / "ttyUSB0", baud=9600) as line:
        with emulator_process(["--game", GAME, "--seed", "7"], listen=line.controller_path,
                              stderr_path=str(tmp_path / "emulator.log")):
            url = f"{line.device}?baud=9600"
            results = run_suite(url, game=GAME, rules=RULES, timeouts=t, versions=(1, 2),
                                only=lambda c: c.name in SLOW_LINE_CHECKS)
            # The last check (error-reasons) ends after a RESULT: in version 1 the controller
            # then sends SETTLED, CLEARED and OPEN, each after the ACK of the one before. Left
            # unacknowledged, it would send one again every response timeout.
            listener = Wire(connect(url), GAME, t, budget_s=REPLY_S + t.give_up_after() + 1)
            try:
                heard = [a for a in listener.collect(t.give_up_after() + t.response) if a.message is not None]
            finally:
                listener.link.close()
    assert [(r.id, r.detail) for r in results if r.status != PASS] == []
    assert {r.check.name for r in results} == set(SLOW_LINE_CHECKS)
    assert [a.raw for a in heard] == []
