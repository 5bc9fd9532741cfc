"""Listening without taking part: one direction of a live link decoded into
the ``FrameEvent``s the bench would have recorded, for ``bench monitor``.

A listener answers nothing, so it cannot learn from its own ACKs which
frames the receiver took; it applies the receiver's own delivery rules to
the frames it hears, which are the frames the receiver heard (a relay
forwards them, a Y-cable splits them off the same wire):

* ``Listener``, stop-and-wait (version 1 of the bench's protocol, and the
  default delivery of an adapter): a message with the number and check value
  of the last one taken is a copy sent again (its ACK was lost), anything
  else intact is taken (a number that skips is a gap, taken all the same);
* ``InOrderListener``, version 2's window: a message is taken only if it is
  the next number; a copy of one up to 32 back is sent again by go-back-N; a
  number past a gap is discarded (``out-of-order``) until the frames before
  it come again. A HELLO is taken whatever its number, unless it is the one
  already taken. Which version the two sides agreed is in the controller's
  HELLO (``Agreement``).

A message taken is ``send`` from the bench's side and ``message`` from the
controller's (the two kinds the oracle judges, ``bench.journal.recorder``); a
copy ``retransmit`` or ``duplicate``; ACK and NAK frames ``ack`` and ``nak``;
bytes that are not a frame ``rejected`` with the format's reason.
"""

from __future__ import annotations

import time

from bench.protocol import FrameEvent
from bench.protocol.codec import Rejected
from bench.protocol.messages import BENCH

BEHIND = 32        # version 2: a copy up to this many numbers back is a go-back-N resend


class Listener:
    def __init__(self, decoder, *, sender: str, wall=time.time):
        self.decoder = decoder
        self.sender = sender
        self.direction = "tx" if sender == BENCH else "rx"     # as the bench sees the link
        self.first_kind = "send" if sender == BENCH else "message"
        self.repeat_kind = "retransmit" if sender == BENCH else "duplicate"
        self.wall = wall
        self._last: tuple[int, int] | None = None       # (number, check value) of the last message taken

    def feed(self, data: bytes, now: float, wall: float | None = None) -> list[FrameEvent]:
        """The frames ``data`` completes, received at monotonic ``now``."""
        return self._events(self.decoder.feed(data, now), now, wall)

    def expire(self, now: float, wall: float | None = None) -> list[FrameEvent]:
        """A frame cut short by silence, if its timeout has passed."""
        return self._events(self.decoder.expire(now), now, wall)

    def _events(self, items, now: float, wall: float | None) -> list[FrameEvent]:
        if not items:
            return []
        wall = self.wall() if wall is None else wall
        out = []
        for item in items:
            if isinstance(item, Rejected):
                out.append(FrameEvent(self.direction, "rejected", item.raw, None,
                                      f"{item.reason}: {item.detail}", now, wall))
                continue
            message = item.message
            if message.type in ("ACK", "NAK"):
                kind = message.type.lower()
            else:
                kind = self._kind(message, item.crc)
            out.append(FrameEvent(self.direction, kind, item.raw, message, None, now, wall))
        return out

    def _kind(self, message, check: int) -> str:
        key = (message.seq, check)
        if key == self._last:
            return self.repeat_kind
        self._last = key
        return self.first_kind


class Agreement:
    """The protocol version the two sides agreed: that of the controller's last HELLO."""
    version = 1


class InOrderListener(Listener):
    """The bench's own protocol: version 1 as ``Listener``, version 2 in order."""

    def __init__(self, decoder, *, sender: str, agreement: Agreement, modulus: int, wall=time.time):
        super().__init__(decoder, sender=sender, wall=wall)
        self.agreement = agreement
        self.modulus = modulus
        self._hello: tuple[int, int] | None = None      # (number, check value) of the HELLO taken, until a RESET

    def _kind(self, message, check: int) -> str:
        if message.type == "HELLO" and self.sender != BENCH:
            # The controller answers in the version agreed (docs/protocol.md section 9).
            self.agreement.version = message.get("proto") or 1
        key = (message.seq, check)
        if self.agreement.version == 1:
            kind = super()._kind(message, check)
            if kind == self.first_kind:
                self._take(message, key)
            return kind
        seq = message.seq
        last = self._last[0] if self._last is not None else None
        behind = None if last is None else (last - seq) % self.modulus
        if message.type == "HELLO":
            if key != self._hello or behind is None or behind >= BEHIND:
                return self._take(message, key)
        elif last is None or (seq - last) % self.modulus == 1:
            return self._take(message, key)
        if behind is not None and behind < BEHIND:
            return self.repeat_kind
        return "out-of-order"

    def _take(self, message, key) -> str:
        self._last = key
        if message.type == "HELLO":
            self._hello = key
        elif message.type == "RESET":
            self._hello = None
        return self.first_kind
