"""Links from URLs: a raw pty pair carries every byte unchanged in both
directions, reads are bounded, and loop:// and spy:// open like any port."""

from __future__ import annotations

import math
import os
import select
import time
from types import SimpleNamespace

import pytest

from bench.protocol import link as link_module
from bench.protocol.link import _POLL, Link, open_link, open_pty_pair
from bench.protocol import LinkClosed, LinkError

EVERY_BYTE = bytes(range(256))


def read_exactly(link: Link, n: int, within: float = 30.0) -> bytes:     # within: a hang guard, no bound
    deadline, data = time.monotonic() + within, b""
    while len(data) < n and time.monotonic() < deadline:
        data += link.read_some(0.05)
    return data


def test_a_pty_pair_is_raw_both_ways():
    master, slave, path = open_pty_pair()
    try:
        emulator_end = Link.from_fd(master, "master")
        with open_link(path) as bench_end:
            # Ctrl-C, XON/XOFF, CR, LF, DEL and 8-bit bytes pass untouched, without echo.
            bench_end.write(EVERY_BYTE)
            assert read_exactly(emulator_end, 256) == EVERY_BYTE
            emulator_end.write(EVERY_BYTE[::-1])
            assert read_exactly(bench_end, 256) == EVERY_BYTE[::-1]
            assert bench_end.read_some(0.05) == b""           # no echo of what we sent
    finally:
        os.close(slave)
        os.close(master)


def test_a_read_waits_no_longer_than_its_timeout(monkeypatch):
    master, slave, path = open_pty_pair()
    waits = []

    def timed_select(r, w, x, timeout):
        waits.append(timeout)
        return select.select(r, w, x, timeout)

    monkeypatch.setattr(link_module, "select", SimpleNamespace(select=timed_select))
    try:
        with open_link(path) as link:
            started = time.monotonic()
            assert link.read_some(0.1) == b""
            assert time.monotonic() - started >= 0.09          # it waited ...
            assert waits == [0.1]                              # ... one wait, of its timeout, the system's to keep
            for bad in (None, -1, float("inf")):
                with pytest.raises(ValueError, match="finite timeout"):
                    link.read_some(bad)
    finally:
        os.close(slave)
        os.close(master)


def test_loop_url_echoes_with_bounded_reads():
    with open_link("loop://") as link:
        link.write(b"$0000 ACK*B1EE\r\n")
        assert read_exactly(link, 16) == b"$0000 ACK*B1EE\r\n"
        # No descriptor to wait on: pyserial waits at most its timeout, _POLL, a read; counted,
        # the reads a 0.05 s read_some makes come to its timeout (not a loaded machine's wall clock).
        port, reads = link._port, []
        real_read = port.read
        port.read = lambda size=1: reads.append(size) or real_read(size)
        assert link.read_some(0.05) == b""
        assert port.timeout == _POLL and 1 <= len(reads) <= math.ceil(0.05 / _POLL) + 1


def test_a_closed_peer_is_reported_not_hung():
    master, slave, path = open_pty_pair()
    link = open_link(path)
    os.close(slave)
    os.close(master)
    with pytest.raises(LinkClosed):
        for _ in range(20):
            link.read_some(0.05)
    link.close()


def test_an_unopenable_url_names_itself():
    with pytest.raises(LinkError, match="cannot open link '/dev/no-such-tty'"):
        open_link("/dev/no-such-tty")
