"""The ASCII sentence protocol's framing (docs/adapters.md, section 2): one
sentence a line,

    TT|NNN|CMD|field|field|...|CCCC|END<CR><LF>

TT the talker (``BN`` the bench, ``GC`` the game controller), NNN the
sender's sequence number (3 digits, wrapping 999 -> 000), CMD three capital
letters, the fields in a fixed order per command, CCCC the CRC-16/MODBUS of
every byte from the talker's first letter up to and including the ``|``
before the CRC (4 upper-case hex digits), and the end marker ``END``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from bench.protocol.frame import FrameError
from bench.protocol.messages import BENCH, CONTROLLER

MAX_SENTENCE = 200                  # bytes, CR LF included
SEQ_MODULUS = 1000
TALKERS = {"BN": BENCH, "GC": CONTROLLER}
TALKER_OF = {role: talker for talker, role in TALKERS.items()}
END = "END"
CHECK_VALUE = 0x4B37                # CRC-16/MODBUS of b"123456789", from the CRC catalogue

_PRINTABLE = re.compile(rb"[\x20-\x7e]*")
_START = re.compile(rb"[A-Z]{2}\|")
_SEQ = re.compile(r"[0-9]{3}")
_CMD = re.compile(r"[A-Z]{3}")
_HEX4 = re.compile(r"[0-9A-F]{4}")


def _table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC_TABLE = _table()


def crc16_modbus(data: bytes) -> int:
    """CRC-16/MODBUS: polynomial 0x8005 reflected (0xA001), initial value
    0xFFFF, input and output reflected, no final XOR."""
    crc = 0xFFFF
    table = _CRC_TABLE
    for byte in data:
        crc = (crc >> 8) ^ table[(crc ^ byte) & 0xFF]
    return crc


class Sentence(NamedTuple):
    talker: str          # BN or GC
    seq: int
    command: str
    fields: tuple[str, ...]
    crc: int


def build(talker: str, seq: int, command: str, fields: list[str]) -> bytes:
    """The bytes of one sentence; ValueError if a field cannot be written or
    the sentence would be too long."""
    if not 0 <= seq < SEQ_MODULUS:
        raise ValueError(f"sequence number {seq} outside 0..{SEQ_MODULUS - 1}")
    for text in fields:
        if "|" in text or not _PRINTABLE.fullmatch(text.encode("ascii", "replace")) or not text.isascii():
            raise ValueError(f"{command}: field {text!r} is not printable ASCII without '|'")
    body = f"{talker}|{seq:03d}|{command}" + "".join(f"|{text}" for text in fields) + "|"
    data = body.encode("ascii")
    data += b"%04X|END\r\n" % crc16_modbus(data)
    if len(data) > MAX_SENTENCE:
        raise ValueError(f"{command} sentence would be {len(data)} bytes, over the {MAX_SENTENCE}-byte limit")
    return data


def split(line: bytes) -> Sentence:
    """Parse one line (its CR LF removed) into talker, number, command, fields
    and CRC; FrameError naming the first thing wrong (section 2's order)."""
    if len(line) + 2 > MAX_SENTENCE:
        raise FrameError("too-long", f"sentence of {len(line) + 2} bytes is over the {MAX_SENTENCE}-byte limit")
    if not _START.match(line):
        raise FrameError("garbage", "not a sentence: it does not start with a talker (two capitals and '|')")
    if not _PRINTABLE.fullmatch(line):
        bad = next(i for i, b in enumerate(line) if not 0x20 <= b <= 0x7E)
        kind = "non-ascii" if line[bad] >= 0x80 else "control-char"
        raise FrameError(kind, f"byte 0x{line[bad]:02X} at column {bad + 1} is not printable ASCII")
    text = line.decode("ascii")
    parts = text.split("|")
    if parts[-1] != END:
        raise FrameError("no-end", f"the sentence does not end with the end marker |{END}")
    if len(parts) < 5:
        raise FrameError("bad-syntax", "a sentence needs a talker, a number, a command and a CRC")
    crc_text = parts[-2]
    if not _HEX4.fullmatch(crc_text):
        raise FrameError("no-crc", f"the CRC must be 4 upper-case hex digits before |{END}, got {crc_text[:8]!r}")
    covered = line[:len(line) - len(crc_text) - len(END) - 1]
    sent, computed = int(crc_text, 16), crc16_modbus(covered)
    if sent != computed:
        raise FrameError("bad-crc", f"bad CRC: sentence says {sent:04X}, content gives {computed:04X}")
    talker, seq, command = parts[0], parts[1], parts[2]
    if talker not in TALKERS:
        raise FrameError("bad-syntax", f"unknown talker {talker!r} (BN the bench, GC the game controller)")
    if not _SEQ.fullmatch(seq):
        raise FrameError("bad-seq", f"sequence number must be 3 decimal digits, got {seq[:8]!r}")
    if not _CMD.fullmatch(command):
        raise FrameError("bad-syntax", f"command must be 3 capital letters, got {command[:8]!r}")
    return Sentence(talker, int(seq), command, tuple(parts[3:-2]), computed)
