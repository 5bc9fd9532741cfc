"""One end of the link: stop-and-wait delivery with ACK/NAK and bounded
retransmission, duplicate suppression, and a record of every frame.

Single-threaded on purpose: ``send`` keeps reading while it waits for its ACK
(acknowledging and queueing whatever the peer sends meanwhile), and
``receive`` reads until a message arrives or its deadline passes. Both ends of
the link (the bench and the emulated controller) use this class.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from dataclasses import dataclass
from typing import Callable, Protocol

from bench.protocol.codec import Codec, Decoded, Rejected, StreamDecoder
from bench.protocol.errors import LinkTimeout, ResponseTimeout
from bench.protocol.frame import SEQ_MODULUS
from bench.protocol.messages import BENCH, CONTROLLER, Message, make
from bench.protocol.timeouts import Deadline, Timeouts

NO_FRAME_YET = SEQ_MODULUS - 1  # the sequence number a NAK carries before any frame was accepted


class Port(Protocol):
    """What a session needs from a link (see ``bench.link.Link``)."""

    def read_some(self, timeout: float) -> bytes: ...
    def write(self, data: bytes) -> None: ...


@dataclass(frozen=True)
class FrameEvent:
    """One frame (or rejected run of bytes) crossing the link, for a journal.

    direction: "tx" (we sent it) or "rx" (we received it);
    kind:      tx: "send", "retransmit", "ack", "nak";
               rx: "message", "duplicate", "ack", "nak", "rejected";
    note:      for "rejected" the reason token and detail; for a sequence gap or
               a stale ACK, what was expected.
    """

    direction: str
    kind: str
    raw: bytes
    message: Message | None
    note: str | None
    mono: float
    wall: float


Observer = Callable[[FrameEvent], None]


class Session:
    def __init__(self, port: Port, game: str, *, role: str, timeouts: Timeouts = Timeouts(),
                 observer: Observer | None = None, clock=time.monotonic, wall=time.time):
        if role not in (BENCH, CONTROLLER):
            raise ValueError(f"role must be {BENCH!r} or {CONTROLLER!r}, got {role!r}")
        self.port = port
        self.codec = Codec(game)
        self.role = role
        self.peer = CONTROLLER if role == BENCH else BENCH
        self.timeouts = timeouts
        self.observers: list[Observer] = [observer] if observer else []
        self.clock, self.wall = clock, wall
        self.decoder = StreamDecoder(self.codec, sender=self.peer, byte_timeout=timeouts.byte,
                                     frame_timeout=timeouts.frame)
        self.stats: Counter[str] = Counter()
        self.inbox: deque[Message] = deque()
        self._tx_seq = 0
        self._last_rx: tuple[int, int] | None = None   # (seq, crc) of the last frame accepted
        self._waiting_for: int | None = None           # seq of our frame awaiting its ACK
        self._acked = False
        self._nak_retransmit = False

    # -- sending --------------------------------------------------------
    def send(self, message: Message) -> Message:
        """Send one message and wait for its ACK, sending it again on a NAK or
        after the response timeout, at most ``timeouts.retries`` times.
        Returns the message with its sequence number; raises LinkTimeout."""
        seq = self._tx_seq
        data = self.codec.encode(message, seq)
        sent = Message(message.type, message.fields, seq)
        self._waiting_for, self._acked = seq, False
        for attempt in range(self.timeouts.retries + 1):
            self._write(data, sent, "send" if attempt == 0 else "retransmit")
            deadline = Deadline(self.timeouts.response, self.clock)
            self._nak_retransmit = False
            while not self._acked and not self._nak_retransmit and not deadline.expired():
                self._pump(deadline)
            if self._acked:
                self._waiting_for = None
                self._tx_seq = (seq + 1) % SEQ_MODULUS
                return sent
        self._waiting_for = None
        self.stats["link_timeouts"] += 1
        # The number is spent either way: if the peer did get the message, the
        # next one must not look like it; if not, the peer sees the gap.
        self._tx_seq = (seq + 1) % SEQ_MODULUS
        raise LinkTimeout(f"{message.type} (seq {seq:04d}) not acknowledged after {self.timeouts.retries + 1} "
                          f"attempts of {self.timeouts.response} s each")

    def restart(self) -> None:
        """Start our sequence numbers again at 0000 (after a reset)."""
        self._tx_seq = 0

    # -- receiving ------------------------------------------------------
    def receive(self, timeout: float, *, expect: str | tuple[str, ...] | None = None) -> Message:
        """The next message from the peer; raises ResponseTimeout if none
        arrives within ``timeout`` seconds (or none of the ``expect`` types:
        others are still queued in order)."""
        message = self.poll(timeout, expect=expect)
        if message is None:
            wanted = f" {expect}" if expect else ""
            raise ResponseTimeout(f"no message{wanted} from the {self.peer} within {timeout} s")
        return message

    def poll(self, timeout: float, *, expect: str | tuple[str, ...] | None = None) -> Message | None:
        """Like ``receive`` but returns None on timeout."""
        wanted = (expect,) if isinstance(expect, str) else expect
        deadline = Deadline(timeout, self.clock)
        while True:
            for i, message in enumerate(self.inbox):
                if wanted is None or message.type in wanted:
                    del self.inbox[i]
                    return message
            if deadline.expired():
                return None
            self._pump(deadline)

    # -- the wire -------------------------------------------------------
    def _pump(self, deadline: Deadline) -> None:
        data = self.port.read_some(deadline.sooner(self.timeouts.byte))
        now = self.clock()
        items = self.decoder.feed(data, now) if data else self.decoder.expire(now)
        for item in items:
            if isinstance(item, Rejected):
                self._on_rejected(item)
            else:
                self._on_frame(item)

    def _on_rejected(self, item: Rejected) -> None:
        self.stats["rejected"] += 1
        self.stats[f"rejected:{item.reason}"] += 1
        self._notify("rx", "rejected", item.raw, None, f"{item.reason}: {item.detail}")
        if item.damaged_frame:
            last = self._last_rx[0] if self._last_rx else NO_FRAME_YET
            self._write_control(make("NAK", reason=item.reason), last, "nak")

    def _on_frame(self, item: Decoded) -> None:
        message = item.message
        if message.type == "ACK":
            self._notify("rx", "ack", item.raw, message, None)
            if message.seq == self._waiting_for:
                self._acked = True
            else:
                self.stats["stale_acks"] += 1
            return
        if message.type == "NAK":
            self._notify("rx", "nak", item.raw, message, None)
            self.stats["naks_received"] += 1
            if self._waiting_for is not None:
                if message.seq == self._waiting_for:
                    self._acked = True       # the peer has it: our ACK was lost on the way back
                else:
                    self._nak_retransmit = True
            return
        key = (message.seq, item.crc)
        if key == self._last_rx:
            self.stats["duplicates"] += 1
            self._notify("rx", "duplicate", item.raw, message, None)
            self._write_control(make("ACK"), message.seq, "ack")
            return
        note = None
        if (self._last_rx is not None and message.type != "HELLO"
                and message.seq != (self._last_rx[0] + 1) % SEQ_MODULUS):
            self.stats["sequence_gaps"] += 1
            note = f"sequence gap: expected {(self._last_rx[0] + 1) % SEQ_MODULUS:04d}, got {message.seq:04d}"
        self._last_rx = key
        self.stats["received"] += 1
        self._notify("rx", "message", item.raw, message, note)
        self._write_control(make("ACK"), message.seq, "ack")
        self.inbox.append(message)

    def _write_control(self, message: Message, seq: int, kind: str) -> None:
        self._write(self.codec.encode(message, seq), Message(message.type, message.fields, seq), kind)

    def _write(self, data: bytes, message: Message, kind: str) -> None:
        self.stats[f"tx_{kind}"] += 1
        self.stats["tx_bytes"] += len(data)
        self._notify("tx", kind, data, message, None)
        self.port.write(data)

    def _notify(self, direction, kind, raw, message, note) -> None:
        if kind in ("message", "duplicate", "rejected", "ack", "nak") and direction == "rx":
            self.stats["rx_bytes"] += len(raw)
        if self.observers:
            event = FrameEvent(direction, kind, raw, message, note, self.clock(), self.wall())
            for observer in self.observers:
                observer(event)
