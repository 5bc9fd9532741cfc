"""greet() against a strict version-1 controller, one whose decoder cannot
even read the version-2 offer: it refuses HELLO's unknown ``window`` field
(``extra-field``) and NAKs the frame instead of answering ``ERROR
code=version``. The bench must give up on that HELLO within the send's
retries and greet again in version 1 (docs/protocol.md, section 9,
"Negotiation"), so that such a controller keeps working."""

from __future__ import annotations

import socket
import threading

from bench.emulator.controller import EmulatedController
from bench.protocol.greeting import greet
from bench.protocol.link import Link
from bench.protocol import BENCH, CONTROLLER, Codec, FrameError, Session, StreamDecoder, Timeouts
from bench.rules.submission import default_rules

GAME = "lightning-dice"
TIMEOUTS = Timeouts(byte=0.05, frame=0.2, response=0.1, retries=2)


class StrictV1Codec(Codec):
    """A version-1 decoder: HELLO has no ``window`` field in version 1."""

    def decode_line(self, line, sender=None):
        message, crc = super().decode_line(line, sender)
        if "window" in message.fields:
            raise FrameError("extra-field", f"{message.type}: unexpected field 'window' (version 1)")
        return message, crc


def strict_v1_controller(sock: socket.socket) -> tuple[EmulatedController, Session]:
    session = Session(Link.from_socket(sock, "c"), GAME, role=CONTROLLER, timeouts=TIMEOUTS)
    session.codec = StrictV1Codec(GAME)
    session.decoder = StreamDecoder(session.codec, sender=BENCH, byte_timeout=TIMEOUTS.byte,
                                    frame_timeout=TIMEOUTS.frame)
    controller = EmulatedController(session, game=GAME, rules=default_rules(GAME, None), seed=1, versions=(1,))
    return controller, session


def test_greet_falls_back_to_version_1_when_the_controller_naks_the_offer():
    a, b = socket.socketpair()
    controller, peer = strict_v1_controller(a)
    stop = threading.Event()
    serving = threading.Thread(target=controller.serve, kwargs=dict(should_stop=stop.is_set, idle_poll=0.05),
                               daemon=True)
    serving.start()
    events = []
    bench = Session(Link.from_socket(b, "b"), GAME, role=BENCH, timeouts=TIMEOUTS, observer=events.append)
    try:
        hello = greet(bench, game=GAME, rules=default_rules(GAME, None), software="tests/1", reply_s=1.0)
        opened = bench.receive(1.0, expect="OPEN")
    finally:
        stop.set()
        serving.join(2)
        a.close()
        b.close()

    # The version agreed is 1, on both ends, and the round opens.
    assert hello["proto"] == 1 and "window" not in hello.fields
    assert bench.version == 1 and bench.peer_window == 1 and peer.version == 1
    assert opened["round"] == 1

    # Bounded: the version-2 HELLO's attempts, each sent again at its NAK
    # (not its timer), then the version-1 exchange; nothing else. What the
    # journal sees: the version-2 HELLO, each attempt NAKed (extra-field,
    # naming no frame accepted yet), then the version-1 HELLO.
    said = [(e.direction, e.kind, e.message.type, e.message.get("proto"), e.message.get("reason"))
            for e in events if e.message is not None and e.message.type in ("HELLO", "NAK")]
    offer = [("tx", "send", "HELLO", 2, None), ("rx", "nak", "NAK", None, "extra-field")]
    for _ in range(TIMEOUTS.retries):
        offer += [("tx", "retransmit", "HELLO", 2, None), ("rx", "nak", "NAK", None, "extra-field")]
    assert said == offer + [("tx", "send", "HELLO", 1, None), ("rx", "message", "HELLO", 1, None)]
    v2_hello = next(e for e in events if e.kind == "send")
    assert b" window=16" in v2_hello.raw
    assert all(e.message.seq == 9999 for e in events if e.kind == "nak")
    # The controller rejected the offer frame by frame and delivered none of it.
    assert peer.stats["rejected:extra-field"] == TIMEOUTS.retries + 1
    assert peer.stats["tx_nak"] == TIMEOUTS.retries + 1
    assert bench.stats["link_timeouts"] == 1 and bench.stats["naks_received"] == TIMEOUTS.retries + 1
