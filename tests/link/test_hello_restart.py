"""A HELLO sent again versus a peer that restarted (docs/protocol.md,
sections 3 and 9): a receiver takes a HELLO whatever its number, so it must
tell the same HELLO sent again (our ACK was lost; in version 2 also a
go-back-N resend with the frames after it) from the HELLO of a peer that
restarted (after its RESET, at 0000 again, maybe byte for byte the HELLO it
sent before). The first is ACKed again and delivered once; the second is
delivered, and so are the messages numbered after it.

The controller's side is scripted frame by frame on a socket pair; the
bench's side is a real Session."""

from __future__ import annotations

import select
import socket

import pytest

from bench.protocol.link import Link
from bench.protocol import BENCH, PROTOCOL_VERSIONS, Codec, Session, Timeouts, make

GAME = "lightning-dice"
TIMEOUTS = Timeouts(byte=0.05, frame=0.2, response=0.1, retries=2)
CODEC = Codec(GAME)
versions = pytest.mark.parametrize("proto", PROTOCOL_VERSIONS)


def hello(proto: int, seed: int = 7):
    fields = dict(window=16) if proto == 2 else {}
    return make("HELLO", proto=proto, role="controller", sw="fake/1", game=GAME, rules="default", seed=seed,
                **fields)


class Script:
    """The controller's end: writes frames, one write each, and lets the
    bench's session take them (one read each) and answer."""

    def __init__(self, proto: int):
        self.proto = proto
        self.sock, theirs = socket.socketpair()
        self.events = []
        self.bench = Session(Link.from_socket(theirs, "b"), GAME, role=BENCH, timeouts=TIMEOUTS,
                             observer=self.events.append)
        self.bench.use_protocol(proto, peer_window=16)
        self._theirs = theirs

    def say(self, message, seq: int) -> bytes:
        frame = CODEC.encode(message, seq)
        self.sock.sendall(frame)
        self.bench.linger(0.03)              # one read takes the frame; its ACK goes out
        return frame

    def delivered(self) -> list[tuple[str, int]]:
        got = []
        while (m := self.bench.poll(0.01)) is not None:
            got.append((m.type, m.seq))
        return got

    def acks(self) -> list[int]:
        data = b""
        while select.select([self.sock], [], [], 0.05)[0]:
            data += self.sock.recv(4096)
        return [CODEC.decode_line(line.rstrip(b"\r"), BENCH)[0].seq for line in data.splitlines()]

    def close(self):
        self.sock.close()
        self._theirs.close()


@pytest.fixture
def script(request):
    s = Script(request.param)
    yield s
    s.close()


both = pytest.mark.parametrize("script", PROTOCOL_VERSIONS, indirect=True)


@both
def test_the_same_hello_again_is_acked_again_and_delivered_once(script):
    first = script.say(hello(script.proto), 0)
    again = script.say(hello(script.proto), 0)          # our ACK was lost: the same frame again
    assert again == first
    assert script.delivered() == [("HELLO", 0)]
    assert script.acks() == [0, 0]                      # ACKed again, so the controller stops resending
    assert script.bench.stats["duplicates"] == 1
    script.say(make("OPEN", round=1), 1)                # and the next message is taken as usual
    assert script.delivered() == [("OPEN", 1)] and script.acks() == [1]


def test_v2_a_hello_resent_by_go_back_n_with_the_frames_after_it_is_a_duplicate():
    s = Script(2)
    try:
        s.say(hello(2), 0)
        s.say(make("OPEN", round=1), 1)
        s.say(hello(2), 0)                              # go-back-N: HELLO and OPEN again
        s.say(make("OPEN", round=1), 1)
        s.say(make("NOMORE", round=1), 2)
        assert s.delivered() == [("HELLO", 0), ("OPEN", 1), ("NOMORE", 2)]
        assert s.bench.stats["duplicates"] == 2 and s.bench.stats["out_of_order"] == 0
        assert s.acks() == [0, 1, 1, 1, 2]              # the resends are ACKed with the last accepted
    finally:
        s.close()


def test_v1_a_hello_after_other_traffic_is_a_new_one():
    """Version 1 is stop-and-wait: the controller sent OPEN only once its
    HELLO was acknowledged, so a HELLO after it is not a resend."""
    s = Script(1)
    try:
        s.say(hello(1), 0)
        s.say(make("OPEN", round=1), 1)
        s.say(hello(1), 0)
        assert s.delivered() == [("HELLO", 0), ("OPEN", 1), ("HELLO", 0)]
        assert s.bench.stats["duplicates"] == 0
    finally:
        s.close()


@both
def test_a_hello_after_a_reset_is_delivered_even_byte_for_byte_the_same(script):
    proto = script.proto
    first = script.say(hello(proto), 0)
    script.say(make("OPEN", round=1), 1)
    script.say(make("RESET", reason="fault", round=1), 2)
    restarted = script.say(hello(proto), 0)              # numbering restarts at 0000
    assert restarted == first                            # same number, same CRC
    assert script.delivered() == [("HELLO", 0), ("OPEN", 1), ("RESET", 2), ("HELLO", 0)]
    # The restarted HELLO sent again (its ACK lost) is a duplicate in turn ...
    script.say(hello(proto), 0)
    assert script.delivered() == [] and script.bench.stats["duplicates"] == 1
    # ... and what the controller numbers after it is new, not the old OPEN's numbers again.
    script.say(make("SETTLED", round=1, wagers=0, returned=0, void=True), 1)
    script.say(make("CLEARED", round=1), 2)
    script.say(make("OPEN", round=2), 3)
    assert script.delivered() == [("SETTLED", 1), ("CLEARED", 2), ("OPEN", 3)]
    stats = script.bench.stats
    assert stats["duplicates"] == 1 and stats["out_of_order"] == 0 and stats["sequence_gaps"] == 0
    assert script.acks() == [0, 1, 2, 0, 0, 1, 2, 3]


@both
@pytest.mark.parametrize("opened", [True, False], ids=["after-open", "right-after-hello"])
def test_a_restarted_peer_with_another_hello_is_delivered_without_a_reset(script, opened):
    proto = script.proto
    script.say(hello(proto, seed=7), 0)
    if opened:
        script.say(make("OPEN", round=1), 1)
    script.say(hello(proto, seed=8), 0)                  # 0000 again, another CRC: a new HELLO
    script.say(make("OPEN", round=1), 1)                 # and what follows it is new too
    assert script.delivered() == [("HELLO", 0)] + [("OPEN", 1)] * opened + [("HELLO", 0), ("OPEN", 1)]
    assert script.bench.stats["duplicates"] == 0
    assert [m["seed"] for m in (e.message for e in script.events if e.kind == "message")
            if m.type == "HELLO"] == [7, 8]


@both
def test_the_same_hello_far_behind_the_last_message_is_a_restart(script):
    """Go-back-N resends at most a window (32 at the most) of frames: the
    same HELLO arriving further behind than that is a peer that restarted
    (without its RESET reaching us), not a resend."""
    proto = script.proto
    script.say(hello(proto), 0)
    script.sock.sendall(b"".join(CODEC.encode(make("OPEN", round=r), r) for r in range(1, 33)))
    script.bench.linger(0.1)
    assert len(script.delivered()) == 33
    script.say(hello(proto), 0)                          # 32 messages on: not one go-back-N would resend
    assert script.delivered() == [("HELLO", 0)] and script.bench.stats["duplicates"] == 0
