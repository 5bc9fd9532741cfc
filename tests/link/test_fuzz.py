"""Hypothesis fuzzing of the decoder and the session: whatever bytes arrive,
nothing raises to the caller, nothing hangs, and the stream resynchronises on
the next good frame."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from bench.protocol import BENCH, CONTROLLER, MAX_FRAME, Codec, Decoded, Rejected, Session, StreamDecoder, Timeouts, make
from bench.protocol.codec import GARBAGE_RUN
from bench.protocol.frame import FrameError

GAME = "lightning-dice"
CODEC = Codec(GAME)
REASONS = {"bad-crc", "no-crc", "bad-seq", "bad-syntax", "unknown-type", "wrong-game", "wrong-sender",
           "missing-field", "extra-field", "duplicate-field", "bad-value", "too-long", "non-ascii",
           "control-char", "garbage", "interrupted", "byte-timeout", "frame-timeout"}

wagers = st.builds(lambda seq, r, i, stake: CODEC.encode(make("WAGER", round=r, id=f"w{i}", bet="low", stake=stake), seq),
                   st.integers(0, 9999), st.integers(0, 10 ** 6), st.integers(0, 999), st.integers(0, 10 ** 9))
noise = st.binary(max_size=300)


def decoder():
    return StreamDecoder(CODEC, sender=BENCH, byte_timeout=0.1, frame_timeout=0.5)


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0] + points, points + [len(data)]) if a < b]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(noise, wagers), max_size=8), st.lists(st.integers(0, 5000), max_size=20))
def test_good_frames_survive_any_garbage_around_them(pairs, cuts):
    stream = b"".join(junk + frame for junk, frame in pairs)
    d, items = decoder(), []
    for chunk in chunked(stream, cuts):
        items += d.feed(chunk, now=0.0)
    decoded = [i.raw for i in items if isinstance(i, Decoded)]
    assert decoded == [frame for _, frame in pairs]
    assert all(i.reason in REASONS and i.detail for i in items if isinstance(i, Rejected))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(noise, st.floats(0, 2)), max_size=10), wagers)
def test_any_bytes_at_any_times_then_a_good_frame_decodes(chunks, frame):
    d, now = decoder(), 0.0
    for data, gap in chunks:
        now += gap
        for item in d.feed(data, now):
            assert isinstance(item, (Decoded, Rejected))
            if isinstance(item, Rejected):
                assert item.reason in REASONS and len(item.raw) <= 512
    items = d.feed(b"\n" + frame, now + 1.0)
    assert isinstance(items[-1], Decoded) and items[-1].raw == frame


class ScriptedPort:
    """Hands out fixed chunks, then silence; records what the session writes.
    Its clock moves only while the session waits in silence (a chunk comes at
    once), so what the session does is the same however loaded the machine is."""

    def __init__(self, chunks):
        self.chunks = list(chunks)
        self.written = bytearray()
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def read_some(self, timeout):
        if self.chunks:
            return self.chunks.pop(0)
        self.now += timeout
        return b""

    def write(self, data):
        self.written += data


@settings(max_examples=150, deadline=None)
@given(st.lists(noise, max_size=6), wagers)
def test_a_session_fed_garbage_neither_raises_nor_hangs(chunks, frame):
    timeouts = Timeouts(byte=0.01, frame=0.05, response=0.05, retries=1)
    port = ScriptedPort(chunks + [frame])
    session = Session(port, GAME, role=CONTROLLER, timeouts=timeouts, clock=port.clock)
    message = session.poll(0.2, expect="WAGER")       # returns (a hang is pytest-timeout's to catch) ...
    assert message is not None and message.type == "WAGER"
    assert port.now == 0.0 and not port.chunks         # ... as soon as the frame is read, never waiting
    # Every damaged frame was answered with a NAK, every good one with an ACK.
    assert port.written.count(b" ACK*") == 1
    assert port.written.count(b" NAK ") == sum(n for k, n in session.stats.items()
                                               if k.startswith("rejected:") and k != "rejected:garbage")


class PerByteDecoder(StreamDecoder):
    """The reference: StreamDecoder.feed as it was, one byte at a time. The
    scanning ``feed`` must give exactly what this gives."""

    def feed(self, data: bytes, now: float):
        out = self.expire(now) if data else []
        for byte in data:
            if byte == ord("$"):
                out.extend(self._flush_garbage())
                if self._frame is not None:      # an over-long line is reported as too long however it ends
                    out.append(self._too_long("ended by a new '$'") if self._overflow else
                               self._abandon("interrupted", f"frame of {len(self._frame)} bytes interrupted "
                                             "by a new '$' before its line end"))
                self._frame = bytearray(b"$")
                self._frame_size = 1
                self._overflow = False
                self._started = now
            elif self._frame is None:
                if byte == 0x0A:
                    out.extend(self._flush_garbage())
                else:
                    self._garbage_count += 1
                    self._garbage_at = now
                    if len(self._garbage) < MAX_FRAME:
                        self._garbage.append(byte)
            elif byte == 0x0A:
                out.append(self._complete())
            else:
                self._frame_size += 1
                if self._overflow:
                    pass
                elif len(self._frame) >= MAX_FRAME:
                    self._overflow = True
                else:
                    self._frame.append(byte)
            if self._frame is not None:
                self._last_byte = now
        if self._frame is None and self._garbage_count >= GARBAGE_RUN:
            out.extend(self._flush_garbage())       # a run without a line end, reported as it goes
        return out


# Streams rich in the bytes that matter: "$", LF, CR, long runs, good frames.
pieces = st.one_of(wagers, noise, st.sampled_from([b"$", b"\n", b"\r\n", b"\r", b"$0001 ACK*", b"\x00", b"\xff"]),
                   st.integers(200, 600).map(lambda n: b"x" * n))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(pieces, max_size=12), st.lists(st.integers(0, 8000), max_size=12),
       st.lists(st.floats(0, 0.3), min_size=13, max_size=13))
def test_the_scanning_feed_equals_the_per_byte_algorithm(parts, cuts, gaps):
    stream = b"".join(parts)
    fast = decoder()
    slow = PerByteDecoder(CODEC, sender=BENCH, byte_timeout=0.1, frame_timeout=0.5)
    now = 0.0
    for chunk, gap in zip(chunked(stream, cuts) + [b""], gaps):
        now += gap
        assert fast.feed(chunk, now) == slow.feed(chunk, now)
        assert fast.expire(now + 0.05) == slow.expire(now + 0.05)
    assert (fast._frame, fast._overflow, bytes(fast._garbage), fast._garbage_count) == \
           (slow._frame, slow._overflow, bytes(slow._garbage), slow._garbage_count)


def _outcome(split, line):
    try:
        return split(line)
    except FrameError as err:
        return ("error", err.reason)
    except UnicodeDecodeError:
        return ("error", "unicode")


frame_like = st.builds(
    lambda seq, type_, pairs, crc: b"$" + seq + b" " + type_ + b"".join(b" " + n + b"=" + v for n, v in pairs)
    + b"*" + crc,
    st.sampled_from([b"0042", b"9999", b"042", b"00a2"]),
    st.sampled_from([b"WAGER", b"ACK", b"Wager", b"A", b"SETTLED"]),
    st.lists(st.tuples(st.sampled_from([b"round", b"id", b"x" * 13, b"Bet", b""]),
                       st.binary(max_size=12).filter(lambda v: b"\n" not in v)), max_size=4),
    st.sampled_from([b"FFFF", b"29B1", b"zz", b"12345", b""]))


@settings(max_examples=400, deadline=None)
@given(st.one_of(frame_like, wagers.map(lambda f: f.rstrip(b"\r\n")), st.binary(max_size=80)))
def test_the_one_regex_split_agrees_with_the_checks_one_by_one(line):
    """frame.split takes a usual frame in one match; whatever it is given, it
    must say exactly what the field-by-field checks say."""
    from bench.protocol import frame
    assert _outcome(frame.split, line) == _outcome(frame._split_checking, line)


def _decoded(decode, line):
    try:
        message, crc = decode(line, BENCH)
        return message.type, message.seq, dict(message.fields), crc
    except FrameError as err:
        return ("error", err.reason, str(err))


def _reframed(seq, body: bytes) -> bytes:
    """A line with the right CRC around ``body`` (TYPE and fields)."""
    from bench.protocol.crc import crc16_ccitt_false
    content = b"%04d " % seq + body
    return b"$" + content + b"*%04X" % crc16_ccitt_false(content)


_usual_messages = st.sampled_from([
    make("WAGER", round=3, id="w1", bet="total:11", stake=500), make("SENSOR", round=3, dice=(6, 4, 1), flat=(True, False, True)),
    make("HELLO", proto=2, role="bench", sw="t/1", game="lightning-dice", window=16),
    make("HELLO", proto=1, role="bench", sw="t/1", game="lightning-dice", seed=7),
    make("ERROR", code="unexpected", round=2, detail="a b%c"), make("RESET", reason="requested"),
    make("CLOSE", round=1), make("TRIGGER", round=9), make("NAK", reason="bad-crc")])
_bodies = st.lists(st.sampled_from(
    [b"WAGER", b"SENSOR", b"CLOSE", b"HELLO", b"SETTLE", b"round=1", b"round=01", b"id=w1", b"bet=low", b"stake=5",
     b"dice=1,2,3", b"dice=1,,2", b"flat=1,0,1", b"flat=2", b"proto=2", b"role=bench", b"sw=a", b"game=lightning-dice",
     b"window=16", b"seed=", b"detail=%zz", b"reason=x", b"code=c"]), min_size=1, max_size=7)


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.builds(lambda m, seq: CODEC.encode(m, seq).rstrip(b"\r\n"), _usual_messages, st.integers(0, 9999)),
                 st.builds(lambda parts, seq: _reframed(seq, b" ".join(parts)), _bodies, st.integers(0, 9999)),
                 st.binary(max_size=60)))
def test_the_usual_frame_fast_path_decodes_exactly_as_the_checks_do(line):
    """decode_line matches a usual frame whole; on anything at all it must
    give what the field-by-field checks give: the same message, or the same
    rejection with the same words."""
    assert _decoded(CODEC.decode_line, line) == _decoded(CODEC._decode_checking, line)


@settings(max_examples=400, deadline=None)
@given(st.integers(-5, 10 ** 16), st.text(max_size=60), st.text(max_size=10), st.integers(-2, 10 ** 16))
def test_what_is_encoded_decodes_to_itself_and_what_would_not_is_refused(round_no, wager_id, bet, stake):
    """The encoder checks the rendered fields against the same patterns the
    decoder uses: a frame it sends always decodes to the message it was
    given; a message that cannot travel raises ValueError, never goes out."""
    message = make("WAGER", round=round_no, id=wager_id, bet=bet, stake=stake)
    try:
        data = CODEC.encode(message, 7)
    except ValueError:
        return
    decoded, _ = CODEC.decode_line(data.rstrip(b"\r\n"), BENCH)
    assert (decoded.type, decoded.seq, dict(decoded.fields)) == ("WAGER", 7, dict(message.fields))
