"""The two directions of a link put back in the order they happened.

On a relay the copies are handed over before they are forwarded, so a reply
is always read after what caused it: the arrival times are the order
(``CausalMerge(causal=False)``). On the two lines of a Y-cable they are not:
each line is read on its own (and a USB serial adapter holds bytes for up to
16 ms before it delivers them; a tap line can fall a second or more behind),
so the monitor may read the controller's RELEASE before the host's TRIGGER
that caused it, and the oracle, which judges order ("a release only after
the dealer's trigger"), would be misled. Timestamps taken at the monitor
cannot settle that; the link's own acknowledgements can: a receiver ACKs a
message before it acts on it, so everything a side sends after its ACK of
message N came after N.

``CausalMerge`` takes each direction's frames in the order its line gave
them and releases both in one order: by time, except that an ACK of the
other side's message N is held, with everything after it on its line, until
N has been released (N is usually still unread on the other line, a few
milliseconds behind). A format without numbered ACKs is merged by time alone.

**A line that lags.** An ACK read before the message it acknowledges says
how far behind the message's line is, at least: the message was on the wire
before the ACK. The merge keeps an offset for each line, the least that
makes every ACK come after its message, and times each frame by its arrival
less its line's offset (``offsets``; the journal keeps the corrected times,
so that a reply deadline is judged on when the frames were on the wire, not
on when a late line delivered them). A line that catches up shows the other
way round (its ACKs would come before the messages they answer) and its
offset shrinks again. A hold lasts ``hold_s`` and the largest offset.

**A message never heard.** An ACK whose message does not come within the
hold names a message the tap did not hear: lost from its copy, or on a line
lagging more than the hold. It is released after an ``Unheard`` event that
stands for the message (``bench.adapters.tap``), so that the monitor knows,
before it judges anything after it, that the judge missed a message. If the
message does come later, the line was late, not lossy: its offset is learnt
from it.
"""

from __future__ import annotations

from collections import OrderedDict, deque

from bench.adapters.tap import ACCOUNTED, UNHEARD, retimed, unheard
from bench.protocol import FrameEvent

# Messages of each side remembered as released, for the ACKs that name them. The ACKs of a line
# behind the other name messages as far back as that line lags: within the longest hold
# (MAX_HOLD_S), a line at 115,200 baud carries about 2,900 frames of 40 bytes; 64 was
# passed by one round's 108 SETTLEs while the host's tap line delivered their ACKs late
# (CI's Y-cable failure), and the ACKs of the first were declared unheard. Never more than
# half the numbering (a format's ``seq_modulus``), so that a number remembered is never
# one a wrap has given to a newer message. An ``Unheard`` event names as many (ACCOUNTED).
RECENT = ACCOUNTED
OTHER = {"tx": "rx", "rx": "tx"}
SIDE = {"tx": "host", "rx": "controller"}
HOLD_S = 2.0           # an ACK waits this long (beyond a line's known lag) for the message it names
MAX_HOLD_S = 10.0      # and never longer: a line further behind is lost to the judge, and said so
_TAKEN = frozenset({"send", "message"})
COPY_GAP, COPY_GAP_END = "copy-gap", "copy-gap-end"    # where the copy began and ceased to drop bytes
MARKS = frozenset({UNHEARD, COPY_GAP, COPY_GAP_END})   # events that stand for no bytes, placed by their time


class CausalMerge:
    def __init__(self, hold_s: float = HOLD_S, *, causal: bool = True, modulus: int | None = None):
        self.hold_s = hold_s
        self.causal = causal
        self.recent = RECENT if modulus is None else max(1, min(RECENT, modulus // 2))
        self.queues: dict[str, deque[FrameEvent]] = {"tx": deque(), "rx": deque()}
        # Each side's messages released, number -> the time they were released at, oldest first
        # (ordered dicts: forgetting the oldest of thousands is O(1); a plain dict's first key,
        # behind the deleted entries, cost 3 us a message at RECENT's size).
        self._released: dict[str, OrderedDict[int, float]] = {"tx": OrderedDict(), "rx": OrderedDict()}
        # Numbers an expired hold declared unheard, number -> when the ACK naming them was read.
        self._declared: dict[str, OrderedDict[int, float]] = {"tx": OrderedDict(), "rx": OrderedDict()}
        self.offsets = {"tx": 0.0, "rx": 0.0}   # seconds each line's arrivals are behind the wire
        self._last_mono = {"tx": float("-inf"), "rx": float("-inf")}
        self.reordered = 0                 # frames released before an earlier-read ACK that waited for them
        self.expired = 0                   # ACKs released after waiting for a message never heard
        self.late = 0                      # messages heard after an expired hold had declared them unheard

    def add(self, event: FrameEvent) -> None:
        message = event.message
        if self.causal and event.kind in _TAKEN and message is not None:
            declared = self._declared[event.direction]
            if declared and message.seq is not None and message.seq in declared:
                when = declared.pop(message.seq)
                if event.mono - when <= MAX_HOLD_S:
                    # Declared unheard, and here it is: its line was late, by this much at least.
                    self.late += 1
                    self._constrain(event.direction, event.mono, OTHER[event.direction], when)
                # (later than any line is let lag: a newer message the numbering's wrap gave
                # the same number, not the old one late; taken as late it put the wrap's whole
                # time into the line's offset)
        queue = self.queues[event.direction]
        if event.kind in MARKS and queue and queue[-1].mono > event.mono:
            # A mark of what the tap missed, found out only after later frames came (a
            # message found missing, a gap in the copy): it stands where it happened.
            at = len(queue)
            while at and queue[at - 1].mono > event.mono:
                at -= 1
            queue.insert(at, event)
            return
        queue.append(event)

    @property
    def lag(self) -> tuple[str, float]:
        """The line furthest behind and by how much (seconds), as the ACKs show it."""
        direction = max(self.offsets, key=self.offsets.__getitem__)
        return direction, self.offsets[direction]

    def release(self, now: float, *, everything: bool = False) -> list[FrameEvent]:
        """What can be released at ``now``, in the order it happened
        (``everything``: the rest too, holds or not: the stream has ended)."""
        out: list[FrameEvent] = []
        queues = self.queues
        offsets = self.offsets
        hold = min(self.hold_s + max(offsets.values()), MAX_HOLD_S)
        while queues["tx"] or queues["rx"]:
            if not queues["rx"]:
                chosen = "tx"
                waiting = self.causal and not everything and self._waits(queues["tx"][0])
            elif not queues["tx"]:
                chosen = "rx"
                waiting = self.causal and not everything and self._waits(queues["rx"][0])
            else:
                first = "tx" if queues["tx"][0].mono - offsets["tx"] <= queues["rx"][0].mono - offsets["rx"] else "rx"
                chosen, waiting = first, False
                if self.causal and not everything:
                    # The earliest head that waits for nothing; an ACK of a message still
                    # unread on the other line waits, and so does its line behind it.
                    if self._waits(queues[first][0]):
                        other = OTHER[first]
                        if self._waits(queues[other][0]):
                            waiting = True
                        else:
                            chosen = other
                            self.reordered += 1
            if waiting:
                head = queues[chosen][0]
                if now - head.mono < hold:
                    break
                self.expired += 1
                out.append(self._unheard(head))
            out.append(self._out(queues[chosen].popleft()))
        return out

    def _waits(self, event: FrameEvent) -> bool:
        """An ACK naming a message of the other side not yet released."""
        if event.kind != "ack":
            return False
        message = event.message
        return message is not None and message.seq is not None \
            and message.seq not in self._released[OTHER[event.direction]]

    def _unheard(self, ack: FrameEvent) -> FrameEvent:
        """The message an expired ACK names, which the tap never heard."""
        direction, number = OTHER[ack.direction], ack.message.seq if ack.message is not None else None
        if number is None:
            raise ValueError("an ACK without a number cannot wait")
        self._remember(self._declared[direction], number, ack.mono, self.recent)
        note = (f"the {SIDE[ack.direction]} acknowledged the {SIDE[direction]}'s message {number:04d}, which its "
                f"line did not carry within {min(self.hold_s + max(self.offsets.values()), MAX_HOLD_S):g} s: lost "
                "from the tap's copy, or the line is that far behind")
        marker = unheard(direction, [number], note, ack.mono - self.offsets[ack.direction], ack.wall)
        self._note(marker)           # accounted for: a later ACK of it waits for nothing
        return marker

    def _out(self, event: FrameEvent) -> FrameEvent:
        """The event as released: timed by the wire (its line's offset taken
        off, never before the frame released before it on its line), and
        noted for the ACKs that name it."""
        direction = event.direction
        message = event.message
        if self.causal and message is not None and message.seq is not None:
            if event.kind == "ack":
                sent = self._released[OTHER[direction]].get(message.seq)
                if sent is not None:
                    self._constrain(OTHER[direction], sent + self.offsets[OTHER[direction]], direction, event.mono)
            elif event.kind in _TAKEN:
                other = self.queues[OTHER[direction]]
                # An ACK already read that names this message: the message was on the wire before it.
                head = other[0] if other else None
                if head is not None and head.kind == "ack" and head.message is not None \
                        and head.message.seq == message.seq:
                    self._constrain(direction, event.mono, OTHER[direction], head.mono)
        offset = self.offsets[direction]
        mono = event.mono - offset
        if mono < self._last_mono[direction]:
            mono = self._last_mono[direction]
        self._last_mono[direction] = mono
        if mono != event.mono:
            event = retimed(event, mono)
        self._note(event)
        return event

    def _constrain(self, message_line: str, message_arrival: float, ack_line: str, ack_arrival: float) -> None:
        """An ACK is sent after the message it names was received: if the two
        lines' offsets put the ACK first, the message's line is further
        behind than they say. The least change that fixes it: the ACK's line
        first loses offset, then the message's gains the rest."""
        offsets = self.offsets
        gap = (message_arrival - offsets[message_line]) - (ack_arrival - offsets[ack_line])
        if gap <= 0:
            return
        taken = min(gap, offsets[ack_line])
        offsets[ack_line] -= taken
        offsets[message_line] += gap - taken

    def _note(self, event: FrameEvent) -> None:
        kind = event.kind
        if kind == UNHEARD:
            released = self._released[event.direction]
            for number in getattr(event, "accounts", ()):
                self._remember(released, number, event.mono, self.recent)
            return
        message = event.message
        if message is None or message.seq is None or kind in ("ack", "nak", "rejected"):
            return
        released = self._released[event.direction]
        if message.type in ("RESET", "HELLO"):
            # Its numbering may start again (a bench that restarts greets again from 0000,
            # answered without a RESET): an old number is not this one. Kept, a previous
            # session's number let the other side's ACK of the new message pass before it.
            released.clear()
            self._declared[event.direction].clear()
        self._remember(released, message.seq, event.mono, self.recent)

    @staticmethod
    def _remember(numbers: OrderedDict[int, float], number: int, when: float, most: int) -> None:
        numbers[number] = when
        numbers.move_to_end(number)
        if len(numbers) > most:
            numbers.popitem(last=False)
