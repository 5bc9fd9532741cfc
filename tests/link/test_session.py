"""The session's delivery rules, deterministic: a lost ACK makes the sender
send again, and the receiver delivers the message once."""

from __future__ import annotations

import socket
import threading

import pytest

from bench.protocol.link import Link
from bench.protocol import BENCH, CONTROLLER, PROTOCOL_VERSIONS, Session, Timeouts, make

TIMEOUTS = Timeouts(byte=0.05, frame=0.2, response=0.15, retries=3)


class LosesWrite:
    """A port that silently loses its n-th write (counting from 1)."""

    def __init__(self, port, lose: int):
        self.port, self.lose, self.writes = port, lose, 0

    def read_some(self, timeout):
        return self.port.read_some(timeout)

    def write(self, data):
        self.writes += 1
        if self.writes != self.lose:
            self.port.write(data)


@pytest.mark.parametrize("proto", PROTOCOL_VERSIONS)
def test_a_lost_ack_brings_one_retransmission_and_one_delivery(proto):
    a, b = socket.socketpair()
    controller = Session(LosesWrite(Link.from_socket(a, "c"), lose=1), "sic-bo", role=CONTROLLER, timeouts=TIMEOUTS)
    bench = Session(Link.from_socket(b, "b"), "sic-bo", role=BENCH, timeouts=TIMEOUTS)
    for session in (controller, bench):
        session.use_protocol(proto)
    got = []
    listener = threading.Thread(target=lambda: got.extend(
        m for m in [controller.poll(1.5, expect="WAGER"), controller.poll(0.4)] if m))
    listener.start()
    try:
        sent = bench.send(make("WAGER", round=1, id="w1", bet="big", stake=5))
        bench.flush()                           # version 2: send returned at once; wait for the ACK
        listener.join(timeout=3)
    finally:
        a.close()
        b.close()
    assert sent.seq == 0 and bench.stats["tx_retransmit"] == 1
    assert [m.type for m in got] == ["WAGER"]                 # delivered once
    assert controller.stats["duplicates"] == 1 and controller.stats["tx_ack"] == 2
