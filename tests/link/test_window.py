"""Protocol version 2's delivery, deterministic over a socket pair: several
messages in flight arrive once and in order with few ACKs, a frame lost or
damaged inside the window is recovered by going back to the gap, a full
window blocks until an ACK, a silent peer gives a bounded LinkTimeout, and
greet() negotiates the version (falling back for a version-1 controller)."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager

import pytest

from bench.protocol.greeting import greet
from bench.protocol.link import Link
from bench.protocol import BENCH, CONTROLLER, LinkTimeout, ProtocolViolation, Session, Timeouts, make
from bench.rules.submission import default_rules
from tests.link.conftest import Silence, connect

GAME = "lightning-dice"
TIMEOUTS = Timeouts(byte=0.05, frame=0.2, response=0.15, retries=2)


def wagers(n: int):
    return [make("WAGER", round=1, id=f"w{i}", bet="low", stake=100 + i) for i in range(1, n + 1)]


class Mangles:
    """A port that drops or corrupts the n-th frame it writes (counting from 1),
    splitting coalesced writes at their line ends."""

    def __init__(self, port, nth: int, how: str):
        self.port, self.nth, self.how, self.frames = port, nth, how, 0

    def read_some(self, timeout):
        return self.port.read_some(timeout)

    def write(self, data):
        out = bytearray()
        for frame in data.splitlines(keepends=True):
            self.frames += 1
            if self.frames == self.nth:
                if self.how == "drop":
                    continue
                frame = frame.replace(b"stake=1", b"stake=7", 1)    # the CRC no longer matches
            out += frame
        self.port.write(bytes(out))


@contextmanager
def pair(*, bench_port=lambda p: p, peer_window: int = 16):
    """A bench and a controller session in version 2 on a socket pair."""
    a, b = socket.socketpair()
    controller = Session(Link.from_socket(a, "c"), GAME, role=CONTROLLER, timeouts=TIMEOUTS)
    bench = Session(bench_port(Link.from_socket(b, "b")), GAME, role=BENCH, timeouts=TIMEOUTS)
    controller.use_protocol(2, peer_window=16)
    bench.use_protocol(2, peer_window=peer_window)
    try:
        yield bench, controller
    finally:
        a.close()
        b.close()


def collect(controller: Session, n: int, got: list, start_after: float = 0.0):
    """Run in a thread: the controller takes ``n`` messages (then keeps
    acknowledging for a moment, as a live controller would)."""
    def run():
        time.sleep(start_after)
        deadline = time.monotonic() + 3.0
        while len(got) < n and time.monotonic() < deadline:
            m = controller.poll(0.05)
            if m:
                got.append(m)
        controller.poll(0.2)
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_ten_wagers_in_flight_arrive_once_in_order_with_few_acks():
    with pair() as (bench, controller):
        got = []
        thread = collect(controller, 10, got)
        sent = [bench.send(m) for m in wagers(10)]
        assert bench.in_flight == 10                  # none waited for an ACK
        bench.flush(2.0)
        thread.join(5)
    assert [m["id"] for m in got] == [f"w{i}" for i in range(1, 11)]
    assert [m.seq for m in got] == [m.seq for m in sent] == list(range(10))
    assert bench.stats["tx_writes"] == 1              # the ten frames left in one write
    assert controller.stats["tx_ack"] <= 3 and controller.stats["duplicates"] == 0
    assert bench.stats["tx_retransmit"] == 0 and bench.in_flight == 0


@pytest.mark.parametrize("how", ["drop", "corrupt"])
def test_a_frame_lost_in_the_window_is_recovered_by_going_back(how):
    with pair(bench_port=lambda p: Mangles(p, 4, how)) as (bench, controller):
        got = []
        thread = collect(controller, 10, got)
        for m in wagers(10):
            bench.send(m)
        bench.flush(2.0)
        thread.join(5)
    assert [m["id"] for m in got] == [f"w{i}" for i in range(1, 11)]     # once each, in order
    # The receiver said so once (a NAK for the damage, or for the first frame past the gap) ...
    assert controller.stats["tx_nak"] == 1
    assert controller.stats["out_of_order"] == 6               # w5..w10 past the gap, discarded
    # ... and the sender went back to the gap: w4 to w10 again, nothing before.
    assert bench.stats["tx_retransmit"] == 7 and bench.stats["naks_received"] == 1


def test_a_full_window_blocks_send_until_an_ack():
    with pair(peer_window=2) as (bench, controller):
        got = []
        started = time.monotonic()        # before the controller's clock starts: its ACK cannot come sooner
        thread = collect(controller, 3, got, start_after=0.3)
        bench.send(wagers(1)[0])
        bench.send(wagers(2)[1])
        assert bench.in_flight == 2 and bench.stats["rx_bytes"] == 0    # room for both: neither read for an ACK
        bench.send(wagers(3)[2])                        # no room: waits for the controller's ACK
        assert time.monotonic() - started >= 0.3 and bench.in_flight <= 2
        bench.flush(2.0)
        thread.join(5)
    assert [m["id"] for m in got] == ["w1", "w2", "w3"]


GIVEN_UP = (r"WAGER \(seq 0000\) not acknowledged after 3 attempts of 0.15 s each "
            r"\(2 later messages given up with it\)")


@pytest.mark.parametrize("wait", ["flush", "poll"])
def test_a_silent_peer_gives_a_bounded_link_timeout(wait):
    with pair() as (bench, _silent):
        for m in wagers(3):
            bench.send(m)
        started = time.monotonic()
        with pytest.raises(LinkTimeout, match=GIVEN_UP):
            bench.flush() if wait == "flush" else bench.poll(5.0)   # a receive keeps the timer running too
        elapsed = time.monotonic() - started
    # Not before its attempts ran out (a loaded machine only makes it later: how much later,
    # benchmarks/wall_clock_bench.py; exactly when, on the session's own clock, the test below).
    assert elapsed >= TIMEOUTS.give_up_after() - 0.05
    assert bench.stats["tx_retransmit"] == 2 * 3 and bench.in_flight == 0


@pytest.mark.parametrize("wait", ["flush", "poll"])
def test_a_silent_peer_is_given_up_when_the_attempts_run_out_by_the_sessions_clock(wait):
    peer = Silence()
    bench = Session(peer, GAME, role=BENCH, timeouts=TIMEOUTS, clock=peer.clock)
    bench.use_protocol(2, peer_window=16)
    for m in wagers(3):
        bench.send(m)
    with pytest.raises(LinkTimeout, match=GIVEN_UP):
        bench.flush() if wait == "flush" else bench.poll(5.0)
    assert peer.now == pytest.approx(TIMEOUTS.give_up_after(), abs=1e-9)     # 3 attempts of 0.15 s, not a moment more
    assert peer.written.count(b" WAGER ") == 3 * 3 and bench.in_flight == 0


def test_greet_speaks_version_2_with_a_controller_that_does(emulator):
    rules = default_rules(GAME, None)
    with emulator("--game", GAME, "--seed", "1") as url:
        session = connect(url, GAME)
        try:
            hello = greet(session, game=GAME, rules=rules, software="tests/1", reply_s=3.0)
            session.receive(3.0, expect="OPEN")
        finally:
            session.port.close()
    assert hello["proto"] == 2 and hello["window"] == 16
    assert session.version == 2 and session.peer_window == 16


def test_greet_falls_back_to_version_1_for_a_version_1_controller(emulator):
    rules = default_rules(GAME, None)
    events = []
    with emulator("--game", GAME, "--seed", "1", "--protocol", "1") as url:
        session = connect(url, GAME, observer=events.append)
        try:
            hello = greet(session, game=GAME, rules=rules, software="tests/1", reply_s=3.0)
            opened = session.receive(3.0, expect="OPEN")
        finally:
            session.port.close()
    assert hello["proto"] == 1 and "window" not in hello.fields and session.version == 1
    said = [(e.direction, e.message.type, e.message.get("proto") or e.message.get("code"))
            for e in events if e.kind in ("send", "message")]
    assert said[:4] == [("tx", "HELLO", 2), ("rx", "ERROR", "version"), ("tx", "HELLO", 1), ("rx", "HELLO", 1)]
    assert opened["round"] == 1


def test_greet_refuses_a_controller_answering_in_another_version():
    a, b = socket.socketpair()
    controller = Session(Link.from_socket(a, "c"), GAME, role=CONTROLLER, timeouts=TIMEOUTS)
    bench = Session(Link.from_socket(b, "b"), GAME, role=BENCH, timeouts=TIMEOUTS)

    def answer():
        if controller.poll(2.0, expect="HELLO"):
            controller.send(make("HELLO", proto=3, role="controller", sw="odd/1", game=GAME))
    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        with pytest.raises(ProtocolViolation, match="it speaks protocol 3, the bench offered 2"):
            greet(bench, game=GAME, rules=default_rules(GAME, None), software="tests/1", reply_s=2.0)
        thread.join(3)
    finally:
        a.close()
        b.close()
    assert bench.version == 1
