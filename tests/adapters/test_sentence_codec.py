"""The ascii-sentence codec (docs/adapters.md sections 2-5): every message of
every game round-trips through its sentence exactly (replay depends on it),
every damaged sentence is rejected with the reason and NAK code the
specification gives, and a stream of bytes is cut into sentences with
bounded memory and both timeouts."""

from __future__ import annotations

import pytest

from bench.adapters.lines import LineDecoder
from bench.adapters.sentence import AsciiSentence, codes
from bench.adapters.sentence.frame import CHECK_VALUE, MAX_SENTENCE, crc16_modbus
from bench.protocol import BENCH, CONTROLLER, FrameError, Message, make
from bench.protocol.codec import Decoded, Rejected
from bench.rules.base import Lucky

ADAPTER = AsciiSentence()


def test_the_check_value_is_the_catalogue_crc16_modbus():
    assert crc16_modbus(b"123456789") == CHECK_VALUE == 0x4B37


# (game, sender, message): every bench message in each game's shape, with optional fields absent and present.
MESSAGES = [
    ("lightning-dice", BENCH, make("HELLO", proto=1, role="bench", sw="tablebench/0.1.0", game="lightning-dice", seed=3)),
    ("lightning-dice", CONTROLLER, make("HELLO", proto=1, role="controller", sw="emu/1", game="lightning-dice",
                                        rules="default", seed=7)),
    ("sic-bo", CONTROLLER, make("HELLO", proto=1, role="controller", sw="emu/1", game="sic-bo", paytable="B",
                                rules="0123456789abcdef")),
    ("lightning-dice", CONTROLLER, make("ERROR", code="out-of-turn", round=3, detail="CLOSE for round 2 | 100%")),
    ("lightning-dice", CONTROLLER, make("ERROR", code="e42")),
    ("lightning-dice", BENCH, make("RESET", reason="bench-timeout", round=4)),
    ("lightning-dice", CONTROLLER, make("RESET", reason="fault")),
    ("lightning-dice", CONTROLLER, make("OPEN", round=123456789012345)),
    ("lightning-roulette", BENCH, make("WAGER", round=1, id="w1", bet="corner:1-2-4-5", stake=500)),
    ("lightning-roulette", BENCH, make("WAGER", round=1, id="w2", bet="1-18", stake=1)),
    ("lightning-dice", BENCH, make("WAGER", round=1, id="w3", bet="no-such-bet", stake=0)),
    ("lightning-dice", BENCH, make("WAGER", round=1, id="w4", bet="total:1.5", stake=7)),
    ("lightning-dice", CONTROLLER, make("ACCEPT", round=1, id="w1")),
    ("lightning-dice", CONTROLLER, make("REFUSE", round=1, id="w9", reason="unknown-bet", clause="625b.2(e)(5)")),
    ("lightning-dice", CONTROLLER, make("REFUSE", round=1, id="w9", reason="over-the-limit")),
    ("lightning-dice", BENCH, make("CLOSE", round=1)),
    ("lightning-dice", CONTROLLER, make("NOMORE", round=1)),
    ("lightning-dice", CONTROLLER, make("LUCKY", round=1, lucky=(Lucky("total:3", 249), Lucky("total:10", 24)))),
    ("lightning-roulette", CONTROLLER, make("LUCKY", round=1, lucky=(Lucky("straight:17", 499),))),
    ("lightning-dice", BENCH, make("TRIGGER", round=1)),
    ("lightning-dice", CONTROLLER, make("RELEASE", round=1)),
    ("lightning-roulette", CONTROLLER, make("SPIN", round=1)),
    ("dice-ology", CONTROLLER, make("ROLL", round=1, roll=2)),
    ("lightning-dice", BENCH, make("SENSOR", round=1, dice=(6, 4, 1), flat=(True, False, True))),
    ("lightning-roulette", BENCH, make("SENSOR", round=1, pocket=0)),
    ("dice-ology", BENCH, make("SENSOR", round=1, roll=3, dice=(3, 4), flat=(True, True))),
    ("lightning-dice", CONTROLLER, make("RESULT", round=1, dice=(7, 1, 1))),      # heard, not judged here
    ("lightning-roulette", CONTROLLER, make("RESULT", round=1, pocket=36)),
    ("dice-ology", CONTROLLER, make("RESULT", round=1, roll=3, dice=(3, 4), open=0)),
    ("lightning-dice", CONTROLLER, make("NOROLL", round=1)),
    ("lightning-dice", CONTROLLER, make("SETTLE", round=1, id="w1", returned=2500)),
    ("lightning-dice", CONTROLLER, make("SETTLED", round=1, wagers=2, returned=2500)),
    ("lightning-dice", CONTROLLER, make("SETTLED", round=1, wagers=2, returned=2500, void=True)),
    ("lightning-dice", CONTROLLER, make("SETTLED", round=1, wagers=2, returned=2500, void=False)),
    ("lightning-dice", CONTROLLER, make("CLEARED", round=1)),
]


@pytest.mark.parametrize("game,sender,message", MESSAGES, ids=[f"{m.type}-{i}" for i, (_, _, m) in enumerate(MESSAGES)])
def test_every_message_round_trips_exactly(game, sender, message):
    data = ADAPTER.codec(game, sender).encode(message, 998)
    assert data.endswith(b"|END\r\n") and len(data) <= MAX_SENTENCE
    decoded, _ = ADAPTER.codec(game, BENCH).decode_line(data[:-2], sender)
    assert decoded.as_dict() == Message(message.type, message.fields, 998).as_dict()


def test_bets_travel_as_their_codes_and_unknown_ones_escaped():
    assert codes.bet_code("total:11") == "TOT.11" and codes.bet_name("TOT.11") == "total:11"
    assert codes.bet_code("six-line:31") == "SXL.31" and codes.bet_code("19-36") == "PAS"
    assert codes.bet_code("no-such-bet") == "~no-such-bet"
    wager = ADAPTER.codec("lightning-dice", BENCH).encode(make("WAGER", round=7, id="w1", bet="total:11", stake=500), 3)
    assert wager.startswith(b"BN|003|BET|7|w1|TOT.11|500|")


def test_what_the_protocol_cannot_carry_is_refused_before_the_wire():
    codec = ADAPTER.codec("lightning-dice", BENCH)
    with pytest.raises(ValueError, match="one digit"):
        codec.encode(make("SENSOR", round=1, dice=(12, 1, 1), flat=(True,) * 3), 0)
    with pytest.raises(ValueError, match="window"):
        codec.encode(make("HELLO", proto=2, role="bench", sw="t/1", game="lightning-dice", window=16), 0)
    with pytest.raises(ValueError, match="sent by the controller"):
        codec.encode(make("OPEN", round=1), 0)
    with pytest.raises(ValueError, match="not a message of"):
        codec.encode(make("SPIN", round=1), 0)


def _sentence(body: str) -> bytes:
    covered = body.encode() + b"|"
    return covered + b"%04X|END" % crc16_modbus(covered)


@pytest.mark.parametrize("line,reason", [
    (_sentence("BN|001|BET|1|w1|TOT.11|500")[:-12] + b"0000|END", "bad-crc"),
    (_sentence("BN|001|BET|1|w1|TOT.11|500")[:-4], "no-end"),
    (_sentence("BN|001|BET|1|w1|TOT.11|500").replace(b"|END", b"|FIN"), "no-end"),
    (b"BN|004|CLS|1|1eb7|END", "no-crc"),                    # (upper case only: 1EB7)
    (_sentence("BN|1|BET|1|w1|TOT.11|500"), "bad-seq"),
    (_sentence("XX|001|BET|1|w1|TOT.11|500"), "bad-syntax"),
    (_sentence("BN|001|BETS|1|w1|TOT.11|500"), "bad-syntax"),
    (_sentence("BN|001|BAT|1|w1|TOT.11|500"), "unknown-type"),
    (_sentence("GC|001|SPN|1"), "wrong-game"),
    (_sentence("BN|001|OPN|1"), "wrong-sender"),
    (_sentence("GC|001|BET|1|w1|TOT.11|500"), "wrong-sender"),
    (_sentence("BN|001|BET|1|w1|TOT.11"), "missing-field"),
    (_sentence("BN|001|BET|1||TOT.11|500"), "missing-field"),
    (_sentence("BN|001|BET|1|w1|TOT.11|500|9"), "extra-field"),
    (_sentence("BN|001|BET|1|w1|TOT.11|0500"), "bad-value"),
    (_sentence("BN|001|BET|1|w1|XYZ.1|500"), "bad-value"),
    (_sentence("BN|001|SNS|1|6a1|111"), "bad-value"),
    (_sentence("BN|001|BET|1|w1|TOT.11|500").replace(b"w1", b"w\xe9"), "non-ascii"),
    (_sentence("BN|001|BET|1|w1|TOT.11|500").replace(b"w1", b"w\x01"), "control-char"),
    (b"BN|001|BET|" + b"x" * 300, "too-long"),
])
def test_a_damaged_sentence_is_rejected_with_its_reason_and_nak_code(line, reason):
    with pytest.raises(FrameError) as caught:
        ADAPTER.codec("lightning-dice", BENCH).decode_line(line, BENCH)
    assert caught.value.reason == reason, str(caught.value)
    nak = ADAPTER.codec("lightning-dice", CONTROLLER).nak(reason, 999)
    assert nak.startswith(b"GC|999|NAK|" + codes.nak_code(reason).encode() + b"|")


def test_noise_is_garbage_and_not_nakked():
    with pytest.raises(FrameError) as caught:
        ADAPTER.codec("lightning-dice", BENCH).decode_line(b"\xff\xfe hello there", BENCH)
    assert caught.value.reason == "garbage"
    assert not Rejected("garbage", "", b"").damaged_frame


def decoder(byte=0.2, frame=1.0) -> LineDecoder:
    return LineDecoder(ADAPTER.codec("lightning-dice", BENCH), sender=BENCH, byte_timeout=byte, frame_timeout=frame)


def test_sentences_are_found_across_any_split_of_the_stream():
    codec = ADAPTER.codec("lightning-dice", BENCH)
    stream = b"\r\n".join([b""] * 2) + b"".join(
        codec.encode(make("WAGER", round=1, id=f"w{i}", bet="total:11", stake=100 + i), i) for i in range(5))
    for size in (1, 3, 7, 50):
        d, got = decoder(), []
        for at in range(0, len(stream), size):
            got += d.feed(stream[at:at + size], 0.0)
        assert [item.message["id"] for item in got if isinstance(item, Decoded)] == [f"w{i}" for i in range(5)]
        assert not [item for item in got if isinstance(item, Rejected)]


def test_silence_inside_a_sentence_and_a_slow_sentence_are_rejected_and_the_next_one_taken():
    codec = ADAPTER.codec("lightning-dice", BENCH)
    good = codec.encode(make("CLOSE", round=1), 4)
    d = decoder()
    assert d.feed(good[:10], 0.0) == [] and d.expire(0.1) == []
    [cut] = d.expire(0.25)
    assert cut.reason == "byte-timeout" and cut.damaged_frame
    d = decoder()
    items = []
    for i, byte in enumerate(good[:-2]):                  # a byte every 0.15 s: each in time, the whole too slow
        items += d.feed(bytes([byte]), i * 0.15)
    assert [item.reason for item in items] == ["frame-timeout"]
    rest = d.feed(b"\r\n", 0.15 * len(good)) + d.feed(good, 10.0)
    assert [type(item).__name__ for item in rest] == ["Rejected", "Decoded"] and rest[0].reason == "garbage"


def test_a_flood_without_line_ends_costs_bounded_memory_and_one_rejection():
    d = decoder(byte=5.0, frame=50.0)
    for i in range(200):
        assert d.feed(b"BN|" + b"z" * 65536, i * 0.01) == []
        assert len(d._line) <= MAX_SENTENCE
    [item] = d.feed(b"\n", 2.5)
    assert item.reason == "too-long" and len(item.raw) <= MAX_SENTENCE + 1
