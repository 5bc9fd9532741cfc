"""Line framing: one ASCII line per frame, with a sequence number and a CRC.

    $SSSS TYPE name=value name=value*CCCC<CR><LF>

"$" starts a frame and appears nowhere else; SSSS is the sender's sequence
number (4 decimal digits, wrapping 9999 -> 0000); CCCC is the CRC-16/CCITT-FALSE
of every byte between "$" and "*", in upper-case hex. A frame is at most
MAX_FRAME bytes, terminator included.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from bench.protocol.crc import crc16_ccitt_false

START = ord("$")
CRC_MARK = b"*"
TERMINATOR = b"\r\n"
MAX_FRAME = 256
SEQ_MODULUS = 10000

_SEQ = re.compile(rb"[0-9]{4}")
_TYPE = re.compile(rb"[A-Z]{2,12}")
_NAME = re.compile(rb"[a-z]{1,12}")
_HEX4 = re.compile(rb"[0-9A-Fa-f]{4}")


class FrameError(ValueError):
    """A line that is not a valid frame. ``reason`` is a short token for a NAK
    and a journal; ``str()`` says precisely what is wrong."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason


class RawFrame(NamedTuple):
    seq: int
    type: str
    pairs: tuple[tuple[str, str], ...]  # (name, value) in wire order
    crc: int


# A frame of the usual shape in one match: the common case of ``split``,
# which then only has to check the CRC. Anything else goes through the checks
# one by one, which name the first thing wrong.
_FRAME = re.compile(rb"\$([0-9]{4}) ([A-Z]{2,12})((?: [a-z]{1,12}=[^ ]*)*)\*([0-9A-Fa-f]{4})")


def build(seq: int, type_: str, pairs: list[tuple[str, str]]) -> bytes:
    """The bytes of one frame. Raises FrameError if it would be over-long."""
    return build_fields(seq, type_, "".join(f" {name}={value}" for name, value in pairs))


def build_fields(seq: int, type_: str, fields: str) -> bytes:
    """``build`` with the fields already rendered, a space before each."""
    if not 0 <= seq < SEQ_MODULUS:
        raise ValueError(f"sequence number {seq} outside 0..{SEQ_MODULUS - 1}")
    body = f"{seq:04d} {type_}{fields}".encode("ascii")
    data = b"$%s*%04X\r\n" % (body, crc16_ccitt_false(body))
    if len(data) > MAX_FRAME:
        raise FrameError("too-long", f"{type_} frame would be {len(data)} bytes, over the {MAX_FRAME}-byte limit")
    return data


def usual(line: bytes) -> tuple[int, str, str, int] | None:
    """(sequence number, type, the fields as text with a space before each,
    CRC) of a frame of the usual shape whose CRC is right; None for anything
    else (``split`` then says what is wrong)."""
    match = _FRAME.fullmatch(line)
    if match is None:
        return None
    computed = crc16_ccitt_false(line[1:match.start(4) - 1])
    if computed != int(match.group(4), 16):
        return None
    return int(match.group(1)), match.group(2).decode("ascii"), match.group(3).decode("ascii"), computed


def split(line: bytes) -> RawFrame:
    """Parse one complete line (from "$" to its end, terminator removed) down
    to names and values; raises FrameError naming the first thing wrong."""
    head = usual(line)
    if head is None:
        return _split_checking(line)
    seq, type_, fields, crc = head
    # _FRAME matched: every field is name=value, so partition always finds its "=".
    pairs = tuple((name, value) for name, _, value in (part.partition("=") for part in fields.split(" ")[1:])) \
        if fields else ()
    return RawFrame(seq, type_, pairs, crc)


def _split_checking(line: bytes) -> RawFrame:
    """``split`` one check at a time, for a line that is not of the usual shape."""
    if not line.startswith(b"$"):
        raise FrameError("bad-syntax", "frame does not start with '$'")
    body, mark, crc_text = line[1:].rpartition(CRC_MARK)
    if not mark:
        raise FrameError("no-crc", "no '*' before the CRC at the end of the frame")
    if not _HEX4.fullmatch(crc_text):
        raise FrameError("no-crc", f"CRC must be 4 hex digits after '*', got {crc_text[:8]!r}")
    sent = int(crc_text, 16)
    computed = crc16_ccitt_false(body)
    if sent != computed:
        raise FrameError("bad-crc", f"bad CRC: frame says {sent:04X}, content gives {computed:04X}")
    parts = body.split(b" ")
    if len(parts) < 2:
        raise FrameError("bad-syntax", "a frame needs a sequence number and a type")
    if not _SEQ.fullmatch(parts[0]):
        raise FrameError("bad-seq", f"sequence number must be 4 decimal digits, got {parts[0][:8]!r}")
    if not _TYPE.fullmatch(parts[1]):
        raise FrameError("bad-syntax", f"message type must be 2-12 capital letters, got {parts[1][:16]!r}")
    pairs = []
    for part in parts[2:]:
        name, eq, value = part.partition(b"=")
        if not eq or not _NAME.fullmatch(name):
            raise FrameError("bad-syntax", f"expected name=value with a lower-case name, got {part[:24]!r}")
        pairs.append((name.decode("ascii"), value.decode("ascii")))
    return RawFrame(int(parts[0]), parts[1].decode("ascii"), tuple(pairs), computed)
