"""The two directions of a link put back in the order they happened.

On a relay the copies are handed over before they are forwarded, so a reply
is always read after what caused it. On the two lines of a Y-cable they are
not: each line is read on its own (and a USB serial adapter holds bytes for
up to 16 ms before it delivers them), so the monitor may read the
controller's RELEASE before the host's TRIGGER that caused it, and the
oracle, which judges order ("a release only after the dealer's trigger"),
would be misled. Timestamps taken at the monitor cannot settle that; the
link's own acknowledgements can: a receiver ACKs a message before it acts on
it, so everything a side sends after its ACK of message N came after N.

``CausalMerge`` takes each direction's frames in the order its line gave
them and releases both in one order: by arrival time, except that an ACK of
the other side's message N is held, with everything after it on its line,
until N has been released (N is usually still unread on the other line, a
few milliseconds behind). A hold lasts at most ``hold_s`` of arrival time:
an ACK of a message the monitor never heard (it attached later, or lost the
bytes) does not stop the stream. A format without numbered ACKs is merged by
arrival time alone.
"""

from __future__ import annotations

from collections import deque

from bench.protocol import FrameEvent

RECENT = 64            # messages of each side remembered as released, for the ACKs that name them
OTHER = {"tx": "rx", "rx": "tx"}


class CausalMerge:
    def __init__(self, hold_s: float = 0.5):
        self.hold_s = hold_s
        self.queues: dict[str, deque[FrameEvent]] = {"tx": deque(), "rx": deque()}
        self._released: dict[str, deque[int]] = {"tx": deque(maxlen=RECENT), "rx": deque(maxlen=RECENT)}
        self.reordered = 0                 # frames released before an earlier-read ACK that waited for them
        self.expired = 0                   # ACKs released after waiting ``hold_s`` for a message never heard

    def add(self, event: FrameEvent) -> None:
        self.queues[event.direction].append(event)

    def release(self, now: float, *, everything: bool = False) -> list[FrameEvent]:
        """What can be released at ``now``, in the order it happened
        (``everything``: the rest too, holds or not: the stream has ended)."""
        out: list[FrameEvent] = []
        queues = self.queues
        while queues["tx"] or queues["rx"]:
            heads = sorted((d for d in ("tx", "rx") if queues[d]), key=lambda d: queues[d][0].mono)
            # The earliest head that waits for nothing; an ACK of a message still
            # unread on the other line waits, and so does its line behind it.
            chosen = next((d for d in heads if everything or not self._waits(queues[d][0])), None)
            if chosen is None:
                chosen = heads[0]
                if now - queues[chosen][0].mono < self.hold_s:
                    break
                self.expired += 1
            elif chosen != heads[0]:
                self.reordered += 1
            event = queues[chosen].popleft()
            self._note(event)
            out.append(event)
        return out

    def _waits(self, event: FrameEvent) -> bool:
        """An ACK naming a message of the other side not yet released."""
        message = event.message
        if message is None or message.type != "ACK" or event.kind != "ack":
            return False
        return message.seq not in self._released[OTHER[event.direction]]

    def _note(self, event: FrameEvent) -> None:
        message = event.message
        if message is None or message.type in ("ACK", "NAK") or event.kind == "rejected":
            return
        released = self._released[event.direction]
        if message.type == "RESET":
            released.clear()           # its numbering starts again: an old number is not this one
        released.append(message.seq)
