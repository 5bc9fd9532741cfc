"""Link-level misbehaviours: the emulated controller breaking one rule of the
link layer (docs/protocol.md, sections 2, 3 and 9) on purpose, each a mutant
that ``bench conformance`` must catch (``bench emulate --misbehave-link NAME``).

Each wraps the controller's port, below its session, and changes what the
session reads or writes the way a controller with that bug would behave:

    ignores-crc          takes frames whatever their CRC (section 2)
    never-naks           sends no NAK for a damaged frame (section 3)
    never-retransmits    sends each message once, never again (section 3)
    delivers-duplicates  takes a frame sent twice as a new message (section 3)
    ignores-window       keeps up to 32 messages in flight whatever the bench's HELLO says (section 9)
"""

from __future__ import annotations

import re

from bench.protocol.crc import crc16_ccitt_false
from bench.protocol.frame import SEQ_MODULUS

_FRAME = re.compile(rb"\$([^*\r\n$]*)\*([0-9A-Fa-f]{4})\r?\n")


def _with_crc(body: bytes) -> bytes:
    return b"$%s*%04X\r\n" % (body, crc16_ccitt_false(body))


class _Wrapper:
    """A port that passes everything through; a misbehaviour overrides ``incoming`` or ``outgoing``."""

    name = ""
    section = ""
    summary = ""

    def __init__(self, port):
        self.port = port

    def read_some(self, timeout: float) -> bytes:
        data = self.port.read_some(timeout)
        return self.incoming(data) if data else data

    def write(self, data: bytes) -> None:
        data = b"".join(self.outgoing(frame) for frame in data.splitlines(keepends=True))
        if data:
            self.port.write(data)

    def incoming(self, data: bytes) -> bytes:
        return data

    def outgoing(self, frame: bytes) -> bytes:
        return frame

    def close(self) -> None:
        self.port.close()


class IgnoresCrc(_Wrapper):
    name, section = "ignores-crc", "§2"
    summary = "takes frames whatever their CRC"

    def incoming(self, data: bytes) -> bytes:
        return _FRAME.sub(lambda m: _with_crc(m.group(1)), data)


class NeverNaks(_Wrapper):
    name, section = "never-naks", "§3"
    summary = "sends no NAK for a damaged frame"

    def outgoing(self, frame: bytes) -> bytes:
        return b"" if b" NAK " in frame else frame


class NeverRetransmits(_Wrapper):
    name, section = "never-retransmits", "§3"
    summary = "sends each message once, never again"

    def __init__(self, port):
        super().__init__(port)
        self.sent: set[bytes] = set()

    def outgoing(self, frame: bytes) -> bytes:
        if b" ACK*" in frame or b" NAK " in frame:
            return frame
        if frame in self.sent:
            return b""
        self.sent.add(frame)
        return frame


class DeliversDuplicates(_Wrapper):
    name, section = "delivers-duplicates", "§3"
    summary = "takes a frame sent twice as a new message"

    def __init__(self, port):
        super().__init__(port)
        self.last = b""
        self.extra = 0

    def incoming(self, data: bytes) -> bytes:
        def renumber(match):
            frame = match.group(0)
            body = match.group(1)
            if frame == self.last and b" ACK" not in body and b" NAK " not in body:
                self.extra += 1         # the same frame again: numbered as the next one, so it is delivered
                seq = (int(body[:4]) + self.extra) % SEQ_MODULUS if body[:4].isdigit() else 0
                return _with_crc(b"%04d%s" % (seq, body[4:]))
            if b" ACK" not in body and b" NAK " not in body:
                self.last, self.extra = frame, 0
            return frame
        return _FRAME.sub(renumber, data)


class IgnoresWindow(_Wrapper):
    name, section = "ignores-window", "§9"
    summary = "keeps up to 32 messages in flight whatever the bench's HELLO says"

    def incoming(self, data: bytes) -> bytes:
        def widen(match):
            body = match.group(1)
            if b" HELLO " not in body or b" window=" not in body:
                return match.group(0)
            return _with_crc(re.sub(rb" window=[0-9]+", b" window=32", body))
        return _FRAME.sub(widen, data)


PortWrapper = _Wrapper      # the base an adapter's own link misbehaviours build on (bench.adapters)

LINK_MISBEHAVIOURS = {cls.name: cls for cls in (IgnoresCrc, NeverNaks, NeverRetransmits, DeliversDuplicates,
                                               IgnoresWindow)}
