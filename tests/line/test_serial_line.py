"""The serial line the tests put between the bench and an emulated
controller (bench.emulator.line): it carries bytes both ways no faster than
its baud rate, and it can be unplugged and plugged in again under the same
name, as a USB-serial adapter is."""

from __future__ import annotations

import time

import pytest

from bench.emulator.line import SerialLine
from bench.protocol import LinkClosed
from bench.protocol.link import open_link


def read_for(link, count: int, within_s: float) -> bytes:
    got = b""
    deadline = time.monotonic() + within_s
    while len(got) < count and time.monotonic() < deadline:
        got += link.read_some(0.05)
    return got


def test_bytes_cross_no_faster_than_the_baud_rate_and_both_ways_at_once(tmp_path):
    with SerialLine(tmp_path / "tty", baud=9600) as line:
        bench, controller = open_link(str(line.device)), open_link(line.controller_path)
        try:
            payload = bytes(range(256)) * 2                       # 512 bytes: 0.53 s at 960 bytes a second
            started = time.monotonic()
            bench.write(payload)
            controller.write(payload[::-1])
            there = back = b""
            first_done = None          # what the other end had when one end had all its bytes
            deadline = time.monotonic() + 60                      # a hang guard, not a bound on the pace
            while (len(there) < len(payload) or len(back) < len(payload)) and time.monotonic() < deadline:
                there += controller.read_some(0.02)
                back += bench.read_some(0)
                if first_done is None and len(payload) in (len(there), len(back)):
                    back += bench.read_some(0)
                    there += controller.read_some(0)
                    first_done = min(len(there), len(back))
            took = time.monotonic() - started
        finally:
            bench.close(), controller.close()
    assert there == payload and back == payload[::-1]             # nothing lost, nothing reordered
    assert took >= 0.5                                            # paced: no faster than 9,600 baud
    # Side by side: when either end had all 512 bytes the other had much of its own (one way
    # after the other, it would have had none yet), however late a loaded machine ran the reads.
    assert first_done >= len(payload) // 4, first_done
    assert line.carried == {"to_bench": 512, "to_controller": 512}


def test_an_unplugged_device_disappears_and_comes_back_under_its_name(tmp_path):
    with SerialLine(tmp_path / "ttyUSB0", baud=None) as line:
        bench = open_link(str(line.device))
        controller = open_link(line.controller_path)
        try:
            bench.write(b"$0000 HELLO\r\n")
            assert read_for(controller, 13, 30) == b"$0000 HELLO\r\n"          # (30 s: a hang guard)
            line.unplug()
            assert not line.device.exists()
            with pytest.raises(LinkClosed):
                for _ in range(20):
                    bench.read_some(0.05)
            line.replug()
            again = open_link(str(line.device))
            try:
                controller.write(b"$0001 OPEN round=1\r\n")
                assert read_for(again, 20, 30) == b"$0001 OPEN round=1\r\n"
            finally:
                again.close()
            assert line.plugs == 2
        finally:
            bench.close(), controller.close()
