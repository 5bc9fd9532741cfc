"""Stop-and-wait delivery for any wire format: the default session of an
adapter (``bench.adapters.api.Adapter.open``).

Each direction has at most one message awaiting its acknowledgement, and both
directions run at once. A sender numbers its messages (0 .. the format's
``seq_modulus`` - 1, wrapping), sends one, and keeps reading until the peer's
ACK naming that number, acknowledging and queueing whatever the peer sends
meanwhile; on the peer's NAK it sends the message again at once, after the
response timeout it sends it again, and after ``retries`` such resends it
gives the message up (``LinkTimeout``; its number stays spent). A receiver
ACKs every intact message with the message's own number, ACKs a copy of the
message it took last (same number and check value) again without taking it
twice, takes a HELLO whatever its number (the peer may have restarted: no
gap is noted), and
NAKs a damaged frame with the format's reason.

This is the delivery of most RS-232 controller protocols, and of version 1
of the bench's own protocol (docs/protocol.md section 3); what differs from
one format to another (the frames of a message, an ACK and a NAK; the
timeouts) comes from the adapter's codec and ``Timeouts``. Single-threaded:
every wait is a ``_pump`` (one bounded read and the frames it brought).
"""

from __future__ import annotations

import time
from collections import Counter, deque
from typing import Callable

from bench.protocol import FrameEvent, LinkTimeout, Message, ResponseTimeout, Timeouts
from bench.protocol.codec import Rejected
from bench.protocol.messages import BENCH, CONTROLLER
from bench.protocol.timeouts import Deadline


class StopAndWaitSession:
    protocol_versions: tuple[int, ...] = (1,)     # the bench's message set, version 1: HELLO without a window

    def __init__(self, port, codec, decoder, *, role: str, timeouts: Timeouts, observer=None,
                 clock=time.monotonic, wall=time.time):
        if role not in (BENCH, CONTROLLER):
            raise ValueError(f"role must be {BENCH!r} or {CONTROLLER!r}, got {role!r}")
        self.port = port
        self.codec = codec
        self.decoder = decoder
        self.role = role
        self.peer = CONTROLLER if role == BENCH else BENCH
        self.timeouts = timeouts
        self.observers = [observer] if observer else []
        self.on_idle: Callable[[], None] | None = None
        self.clock, self.wall = clock, wall
        self.inbox: deque[Message] = deque()
        self.stats: Counter[str] = Counter()
        self.version = 1
        self._modulus = codec.seq_modulus
        self._tx_seq = 0
        self._last_rx: tuple[int, int] | None = None     # (seq, check value) of the last message taken
        self._waiting_for: int | None = None
        self._acked = False
        self._resend_now = False

    # -- the bench's message set ---------------------------------------------
    def use_protocol(self, version: int, *, peer_window: int | None = None) -> None:
        if version not in self.protocol_versions:
            raise ValueError(f"this adapter carries version {self.protocol_versions} of the bench's messages, "
                             f"not {version}")

    # -- sending ------------------------------------------------------------
    def send(self, message: Message) -> Message:
        seq = self._tx_seq
        data = self.codec.encode(message, seq)
        sent = Message(message.type, message.fields, seq)
        self._tx_seq = (seq + 1) % self._modulus      # spent whatever happens to it
        self._waiting_for, self._acked = seq, False
        try:
            for attempt in range(self.timeouts.retries + 1):
                self._write(data, sent, "send" if attempt == 0 else "retransmit")
                deadline = Deadline(self.timeouts.response, self.clock)
                self._resend_now = False
                while not self._acked and not self._resend_now and not deadline.expired():
                    self._pump(deadline)
                if self._acked:
                    return sent
        finally:
            self._waiting_for = None
        self.stats["link_timeouts"] += 1
        raise LinkTimeout(f"{message.type} (seq {seq}) not acknowledged after {self.timeouts.retries + 1} "
                          f"attempts of {self.timeouts.response} s each")

    def flush(self, timeout: float | None = None) -> None:
        """Nothing is ever left in flight: ``send`` returns once acknowledged."""

    def linger(self, seconds: float) -> None:
        deadline = Deadline(seconds, self.clock)
        while not deadline.expired():
            self._pump(deadline)

    def restart(self) -> None:
        self._tx_seq = 0

    # -- receiving ----------------------------------------------------------
    def receive(self, timeout: float, *, expect=None) -> Message:
        message = self.poll(timeout, expect=expect)
        if message is None:
            wanted = f" {expect}" if expect else ""
            raise ResponseTimeout(f"no message{wanted} from the {self.peer} within {timeout} s")
        return message

    def poll(self, timeout: float, *, expect=None) -> Message | None:
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

    # -- the wire -----------------------------------------------------------
    def _pump(self, deadline: Deadline) -> None:
        wait = deadline.sooner(self.timeouts.byte)
        if self.on_idle is None:
            data = self.port.read_some(wait)
        else:
            data = self.port.read_some(0)
            if not data:
                self.on_idle()
                data = self.port.read_some(wait)
        now = self.clock()
        for item in (self.decoder.feed(data, now) if data else self.decoder.expire(now)):
            if isinstance(item, Rejected):
                self._on_rejected(item)
            else:
                self._on_frame(item)

    def _on_rejected(self, item: Rejected) -> None:
        self.stats["rejected"] += 1
        self.stats[f"rejected:{item.reason}"] += 1
        self._notify("rx", "rejected", item.raw, None, f"{item.reason}: {item.detail}", item.size)
        if item.damaged_frame:
            last = self._last_rx[0] if self._last_rx else self._modulus - 1
            self._write(self.codec.nak(item.reason, last), Message("NAK", {"reason": item.reason}, last), "nak")

    def _on_frame(self, item) -> None:
        message = item.message
        if message.type == "ACK":
            self._notify("rx", "ack", item.raw, message, None)
            if self._waiting_for is not None and message.seq == self._waiting_for:
                self._acked = True
            else:
                self.stats["stale_acks"] += 1
            return
        if message.type == "NAK":
            self._notify("rx", "nak", item.raw, message, None)
            self.stats["naks_received"] += 1
            if self._waiting_for is not None:
                self._resend_now = True
            return
        key = (message.seq, item.crc)
        if key == self._last_rx:          # our ACK was lost: ACKed again, not taken twice
            self.stats["duplicates"] += 1
            self._notify("rx", "duplicate", item.raw, message, None)
        else:
            note = None
            if (self._last_rx is not None and message.type != "HELLO"
                    and message.seq != (self._last_rx[0] + 1) % self._modulus):
                self.stats["sequence_gaps"] += 1
                note = f"sequence gap: expected {(self._last_rx[0] + 1) % self._modulus}, got {message.seq}"
            self._last_rx = key
            self.stats["received"] += 1
            self._notify("rx", "message", item.raw, message, note)
            self.inbox.append(message)
        self._write(self.codec.ack(message.seq), Message("ACK", {}, message.seq), "ack")

    def _write(self, data: bytes, message: Message, kind: str) -> None:
        self.stats[f"tx_{kind}"] += 1
        self.stats["tx_bytes"] += len(data)
        self._notify("tx", kind, data, message, None)
        self.port.write(data)

    def _notify(self, direction, kind, raw, message, note, size: int | None = None) -> None:
        if direction == "rx":
            self.stats["rx_bytes"] += len(raw) if size is None else size
        if self.observers:
            event = FrameEvent(direction, kind, raw, message, note, self.clock(), self.wall(), size)
            for observer in self.observers:
                observer(event)
