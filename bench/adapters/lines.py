"""Frames that are lines: the stream decoder of every wire format that ends a
frame with a line end (LF, or CR LF), which most ASCII controller protocols
do. The format's codec decodes each line; this finds the lines in a byte
stream, with bounded memory and the two timeouts:

* a line is at most ``codec.max_frame`` bytes, terminator included; the bytes
  past it are skipped up to the LF and the line is rejected ``too-long``;
* silence inside a line longer than the byte timeout rejects what came of it
  (``byte-timeout``); a line not finished within the frame timeout of its
  first byte is rejected (``frame-timeout``) and what follows of it, up to
  its LF, is garbage;
* blank lines are ignored; a line the codec does not recognise as a frame at
  all (``FrameError`` reason ``garbage``) is reported but not NAKed.

Nothing here raises on bad input: every line becomes ``Decoded`` or ``Rejected``.
"""

from __future__ import annotations

from bench.protocol.codec import Decoded, Rejected
from bench.protocol.frame import FrameError

GARBAGE = "garbage"


class LineDecoder:
    def __init__(self, codec, *, sender: str | None, byte_timeout: float, frame_timeout: float):
        self.codec = codec
        self.sender = sender
        self.byte_timeout = byte_timeout
        self.frame_timeout = frame_timeout
        self.max_frame = codec.max_frame
        self._line: bytearray | None = None    # the line in progress (None between lines)
        self._overflow = False                  # it passed max_frame: the rest is skipped
        self._skipping = False                  # after a frame-timeout: drop bytes up to the LF
        self._started = 0.0
        self._last_byte = 0.0

    def expire(self, now: float) -> list[Decoded | Rejected]:
        """Reject a line cut short by silence or too slow to finish."""
        if self._line is None:
            return []
        if self._skipping:
            # A silence ends the skipped rest too: the next line is a new frame.
            if now - self._last_byte <= self.byte_timeout:
                return []
            raw, self._line, self._skipping = bytes(self._line), None, False
            return [Rejected(GARBAGE, "the rest of a line rejected for its frame timeout", raw)] if raw else []
        if now - self._last_byte > self.byte_timeout:
            return [self._drop("byte-timeout", f"line cut short: no byte for {now - self._last_byte:.3f} s "
                               f"(byte timeout {self.byte_timeout} s) after {len(self._line)} bytes")]
        if now - self._started > self.frame_timeout:
            rejected = self._drop("frame-timeout", f"line not finished {now - self._started:.3f} s after its "
                                  f"first byte (frame timeout {self.frame_timeout} s)")
            self._skipping = True
            self._line = bytearray()
            return [rejected]
        return []

    def feed(self, data: bytes, now: float) -> list[Decoded | Rejected]:
        out = self.expire(now) if data else []
        i, n = 0, len(data)
        while i < n:
            if self._line is None:
                if data[i] in b"\r\n":          # blank lines (and a CR LF's pieces) between frames
                    i += 1
                    continue
                self._line = bytearray()
                self._overflow = False
                self._started = now
            end = data.find(b"\n", i)
            stop = n if end < 0 else end
            if not self._overflow:
                room = self.max_frame - len(self._line)
                if stop - i > room:
                    self._line += data[i:i + max(0, room)]
                    self._overflow = True
                else:
                    self._line += data[i:stop]
            if end < 0:
                break
            out.append(self._complete(bytes(self._line) + b"\n"))
            i = end + 1
        if data and self._line is not None:
            self._last_byte = now
        return out

    def _complete(self, raw: bytes) -> Decoded | Rejected:
        overflow, skipping = self._overflow, self._skipping
        self._line, self._overflow, self._skipping = None, False, False
        if skipping:
            return Rejected(GARBAGE, "the rest of a line rejected for its frame timeout", raw[:self.max_frame])
        if overflow:
            return Rejected("too-long", f"line longer than the {self.max_frame}-byte frame limit", raw)
        line = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
        try:
            message, key = self.codec.decode_line(line, self.sender)
        except FrameError as err:
            return Rejected(err.reason, str(err), raw)
        except Exception as err:        # an adapter's codec must never stop the stream: its bug, reported
            return Rejected("bad-syntax", f"the adapter's decoder failed: {err!r}", raw)
        return Decoded(message, raw, key)

    def _drop(self, reason: str, detail: str) -> Rejected:
        assert self._line is not None, "expire drops a line only while one is in progress"
        raw = bytes(self._line)
        self._line = None
        self._overflow = False
        return Rejected(reason, detail, raw)
