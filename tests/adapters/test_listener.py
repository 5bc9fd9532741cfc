"""A listener takes the messages the receiver takes, by the receiver's own
rules: in version 2 of the bench's protocol a frame past a gap (one lost on
the line) is not a message until the frames before it come again, as the
receiver discards it; in stop-and-wait a frame sent again is a copy."""

from __future__ import annotations

from bench.adapters.native import Native, NativeCodec
from bench.adapters.sentence import AsciiSentence
from bench.protocol import BENCH, CONTROLLER, make
from bench.rules.base import Lucky

GAME = "lightning-dice"


def frames(codec, numbered):
    return [codec.encode(make(type_, **fields), seq) for seq, type_, fields in numbered]


def test_version_2_takes_messages_in_order_only():
    host, controller = Native().listeners(GAME)
    lucky = (Lucky("total:3", 249), Lucky("total:10", 24))
    hello, opened, one, two, nomore, shown = frames(NativeCodec(GAME), [
        (0, "HELLO", dict(proto=2, role="controller", sw="c/1", game=GAME, window=16)),
        (1, "OPEN", dict(round=1)), (2, "ACCEPT", dict(round=1, id="w1")), (3, "ACCEPT", dict(round=1, id="w2")),
        (4, "NOMORE", dict(round=1)), (5, "LUCKY", dict(round=1, lucky=lucky))])
    events = []
    for data in (hello, opened, one, two, shown, nomore, shown):   # NOMORE lost the first time: LUCKY came first
        events += controller.feed(data, 1.0)
    assert [(e.message.type, e.kind) for e in events] == [
        ("HELLO", "message"), ("OPEN", "message"), ("ACCEPT", "message"), ("ACCEPT", "message"),
        ("LUCKY", "out-of-order"), ("NOMORE", "message"), ("LUCKY", "message")]
    assert host.agreement.version == 2                      # the controller's HELLO agreed it for both sides


def test_stop_and_wait_takes_a_copy_once_and_a_gap_as_a_message():
    listener = AsciiSentence().listener(GAME, BENCH)
    codec = AsciiSentence().codec(GAME, BENCH)
    close = codec.encode(make("CLOSE", round=1), 7)
    trigger = codec.encode(make("TRIGGER", round=1), 9)
    kinds = [e.kind for data in (close, close, trigger) for e in listener.feed(data, 1.0)]
    assert kinds == ["send", "retransmit", "send"]
    assert [e.kind for e in AsciiSentence().listener(GAME, CONTROLLER).feed(b"noise\r\n", 1.0)] == ["rejected"]
