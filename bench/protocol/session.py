"""One end of the link: delivery with ACK/NAK and bounded retransmission,
duplicate suppression, and a record of every frame.

Version 1 is stop-and-wait: ``send`` writes one frame and keeps reading
(acknowledging and queueing whatever the peer sends meanwhile) until its ACK.
Version 2 (docs/protocol.md, section 9) keeps up to the peer's window of
messages in flight: ``send`` returns once the frame is queued, ACKs are
cumulative and sent once per read, a gap is answered with one NAK and the
sender goes back to the gap (go-back-N), and the frames queued since the last
read leave in one write just before the session next blocks on a read.

Single-threaded on purpose: every wait is a ``_pump`` (one bounded read and
the frames it brought), and every ``_pump`` also services the retransmission
timer of the messages still in flight. Both ends of the link (the bench and
the emulated controller) use this class; a session starts in version 1 and
``use_protocol`` switches it after the HELLO exchange.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from typing import Callable, NamedTuple, Protocol

from bench.protocol import frame as framing
from bench.protocol.codec import Codec, Decoded, Rejected, StreamDecoder
from bench.protocol.errors import LinkTimeout, ProtocolViolation, ResponseTimeout
from bench.protocol.frame import SEQ_MODULUS
from bench.protocol.messages import BENCH, CONTROLLER, PROTOCOL_VERSIONS, Message, make

from bench.protocol.timeouts import Deadline, Timeouts

NO_FRAME_YET = SEQ_MODULUS - 1  # the sequence number a NAK carries before any frame was accepted
WINDOW = 16                     # v2: how many of the peer's messages we take in flight (announced in HELLO)
DEFAULT_WINDOW = 8              # v2: the peer's window when its HELLO names none
MAX_WINDOW = 32                 # v2: the largest window a HELLO may announce
OUT_OF_ORDER = "out-of-order"   # v2: the NAK reason for a frame past a gap
# A frame up to MAX_WINDOW numbers behind the last one accepted is one we
# already have (a go-back-N resend); further away it is a new one past a gap.
_DUPLICATE_SPAN = MAX_WINDOW

_TX_STATS = {kind: f"tx_{kind}" for kind in ("send", "retransmit", "ack", "nak")}
_ACKS: dict[int, tuple[bytes, Message]] = {}   # ACK frames by sequence number: built once, sent often


def _ack_frame(seq: int) -> tuple[bytes, Message]:
    frame = _ACKS.get(seq)
    if frame is None:
        frame = _ACKS[seq] = (framing.build(seq, "ACK", []), Message("ACK", {}, seq))
    return frame


class Port(Protocol):
    """What a session needs from a link (see ``bench.protocol.link.Link``)."""

    def read_some(self, timeout: float) -> bytes: ...
    def write(self, data: bytes) -> None: ...


class FrameEvent(NamedTuple):     # one a frame: cheaper to make than a frozen dataclass
    """One frame (or rejected run of bytes) crossing the link, for a journal.

    direction: "tx" (we sent it) or "rx" (we received it);
    kind:      tx: "send", "retransmit", "ack", "nak";
               rx: "message", "duplicate", "ack", "nak", "rejected",
                   "out-of-order" (v2: a frame past a gap, discarded);
    note:      for "rejected" the reason token and detail; for a sequence gap,
               what was expected.

    Events come in the order the frames are on the wire. In version 2 a tx
    event is emitted (and timed) when its frame is queued; the frame goes on
    the wire before the session next reads.
    """

    direction: str
    kind: str
    raw: bytes
    message: Message | None
    note: str | None
    mono: float
    wall: float
    size: int | None = None      # bytes it stood for on the wire when ``raw`` keeps only a sample (a long run of noise)


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
        # Work that need not delay a reply (a journal, an oracle) can wait for
        # the moments when the session would otherwise sit waiting for the
        # peer: ``on_idle`` is called then, after our frames have gone out.
        self.on_idle: Callable[[], None] | None = None
        self.clock, self.wall = clock, wall
        self.decoder = StreamDecoder(self.codec, sender=self.peer, byte_timeout=timeouts.byte,
                                     frame_timeout=timeouts.frame)
        self.stats: Counter[str] = Counter()
        self.inbox: deque[Message] = deque()
        self.version = 1               # until the HELLO exchange agrees on another (use_protocol)
        self.peer_window = 1
        self._tx_seq = 0
        self._last_rx: tuple[int, int] | None = None   # (seq, crc) of the last frame accepted
        # version 1: the one message awaiting its ACK
        self._waiting_for: int | None = None
        self._acked = False
        self._nak_retransmit = False
        # version 2, sending: messages in flight, oldest first, as (seq, frame, message)
        self._in_flight: deque[tuple[int, bytes, Message]] = deque()
        self._resend_at = 0.0          # when the messages in flight go again if not acknowledged
        self._attempts = 0             # go-back-N resends since the last progress
        self._abandoned: tuple[int, int] | None = None   # (first seq, count) given up by a LinkTimeout
        self._out = bytearray()        # frames queued for the next write
        # version 2, receiving
        self._ack_due = False          # a message (or a duplicate) arrived since our last ACK or NAK
        self._gap_nakked = False       # the current gap has had its NAK
        self._hello_key: tuple[int, int] | None = None   # (seq, crc) of the last HELLO, until a RESET

    # -- version ----------------------------------------------------------
    def use_protocol(self, version: int, *, peer_window: int | None = None) -> None:
        """Speak ``version`` from now on (after the HELLO exchange agreed on it).
        ``peer_window`` is the ``window`` of the peer's version 2 HELLO."""
        if version not in PROTOCOL_VERSIONS:
            raise ValueError(f"protocol version {version!r} is not one of {PROTOCOL_VERSIONS}")
        if version == 1:
            # Stop-and-wait starts from an empty window: what is queued leaves
            # now, and messages still in flight are given up (a new HELLO follows).
            self._write_out()
            if self._in_flight:
                self._give_up()
            self.version, self.peer_window = 1, 1
            return
        window = DEFAULT_WINDOW if peer_window is None else peer_window
        if not 1 <= window <= MAX_WINDOW:
            raise ProtocolViolation(f"the {self.peer}'s HELLO announces window {window}; "
                                    f"version 2 allows 1 to {MAX_WINDOW}")
        self.version, self.peer_window = 2, window

    # -- sending --------------------------------------------------------
    def send(self, message: Message) -> Message:
        """Send one message; returns it with its sequence number.

        Version 1 waits for its ACK, sending it again on a NAK or after the
        response timeout, at most ``timeouts.retries`` times (LinkTimeout).
        Version 2 returns as soon as the frame is queued if the peer's window
        has room; if not, it reads (acknowledging and queueing what arrives)
        until an ACK makes room, or raises LinkTimeout."""
        if self.version == 1:
            return self._send_and_wait(message)
        while len(self._in_flight) >= self.peer_window:
            self._pump(Deadline(self.timeouts.response, self.clock))
        seq = self._tx_seq
        data = self.codec.encode(message, seq)
        sent = Message(message.type, message.fields, seq)
        self._tx_seq = (seq + 1) % SEQ_MODULUS
        if not self._in_flight:
            self._resend_at = self.clock() + self.timeouts.response
            self._attempts = 0
        self._in_flight.append((seq, data, sent))
        self._write(data, sent, "send")
        return sent

    def flush(self, timeout: float | None = None) -> None:
        """Put every queued frame on the wire and wait until every message in
        flight is acknowledged (version 1: nothing is ever left in flight).
        Raises LinkTimeout when the retransmissions run out, or when
        ``timeout`` seconds pass first."""
        deadline = Deadline(timeout, self.clock) if timeout is not None else None
        while self._in_flight:
            if deadline is not None and deadline.expired():
                seq, _, sent = self._in_flight[0]
                raise LinkTimeout(f"{len(self._in_flight)} messages from {sent.type} (seq {seq:04d}) on "
                                  f"not acknowledged within {timeout} s")
            self._pump(deadline or Deadline(self.timeouts.response, self.clock))
        self._write_out()

    def linger(self, seconds: float) -> None:
        """Keep the link serviced for ``seconds`` without taking any message:
        what is queued goes out, what arrives is acknowledged and queued,
        what is in flight is resent on its timer. For a caller that would
        otherwise sleep (a table waiting on the wall clock): a peer that
        speaks meanwhile is not left unacknowledged until it gives up."""
        deadline = Deadline(seconds, self.clock)
        while not deadline.expired():
            self._pump(deadline)
        self._write_out()

    @property
    def in_flight(self) -> int:
        """How many messages are sent and not yet acknowledged (version 2)."""
        return len(self._in_flight)

    def restart(self) -> None:
        """Start our sequence numbers again at 0000 (after a reset); messages
        still in flight are forgotten."""
        self._tx_seq = 0
        self._in_flight.clear()
        self._attempts = 0
        self._abandoned = None

    def reattach(self, port: Port) -> None:
        """Go on over a new link to the same controller (a device that went
        away and came back): what was in flight or half received on the old
        one is lost; the numbering goes on in both directions (no RESET), so
        the HELLO that must follow is a new one, never taken for the last."""
        self.port = port
        self.decoder = StreamDecoder(self.codec, sender=self.peer, byte_timeout=self.timeouts.byte,
                                     frame_timeout=self.timeouts.frame)
        self.inbox.clear()
        self._out.clear()
        self._in_flight.clear()
        self._waiting_for, self._acked, self._nak_retransmit = None, False, False
        self._attempts, self._abandoned, self._ack_due = 0, None, False
        self.stats["reattached"] += 1

    def _send_and_wait(self, message: Message) -> Message:
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

    # -- version 2: the window ---------------------------------------------
    def _acknowledge(self, seq: int) -> bool:
        """Cumulative: ``seq`` acknowledges every message in flight up to it.
        False if ``seq`` names none of them (a stale or stray ACK)."""
        if not self._in_flight:
            return False
        count = (seq - self._in_flight[0][0]) % SEQ_MODULUS + 1
        if count > len(self._in_flight):
            return False
        for _ in range(count):
            self._in_flight.popleft()
        self._attempts = 0
        self._abandoned = None          # the peer took what follows them: it no longer waits for those
        self._resend_at = self.clock() + self.timeouts.response
        return True

    def _go_back(self, *, timed_out: bool) -> None:
        """Send every message in flight again, in order; after ``retries``
        resends without progress the timer's expiry is a LinkTimeout."""
        if self._attempts >= self.timeouts.retries:
            if timed_out:
                raise self._give_up()
            return          # a NAK after the last attempt: the timer decides
        self._attempts += 1
        for _seq, data, sent in self._in_flight:
            self._write(data, sent, "retransmit")
        self._resend_at = self.clock() + self.timeouts.response

    def _give_up(self) -> LinkTimeout:
        seq, _, sent = self._in_flight[0]
        behind = len(self._in_flight) - 1
        # The numbers are spent, as in version 1; remembered so that the
        # peer's NAK for them can be answered by renumbering (_renumber).
        # Given up again before the peer took any of them: it may still wait
        # for the first number given up earlier, so the spent run starts there.
        first = seq if self._abandoned is None else self._abandoned[0]
        self._abandoned = (first, (seq - first) % SEQ_MODULUS + len(self._in_flight))
        self._in_flight.clear()
        self._attempts = 0
        self.stats["link_timeouts"] += 1
        return LinkTimeout(f"{sent.type} (seq {seq:04d}) not acknowledged after {self.timeouts.retries + 1} "
                           f"attempts of {self.timeouts.response} s each"
                           + (f" ({behind} later messages given up with it)" if behind else ""))

    def _renumber(self, last: int) -> None:
        """The peer waits for a message we gave up (its NAK names the one
        before it): what is in flight is numbered again from there, so that
        the peer sees the given-up messages as lost, not the link as stuck."""
        if self._abandoned is None:
            return
        first, count = self._abandoned
        if not self._in_flight or (last + 1 - first) % SEQ_MODULUS >= count:
            return
        seq, renumbered = (last + 1) % SEQ_MODULUS, deque[tuple]()
        for _, _, sent in self._in_flight:
            message = Message(sent.type, sent.fields, seq)
            renumbered.append((seq, self.codec.encode(sent, seq), message))
            seq = (seq + 1) % SEQ_MODULUS
        self._in_flight, self._tx_seq, self._abandoned = renumbered, seq, None
        self.stats["renumbered"] += 1

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
        """Like ``receive`` but returns None on timeout. While it waits, the
        messages we have in flight are resent on their timer (LinkTimeout)."""
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
        """One bounded read and the frames it brought. Version 2: first the
        retransmission timer, then everything queued in one write; after the
        frames, one cumulative ACK."""
        wait = deadline.sooner(self.timeouts.byte)
        if self._in_flight:
            if self.clock() >= self._resend_at:
                self._go_back(timed_out=True)
            wait = min(wait, max(0.0, self._resend_at - self.clock()))
        self._write_out()
        if self.on_idle is None:
            data = self.port.read_some(wait)
        else:
            data = self.port.read_some(0)          # what has already arrived is dealt with first
            if not data:
                self.on_idle()
                data = self.port.read_some(wait)
        now = self.clock()
        items = self.decoder.feed(data, now) if data else self.decoder.expire(now)
        for item in items:
            if isinstance(item, Rejected):
                self._on_rejected(item)
            else:
                self._on_frame(item)
        if self._ack_due and self._last_rx is not None:     # due only once a frame was taken
            self._ack_due = False
            data, message = _ack_frame(self._last_rx[0])
            self._write(data, message, "ack")

    def _on_rejected(self, item: Rejected) -> None:
        self.stats["rejected"] += 1
        self.stats[f"rejected:{item.reason}"] += 1
        self._notify("rx", "rejected", item.raw, None, f"{item.reason}: {item.detail}", item.size)
        if item.damaged_frame:
            self._nak(item.reason)

    def _nak(self, reason: str) -> None:
        last = self._last_rx[0] if self._last_rx else NO_FRAME_YET
        # A NAK names the last frame accepted: it acknowledges as much as an ACK would.
        self._ack_due = False
        self._gap_nakked = True
        self._write_control(make("NAK", reason=reason), last, "nak")

    def _on_frame(self, item: Decoded) -> None:
        message = item.message
        if message.type == "ACK":
            self._notify("rx", "ack", item.raw, message, None)
            if self._waiting_for is not None:
                if item.seq == self._waiting_for:
                    self._acked = True
                else:
                    self.stats["stale_acks"] += 1
            elif not self._acknowledge(item.seq):
                self.stats["stale_acks"] += 1
            return
        if message.type == "NAK":
            self._notify("rx", "nak", item.raw, message, None)
            self.stats["naks_received"] += 1
            if self._waiting_for is not None:
                if item.seq == self._waiting_for:
                    self._acked = True       # the peer has it: our ACK was lost on the way back
                else:
                    self._nak_retransmit = True
            elif self._in_flight:
                self._acknowledge(item.seq)
                if self._abandoned is not None:
                    self._renumber(item.seq)
                if self._in_flight:
                    self._go_back(timed_out=False)
            return
        if self.version == 1:
            self._on_message_v1(item)
        else:
            self._on_message_v2(item)

    def _on_message_v1(self, item: Decoded) -> None:
        message = item.message
        key = (item.seq, item.crc)
        if key == self._last_rx:
            self.stats["duplicates"] += 1
            self._notify("rx", "duplicate", item.raw, message, None)
            self._write(*_ack_frame(item.seq), "ack")
            return
        note = None
        if (self._last_rx is not None and message.type != "HELLO"
                and item.seq != (self._last_rx[0] + 1) % SEQ_MODULUS):
            self.stats["sequence_gaps"] += 1
            note = f"sequence gap: expected {(self._last_rx[0] + 1) % SEQ_MODULUS:04d}, got {item.seq:04d}"
        self._accept(item, note)
        self._write(*_ack_frame(item.seq), "ack")

    def _on_message_v2(self, item: Decoded) -> None:
        message = item.message
        seq = item.seq
        last = self._last_rx[0] if self._last_rx is not None else None
        if message.type == "HELLO":
            # Whatever its number (the peer may have restarted), unless it is
            # the HELLO we already have, sent again by go-back-N.
            behind = None if last is None else (last - seq) % SEQ_MODULUS
            if (seq, item.crc) != self._hello_key or behind is None or behind >= _DUPLICATE_SPAN:
                self._accept(item, None)
                return
        elif last is None or (seq - last) % SEQ_MODULUS == 1:
            self._accept(item, None)
            return
        assert last is not None          # both branches above take the first frame and return
        if (last - seq) % SEQ_MODULUS < _DUPLICATE_SPAN:
            self.stats["duplicates"] += 1
            self._notify("rx", "duplicate", item.raw, message, None)
            self._ack_due = True          # ACK again: our last ACK may have been lost
            return
        # Past a gap (a frame lost or damaged before it): not delivered; one
        # NAK per gap sends the peer back to the frame after the last accepted.
        self.stats["out_of_order"] += 1
        self._notify("rx", "out-of-order", item.raw, message,
                     f"out of order: expected {(last + 1) % SEQ_MODULUS:04d}, got {seq:04d}")
        if not self._gap_nakked:
            self._nak(OUT_OF_ORDER)

    def _accept(self, item: Decoded, note: str | None) -> None:
        message = item.message
        self._last_rx = (item.seq, item.crc)
        if message.type == "HELLO":
            self._hello_key = self._last_rx
        elif message.type == "RESET":
            self._hello_key = None        # the peer restarts: its next HELLO is new whatever it looks like
        self._gap_nakked = False
        self._ack_due = self.version == 2
        self.stats["received"] += 1
        self._notify("rx", "message", item.raw, message, note)
        self.inbox.append(message)

    def _write_control(self, message: Message, seq: int, kind: str) -> None:
        self._write(self.codec.encode(message, seq), Message(message.type, message.fields, seq), kind)

    def _write(self, data: bytes, message: Message, kind: str) -> None:
        self.stats[_TX_STATS[kind]] += 1
        self.stats["tx_bytes"] += len(data)
        self._notify("tx", kind, data, message, None)
        if self.version == 1 and not self._out:
            self.port.write(data)         # version 1: every frame at once, as it always was
        else:
            self._out += data

    def _write_out(self) -> None:
        """Version 2: everything queued, in one write."""
        if self._out:
            data = bytes(self._out)
            self._out.clear()
            self.stats["tx_writes"] += 1
            self.port.write(data)

    def _notify(self, direction, kind, raw, message, note, size: int | None = None) -> None:
        if direction == "rx":
            self.stats["rx_bytes"] += len(raw) if size is None else size
        if self.observers:
            event = FrameEvent(direction, kind, raw, message, note, self.clock(), self.wall(), size)
            for observer in self.observers:
                observer(event)
