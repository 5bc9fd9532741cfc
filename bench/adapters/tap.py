"""Listening without taking part: one direction of a live link decoded into
the ``FrameEvent``s the bench would have recorded, for ``bench monitor``.

A listener answers nothing, so it cannot learn from its own ACKs which
frames the receiver took; it infers it from the frames alone, the way the
receiver's delivery rules decide it for an intact link:

* a message whose number and check value are those of one of the last
  ``RECENT`` messages of the same sender (since its last RESET) is a copy
  sent again (its ACK was lost or late): ``retransmit`` from the bench's
  side, ``duplicate`` from the controller's, not a new message;
* any other intact message is new: ``send`` (bench) or ``message``
  (controller), the two kinds the oracle judges (``bench.journal.recorder``);
* ACK and NAK frames are ``ack`` and ``nak``, bytes that are not a frame
  ``rejected`` with the format's reason.

Where a real receiver would have discarded an intact frame (version 2 of the
bench's protocol discards a frame past a gap until the frame before it comes
again; a message given up after its retries never arrives), the listener
takes it at its first copy: docs/adapters.md ("What a monitor cannot judge").
"""

from __future__ import annotations

import time
from collections import deque

from bench.protocol import FrameEvent
from bench.protocol.codec import Rejected
from bench.protocol.messages import BENCH

RECENT = 32        # copies further back than this many messages are taken as new messages


class Listener:
    def __init__(self, decoder, *, sender: str, wall=time.time):
        self.decoder = decoder
        self.sender = sender
        self.direction = "tx" if sender == BENCH else "rx"     # as the bench sees the link
        self.first_kind = "send" if sender == BENCH else "message"
        self.repeat_kind = "retransmit" if sender == BENCH else "duplicate"
        self.wall = wall
        self._recent: deque[tuple[int, int]] = deque(maxlen=RECENT)
        self._recent_set: set[tuple[int, int]] = set()

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
        if key in self._recent_set:
            return self.repeat_kind
        if message.type == "RESET":
            # The sender starts its numbering again after a RESET: 0000 next is new.
            self._recent.clear()
            self._recent_set.clear()
        if len(self._recent) == RECENT:
            self._recent_set.discard(self._recent[0])
        self._recent.append(key)
        self._recent_set.add(key)
        return self.first_kind
