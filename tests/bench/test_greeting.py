"""The waits every bench-side driver shares (bench.protocol.greeting)."""

from __future__ import annotations

import pytest

from bench.protocol.greeting import replies_to, reply_to
from bench.protocol import ResponseTimeout, make


class Scripted:
    """A session that hands out the controller's messages in a set order."""

    def __init__(self, *messages):
        self.messages = list(messages)

    def receive(self, timeout, *, expect):
        while self.messages:
            message = self.messages.pop(0)
            if message.type in expect:
                return message
        raise ResponseTimeout(f"nothing more within {timeout} s")


def test_replies_to_wagers_are_taken_in_whatever_order_they_come():
    session = Scripted(make("REFUSE", round=1, id="w2", reason="bad-stake"), make("ACCEPT", round=1, id="old"),
                       make("ACCEPT", round=1, id="w1"), make("ACCEPT", round=1, id="w3"))
    replies = replies_to(session, ["w1", "w2", "w3"], reply_s=0.1)
    assert {wager_id: reply.type for wager_id, reply in replies.items()} == \
        {"w1": "ACCEPT", "w2": "REFUSE", "w3": "ACCEPT"}


def test_a_reply_that_never_comes_is_a_bounded_wait():
    with pytest.raises(ResponseTimeout):
        reply_to(Scripted(make("ACCEPT", round=1, id="w1")), "w2", reply_s=0.1)


def test_what_a_controller_still_had_in_flight_before_its_hello_is_not_taken_for_this_session():
    """A controller left on between sessions (docs/protocol.md section 5):
    frames of its earlier session arrive before its HELLO (here an OPEN of
    round 6 and a SETTLE sent again until acknowledged); the driver's round
    is the one opened after the HELLO, round 7, never the stale round 6."""
    import socket
    import threading

    from bench.protocol import BENCH, Codec, Session, Timeouts
    from bench.protocol.greeting import greet
    from bench.protocol.link import Link
    from bench.rules.submission import default_rules

    game = "lightning-dice"
    codec = Codec(game)
    ours, theirs = socket.socketpair()
    theirs.settimeout(5)

    def controller():
        theirs.sendall(codec.encode(make("OPEN", round=6), 41) + codec.encode(
            make("SETTLE", round=5, id="w3", returned=500), 40))
        heard = b""
        while b"HELLO" not in heard:
            heard += theirs.recv(4096)
        seq = int(heard[heard.index(b"HELLO") - 5:][:4])
        theirs.sendall(codec.encode(make("ACK"), seq) + b"".join(codec.encode(m, n) for n, m in enumerate((
            make("HELLO", proto=2, role="controller", sw="fake/1", game=game, rules="default", window=16),
            make("SETTLED", round=6, wagers=0, returned=0, void=True), make("CLEARED", round=6),
            make("OPEN", round=7)), start=42)))

    thread = threading.Thread(target=controller, daemon=True)
    thread.start()
    session = Session(Link.from_socket(ours, "bench"), game, role=BENCH, timeouts=Timeouts())
    hello = greet(session, game=game, rules=default_rules(game), software="tests/1", reply_s=2.0)
    assert hello.seq == 42
    assert session.receive(2.0, expect="OPEN")["round"] == 7
    thread.join(5)
    ours.close(), theirs.close()
