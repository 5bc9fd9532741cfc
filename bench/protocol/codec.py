"""Encode messages to frames and decode frames to messages, for one game;
and a streaming decoder that finds frames in a byte stream, rejects the bad
ones with a precise reason, and resynchronises on the next "$".

Nothing here raises to the caller on bad input from the wire: ``StreamDecoder``
returns ``Rejected`` items, and ``Codec.decode_line`` raises only ``FrameError``,
which the stream decoder turns into ``Rejected``.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Union

from bench.protocol import frame as framing
from bench.protocol.frame import FrameError, MAX_FRAME
from bench.rules import game_names
from bench.protocol.messages import (BOTH, FLAG, FLAGS, INT, INTS, SPECS, TOKEN, TOKEN_CHARS,
                                     FieldError, Message, spec_for)

_PRINTABLE = re.compile(rb"[\x20-\x7e]*")


class Codec:
    """The message codec of one game (SENSOR and RESULT differ per game)."""

    def __init__(self, game: str):
        if game not in game_names():
            raise ValueError(f"the protocol has no messages for game {game!r}; "
                             f"games: {', '.join(game_names())}")
        self.game = game
        self._specs: dict[str, tuple] = {}     # type -> (spec, its field types), built once

    def _spec(self, type_: str):
        """(spec, field types, the usual fields' pattern and converters) of
        ``type_`` in this game; KeyError for an unknown type, LookupError for
        one the game does not use."""
        found = self._specs.get(type_)
        if found is None:
            spec = spec_for(type_, self.game)
            found = self._specs[type_] = (spec, spec.field_types(), *_usual_fields(spec), _render_order(spec))
        return found

    def encode(self, message: Message, seq: int) -> bytes:
        """A frame for ``message``; raises ValueError if the message itself is
        wrong (a programming error on our side, not bad input from the wire).
        Never puts on the wire what the peer would reject: the fields as
        rendered must match the type's pattern (and loosely matched text and
        Lucky fields must parse)."""
        try:
            spec, types, pattern, _, order = self._spec(message.type)
        except KeyError:
            raise ValueError(f"unknown message type {message.type!r}") from None
        except LookupError as err:
            raise ValueError(str(err)) from None
        fields = message.fields
        parts = []
        for name, render, required, check in order:
            value = fields.get(name)
            if value is None:
                if required:
                    break           # missing: said below
                continue
            text = render(value)
            if check is not None:
                try:
                    check(text)
                except FieldError as err:
                    raise ValueError(f"{message.type}: field {name!r}: {err}") from None
            parts.append(f" {name}={text}")
        rendered = "".join(parts)
        if len(parts) != sum(1 for v in fields.values() if v is not None) or not pattern.fullmatch(rendered):
            self._refuse(message, spec, types)
        return framing.build_fields(seq, message.type, rendered)

    @staticmethod
    def _refuse(message: Message, spec, types) -> None:
        """Say which field of a message that cannot be encoded is wrong."""
        missing = [name for name, _ in spec.required if message.fields.get(name) is None]
        extra = [name for name in message.fields if name not in types]
        if missing or extra:
            raise ValueError(f"{message.type}: missing {missing}, unexpected {extra}")
        for name, value in message.fields.items():
            if value is not None:
                try:
                    types[name].parse(types[name].render(value))
                except FieldError as err:
                    raise ValueError(f"{message.type}: field {name!r}: {err}") from None
        raise ValueError(f"{message.type}: cannot be encoded: {dict(message.fields)!r}")

    def decode_line(self, line: bytes, sender: str | None = None) -> tuple[Message, int]:
        """Decode one line (terminator removed) to its message and CRC.
        ``sender`` ("bench" or "controller"), if given, is who must have sent
        it. Raises FrameError.

        A frame of the usual shape (fields in the documented order, the CRC
        right) is matched whole against its type's pattern; anything else
        goes through ``_decode_checking``, which names the first thing wrong."""
        if len(line) + 2 <= MAX_FRAME and _PRINTABLE.fullmatch(line):
            head = framing.usual(line)
            if head is not None:
                seq, type_, fields, crc = head
                try:
                    spec, _, pattern, converters, _ = self._spec(type_)
                except LookupError:         # (KeyError too) an unknown type or another game's
                    spec = None
                if spec is not None and (sender is None or spec.sender in (BOTH, sender)):
                    match = pattern.fullmatch(fields)
                    if match is not None:
                        try:
                            values = {name: convert(text) for (name, convert), text in
                                      zip(converters, match.groups()) if text is not None}
                        except FieldError:
                            pass            # a text or Lucky field that does not parse: said below
                        else:
                            return Message(type_, values, seq), crc
        return self._decode_checking(line, sender)

    def _decode_checking(self, line: bytes, sender: str | None = None) -> tuple[Message, int]:
        """``decode_line`` one check at a time."""
        if len(line) + 2 > MAX_FRAME:
            raise FrameError("too-long", f"frame of {len(line) + 2} bytes is over the {MAX_FRAME}-byte limit")
        if not _PRINTABLE.fullmatch(line):
            bad = next(i for i, b in enumerate(line) if not 0x20 <= b <= 0x7E)
            kind = "non-ascii" if line[bad] >= 0x80 else "control-char"
            raise FrameError(kind, f"byte 0x{line[bad]:02X} at column {bad + 1} is not printable ASCII")
        raw = framing.split(line)
        if raw.type not in SPECS:
            raise FrameError("unknown-type", f"unknown message type {raw.type!r}")
        try:
            spec, types, _, _, _ = self._spec(raw.type)
        except LookupError as err:
            raise FrameError("wrong-game", str(err)) from None
        if sender is not None and spec.sender not in (BOTH, sender):
            raise FrameError("wrong-sender", f"{raw.type} is sent by the {spec.sender}, not the {sender}")
        values = {}
        for name, text in raw.pairs:
            if name in values:
                raise FrameError("duplicate-field", f"{raw.type}: field {name!r} given twice")
            if name not in types:
                raise FrameError("extra-field", f"{raw.type}: unexpected field {name!r} "
                                 f"(fields: {', '.join(types) or 'none'})")
            try:
                values[name] = types[name].parse(text)
            except FieldError as err:
                raise FrameError("bad-value", f"{raw.type}: field {name!r}: {err}") from None
        missing = [name for name, _ in spec.required if name not in values]
        if missing:
            raise FrameError("missing-field", f"{raw.type}: missing field {missing[0]!r}")
        return Message(raw.type, values, raw.seq), raw.crc


# How the usual frame's fields are matched whole (``Codec.decode_line``): the
# pattern of each field type, and what turns the text into the value. The
# pattern says exactly what the type's ``parse`` accepts; text and Lucky
# fields are matched loosely and parsed by their own ``parse``.
_INT_TEXT = "(?:0|[1-9][0-9]{0,14})"
_USUAL = {
    INT.name: (f"({_INT_TEXT})", int),
    TOKEN.name: (f"([{TOKEN_CHARS}]{{1,48}})", str),
    INTS.name: (f"({_INT_TEXT}(?:,{_INT_TEXT})*)", lambda text: tuple(map(int, text.split(",")))),
    FLAGS.name: ("([01](?:,[01])*)", lambda text: tuple(flag == "1" for flag in text.split(","))),
    FLAG.name: ("([01])", lambda text: text == "1"),
}


def _render_order(spec):
    """(name, render, required, extra check or None) of each field in the
    documented order; text and Lucky fields, which the pattern matches
    loosely, are also parsed before they go out."""
    return tuple((name, ftype.render, required, None if ftype.name in _USUAL else ftype.parse)
                 for required, fields in ((True, spec.required), (False, spec.optional))
                 for name, ftype in fields)


def _usual_fields(spec):
    """The pattern of ``spec``'s fields in the documented order (each optional
    field may be left out), and (name, converter) for each of its groups."""
    pattern, converters = [], []
    for required, fields in ((True, spec.required), (False, spec.optional)):
        for name, ftype in fields:
            text, convert = _USUAL.get(ftype.name, ("([^ ]*)", ftype.parse))
            pattern.append(f" {name}={text}" if required else f"(?: {name}={text})?")
            converters.append((name, convert))
    return re.compile("".join(pattern)), tuple(converters)


# Named tuples, not dataclasses: one is made for every frame that arrives,
# and a frozen dataclass costs three times as much to make.
class Decoded(NamedTuple):
    message: Message
    raw: bytes          # the whole frame as received, terminator included
    crc: int

    @property
    def seq(self) -> int:
        """The frame's number (SSSS, docs/protocol.md section 2): a decoder
        numbers every message it decodes, an adapter's as the bench's own."""
        seq = self.message.seq
        if seq is None:
            raise ValueError(f"a decoded {self.message.type} without its frame's number: the decoder's bug")
        return seq


class Rejected(NamedTuple):
    reason: str         # a token: bad-crc, garbage, too-long, ...
    detail: str         # what exactly is wrong, for a person
    raw: bytes          # the rejected bytes (at most MAX_FRAME of them)
    size: int | None = None   # how many bytes they were on the wire, when ``raw`` is only their first MAX_FRAME

    @property
    def damaged_frame(self) -> bool:
        """True when a frame started ("$") but arrived damaged: worth a NAK.
        Garbage between frames is not."""
        return self.reason != "garbage"


Item = Union[Decoded, Rejected]


GARBAGE_RUN = 4096      # a run of garbage without a line end is reported every so many bytes


class StreamDecoder:
    """Feed it bytes as they arrive (with the time they arrived); it returns
    every complete frame or rejection. Inside a frame, a silence longer than
    ``byte_timeout`` or a frame longer than ``frame_timeout`` (measured from
    its "$") discards the partial frame; call ``expire(now)`` while waiting
    so that a frame cut short is reported even if no more bytes come."""

    def __init__(self, codec: Codec, *, sender: str | None, byte_timeout: float, frame_timeout: float):
        self.codec = codec
        self.sender = sender
        self.byte_timeout = byte_timeout
        self.frame_timeout = frame_timeout
        self._frame: bytearray | None = None   # bytes since "$", None between frames
        self._overflow = False                 # the current frame passed MAX_FRAME
        self._garbage = bytearray()            # bytes outside any frame (first MAX_FRAME kept)
        self._garbage_count = 0
        self._garbage_at = 0.0                 # when the last of them came
        self._frame_size = 0                   # bytes of the current frame, those past MAX_FRAME included
        self._started = 0.0
        self._last_byte = 0.0

    def expire(self, now: float) -> list[Item]:
        """Reject a partial frame whose byte or frame timeout has passed; and
        report a run of garbage that silence ended without a line end."""
        if self._frame is None:
            if self._garbage_count and now - self._garbage_at > self.byte_timeout:
                return self._flush_garbage()
            return []
        if self._overflow and (now - self._last_byte > self.byte_timeout or now - self._started > self.frame_timeout):
            return [self._too_long("ended by silence, not a line end")]
        if now - self._last_byte > self.byte_timeout:
            return [self._abandon("byte-timeout", f"frame cut short: no byte for {now - self._last_byte:.3f} s "
                                  f"(byte timeout {self.byte_timeout} s) after {len(self._frame)} bytes")]
        if now - self._started > self.frame_timeout:
            return [self._abandon("frame-timeout", f"frame not finished {now - self._started:.3f} s after its '$' "
                                  f"(frame timeout {self.frame_timeout} s)")]
        return []

    def feed(self, data: bytes, now: float) -> list[Item]:
        # Scans with bytes.find for the two bytes that matter ("$" and LF)
        # and moves whole runs between them: a per-byte Python loop was the
        # hot spot of a busy link. tests/link/test_fuzz.py checks it against
        # the per-byte algorithm it replaced.
        out: list[Item] = self.expire(now) if data else []
        i, n = 0, len(data)
        while i < n:
            start = data.find(b"$", i)
            if start < 0:
                start = n
            if self._frame is None:
                self._take_garbage(data, i, start, out)
                if self._garbage_count:
                    self._garbage_at = now
            else:
                end = data.find(b"\n", i, start)
                if end >= 0:
                    self._take_frame_bytes(data, i, end)
                    out.append(self._complete())
                    i = end + 1
                    continue
                self._take_frame_bytes(data, i, start)
                if start < n:
                    out.append(self._too_long("ended by a new '$'") if self._overflow else
                               self._abandon("interrupted", f"frame of {len(self._frame)} bytes interrupted "
                                             "by a new '$' before its line end"))
            if start < n:
                out.extend(self._flush_garbage())
                self._frame = bytearray(b"$")
                self._frame_size = 1
                self._overflow = False
                self._started = now
            i = start + 1
        if data and self._frame is not None:
            self._last_byte = now
        return out

    def _take_garbage(self, data: bytes, i: int, stop: int, out: list[Item]) -> None:
        """Bytes outside any frame, up to ``stop``: each LF ends a run of garbage."""
        while i < stop:
            lf = data.find(b"\n", i, stop)
            end = stop if lf < 0 else lf
            if end > i:
                self._garbage_count += end - i
                room = MAX_FRAME - len(self._garbage)
                if room > 0:
                    self._garbage += data[i:min(end, i + room)]
            if lf < 0:
                if self._garbage_count >= GARBAGE_RUN:
                    # No line end may ever come: the run is reported (a sample, and its
                    # length) as it goes, so that a flood of it is counted and bounded.
                    out.extend(self._flush_garbage())
                return
            out.extend(self._flush_garbage())
            i = lf + 1

    def _take_frame_bytes(self, data: bytes, i: int, stop: int) -> None:
        """Bytes inside a frame (no "$", no LF among them); past MAX_FRAME the
        frame is marked over-long and the rest skipped."""
        self._frame_size += max(0, stop - i)
        if self._overflow or stop <= i:
            return
        assert self._frame is not None, "feed passes bytes inside a frame only while one is open"
        room = MAX_FRAME - len(self._frame)
        if stop - i > room:
            self._frame += data[i:i + room]
            self._overflow = True
        else:
            self._frame += data[i:stop]

    def _complete(self) -> Item:
        assert self._frame is not None, "feed completes a frame only while one is open"
        frame, overflow = bytes(self._frame), self._overflow
        self._frame = None
        if overflow:
            return Rejected("too-long", f"line of {self._frame_size + 1} bytes, longer than the {MAX_FRAME}-byte "
                            "frame limit", frame, self._frame_size + 1)
        line = frame[:-1] if frame.endswith(b"\r") else frame
        try:
            message, crc = self.codec.decode_line(line, self.sender)
        except FrameError as err:
            return Rejected(err.reason, str(err), frame + b"\n")
        return Decoded(message, frame + b"\n", crc)

    def _too_long(self, how: str) -> Rejected:
        """An over-long line cut short: reported for what it is, too long."""
        return self._abandon("too-long", f"line of {self._frame_size} bytes, longer than the {MAX_FRAME}-byte "
                                         f"frame limit ({how})")

    def _abandon(self, reason: str, detail: str) -> Rejected:
        assert self._frame is not None, "expire and feed abandon a frame only while one is open"
        frame = bytes(self._frame)
        self._frame = None
        return Rejected(reason, detail, frame, self._frame_size if self._overflow else None)

    def _flush_garbage(self) -> list[Item]:
        count, sample = self._garbage_count, bytes(self._garbage)
        self._garbage_count = 0
        self._garbage.clear()
        if count == 0 or sample.strip(b"\r\n\t ") == b"" and count == len(sample):
            return []  # blank lines and stray line ends between frames are harmless
        return [Rejected("garbage", f"{count} bytes of garbage between frames", sample,
                         count if count != len(sample) else None)]
