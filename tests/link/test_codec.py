"""Frames and messages: the CRC, every message type round-tripped for each
game, and each kind of malformed frame rejected with its precise reason."""

from __future__ import annotations

import pytest

from bench.protocol import BENCH, CONTROLLER, Codec, Decoded, MAX_FRAME, Rejected, StreamDecoder, Timeouts, make
from bench.protocol.crc import CHECK_VALUE, crc16_ccitt_false
from bench.protocol.frame import build
from bench.rules import describe, game_names
from bench.rules.base import Lucky

SAMPLES = {
    "dice3": [make("SENSOR", round=4, dice=(6, 1, 3), flat=(True, False, True)), make("RESULT", round=4, dice=(6, 1, 3)),
              make("RELEASE", round=4), make("NOROLL", round=4)],
    "wheel": [make("SENSOR", round=4, pocket=0), make("RESULT", round=4, pocket=36), make("SPIN", round=4)],
    "craps": [make("SENSOR", round=4, roll=2, dice=(3, 4), flat=(True, True)),
              make("RESULT", round=4, roll=2, dice=(3, 4), open=0), make("ROLL", round=4, roll=3)],
}
COMMON = [
    make("HELLO", proto=1, role="bench", sw="tests/1.0", game="sic-bo", paytable="A"),
    make("ERROR", code="bad-sensor", round=3, detail="faces (7, 1, 1) are not all from 1 to 6 — 100%"),
    make("RESET", reason="requested"), make("OPEN", round=12345),
    make("WAGER", round=1, id="w-17", bet="corner:1-2-4-5", stake=10 ** 12),
    make("ACCEPT", round=1, id="w-17"), make("REFUSE", round=1, id="x", reason="betting-closed", clause="617c.3(c)"),
    make("CLOSE", round=1), make("NOMORE", round=1), make("TRIGGER", round=1),
    make("SETTLE", round=1, id="w-17", returned=0), make("SETTLED", round=1, wagers=0, returned=0, void=True),
    make("CLEARED", round=1),
]


def test_crc_is_ccitt_false():
    assert crc16_ccitt_false(b"123456789") == CHECK_VALUE == 0x29B1


@pytest.mark.parametrize("game", sorted(game_names()))
def test_every_message_round_trips(game):
    codec = Codec(game)
    messages = COMMON + SAMPLES[describe(game).kind]
    if game in ("lightning-dice", "lightning-roulette"):
        messages.append(make("LUCKY", round=2, lucky=(Lucky("total:4", 150), Lucky("any-double", 3))))
    for seq, message in enumerate(messages):
        data = codec.encode(message, seq)
        assert data.endswith(b"\r\n") and data.startswith(b"$") and len(data) <= MAX_FRAME
        assert all(0x20 <= b < 0x7F for b in data[:-2])   # readable in a terminal
        decoded, raw = codec.decode_line(data[:-2])
        assert (decoded.type, decoded.seq, dict(decoded.fields)) == (message.type, seq, dict(message.fields))


def good(type_="WAGER", seq=1, game="lightning-dice", **fields):
    fields = fields or dict(round=1, id="w1", bet="total:11", stake=100)
    return Codec(game).encode(make(type_, **fields), seq)


def reframe(body: bytes) -> bytes:
    """A frame with a valid CRC around an arbitrary body."""
    return b"$" + body + b"*" + f"{crc16_ccitt_false(body):04X}".encode() + b"\r\n"


MALFORMED = [
    (good().replace(b"stake=100", b"stake=101"), "bad-crc", "bad CRC: frame says"),
    (good()[:-7] + b"\r\n", "no-crc", "no '*'"),
    (reframe(b"0001 BOGUS round=1"), "unknown-type", "unknown message type 'BOGUS'"),
    (reframe(b"0001 WAGER round=1 id=w1 bet=total:11"), "missing-field", "missing field 'stake'"),
    (reframe(b"0001 WAGER round=1 id=w1 bet=total:11 stake=1 colour=red"), "extra-field", "unexpected field 'colour'"),
    (reframe(b"0001 WAGER round=1 round=1 id=w1 bet=total:11 stake=1"), "duplicate-field", "'round' given twice"),
    (reframe(b"0001 WAGER round=1 id=w1 bet=total:11 stake=-5"), "bad-value", "field 'stake'"),
    (reframe(b"01 WAGER round=1"), "bad-seq", "4 decimal digits"),
    (reframe(b"0001 WAGER round=1 id=w\xe91 bet=total:11 stake=1"), "non-ascii", "byte 0xE9 at column"),
    (reframe(b"0001 WAGER round=1 id=w\x071 bet=total:11 stake=1"), "control-char", "byte 0x07"),
    (reframe(b"0001 WAGER round=1 id=w1 bet=total:11 stake=1" + b" x=1" * 70), "too-long", "256-byte"),
    (reframe(b"0001 SPIN round=1"), "wrong-game", "SPIN is not a message of lightning-dice"),
    (reframe(b"0001 NOMORE round=1"), "wrong-sender", "NOMORE is sent by the controller, not the bench"),
]


@pytest.mark.parametrize("data, reason, detail", MALFORMED, ids=[m[1] for m in MALFORMED])
def test_a_malformed_frame_is_rejected_with_its_reason_and_the_next_one_decodes(data, reason, detail):
    decoder = StreamDecoder(Codec("lightning-dice"), sender=BENCH, byte_timeout=0.1, frame_timeout=0.5)
    items = decoder.feed(data + good(seq=2), now=0.0)
    assert [type(i) for i in items] == [Rejected, Decoded]
    assert items[0].reason == reason and detail in items[0].detail
    assert items[1].message.seq == 2


def test_garbage_between_frames_is_reported_and_skipped():
    decoder = StreamDecoder(Codec("lightning-dice"), sender=BENCH, byte_timeout=0.1, frame_timeout=0.5)
    items = decoder.feed(b"\r\n" + good(seq=1) + b"\x00\xffnoise\r\n" + b"junk" + good(seq=2), now=0.0)
    assert [(type(i).__name__, getattr(i, "reason", None)) for i in items] == [
        ("Decoded", None), ("Rejected", "garbage"), ("Rejected", "garbage"), ("Decoded", None)]
    assert items[1].detail == "8 bytes of garbage between frames"   # CR included


def test_a_frame_interrupted_by_a_new_start_is_rejected():
    decoder = StreamDecoder(Codec("lightning-dice"), sender=BENCH, byte_timeout=0.1, frame_timeout=0.5)
    items = decoder.feed(good(seq=1)[:20] + good(seq=2), now=0.0)
    assert items[0].reason == "interrupted" and items[1].message.seq == 2


def test_byte_and_frame_timeouts_discard_a_partial_frame():
    decoder = StreamDecoder(Codec("lightning-dice"), sender=BENCH, byte_timeout=0.1, frame_timeout=0.5)
    frame = good(seq=1)
    assert decoder.feed(frame[:10], now=0.0) == []
    assert decoder.expire(now=0.05) == []
    (late,) = decoder.expire(now=0.2)
    assert late.reason == "byte-timeout" and "no byte for 0.200 s" in late.detail
    # A frame trickling in, each byte on time, but too slow as a whole.
    out = []
    for i, byte in enumerate(frame):
        out += decoder.feed(bytes([byte]), now=1.0 + 0.09 * i)
    assert out[0].reason == "frame-timeout"


@pytest.mark.parametrize("bad", [None, 0, -1, float("inf"), float("nan"), "1"])
def test_timeouts_are_never_none_zero_or_infinite(bad):
    with pytest.raises(ValueError, match="timeout"):
        Timeouts(response=bad)


def test_an_over_long_message_cannot_be_sent():
    with pytest.raises(ValueError, match="over the 256-byte limit"):
        Codec("lightning-dice").encode(make("ERROR", code="x", detail="y" * 300), 1)


def test_frames_from_the_controller_decode_on_the_bench_side():
    decoder = StreamDecoder(Codec("lightning-roulette"), sender=CONTROLLER, byte_timeout=0.1, frame_timeout=0.5)
    data = build(7, "LUCKY", [("round", "3"), ("lucky", "straight:17@499,straight:0@49")])
    (item,) = decoder.feed(data, now=0.0)
    assert item.message["lucky"] == (Lucky("straight:17", 499), Lucky("straight:0", 49))


def test_a_value_the_peer_would_reject_is_never_sent():
    with pytest.raises(ValueError, match="field 'bet'"):
        Codec("lightning-dice").encode(make("WAGER", round=1, id="w1", bet="total 11", stake=1), 1)
