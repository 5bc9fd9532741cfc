"""The bench's raw end of the link for the conformance checks.

A check must be able to put on the wire what a correct bench never would (a
wrong CRC, half a frame, the same frame twice, a number skipped), and to see
exactly what the controller sends back (each retransmission, each ACK), so
this sits below the session layer: it writes bytes as it is given them and
decodes what arrives with the protocol's own stream decoder, without
answering anything on its own unless asked to.

Every read is bounded twice: by the caller's timeout, and by the check's
budget (``CheckHung`` when it runs out), so a controller that never answers
cannot hang the suite. What a controller sends is bounded too: past
``CEILING_BYTES`` or ``CEILING_ARRIVALS`` in one check the check fails
(``CheckFlooded``), so that one spewing bytes at the link's full speed costs
bounded memory. Everything that crosses the link is logged with its time,
for the wire log of a failed check: its first ``LOG_HEAD`` and last
``LOG_TAIL`` lines, the rest counted.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Protocol

from bench.protocol import BENCH, CONTROLLER, Decoded, Message, Rejected, Timeouts, make
from bench.protocol.session import WINDOW


class CheckFailed(AssertionError):
    """The controller did not do what the section of docs/protocol.md says."""


class CheckHung(CheckFailed):
    """The check ran out of its time budget (the controller stopped answering)."""


class CheckFlooded(CheckFailed):
    """The controller sent more in one check than any check needs."""


CEILING_BYTES = 4 * 1024 * 1024      # bytes from the controller in one check (a check needs a few kilobytes)
CEILING_ARRIVALS = 10_000            # frames and rejected runs in one check (a check sees a few dozen)
LOG_HEAD, LOG_TAIL = 200, 100         # wire log lines kept of a check: its start and its end


class WireLog:
    """A check's wire log, bounded: the first ``LOG_HEAD`` lines and the last
    ``LOG_TAIL``, with a count of what lies between."""

    def __init__(self):
        self.head: list[LogLine] = []
        self.tail: deque[LogLine] = deque(maxlen=LOG_TAIL)
        self.left_out = 0

    def append(self, line: "LogLine") -> None:
        if len(self.head) < LOG_HEAD:
            self.head.append(line)
            return
        if len(self.tail) == LOG_TAIL:
            self.left_out += 1
        self.tail.append(line)

    def __iter__(self):
        yield from self.head
        if self.left_out:
            yield LogLine(self.tail[0].at, "#", f"... {self.left_out} lines left out ...")
        yield from self.tail

    def __len__(self) -> int:
        return len(self.head) + len(self.tail)


class NotSupported(Exception):
    """The controller declined an optional feature the way the protocol lets it (ERROR code=version)."""


@dataclass
class Arrival:
    """One item the controller sent: a decoded frame or a rejected run of bytes."""
    at: float                  # seconds since the wire was opened
    item: Decoded | Rejected

    @property
    def message(self) -> Message | None:
        return self.item.message if isinstance(self.item, Decoded) else None

    @property
    def raw(self) -> bytes:
        return self.item.raw

    @property
    def decoded(self) -> Message:
        """The message of an arrival a check knows to be one (an ``of_type``
        arrival, a reply awaited): a run of bytes the bench rejected there is
        the controller's failure, said as such, not a crash of the check."""
        message = self.message
        if message is None:
            raise CheckFailed(f"the controller sent bytes the bench rejects where a message was due: "
                              f"{_show(self.raw)[:120]}")
        return message

    @property
    def seq(self) -> int:
        """The number of the message this arrival decoded to."""
        return seq_of(self.decoded)


def seq_of(message: Message) -> int:
    """The number of a message the bench received: every frame the bench
    decodes carries one (section 2's SSSS); a message without one where a
    number is due is the controller's failure, said as such."""
    if message.seq is None:
        raise CheckFailed(f"the controller's {message.type} carries no sequence number")
    return message.seq


@dataclass
class LogLine:
    at: float
    direction: str             # ">" bench to controller, "<" controller to bench, "#" a note
    text: str


class LinkEnd(Protocol):
    """What the wire needs of a link: bounded reads and writes."""

    def read_some(self, timeout: float) -> bytes: ...

    def write(self, data: bytes) -> None: ...


@dataclass
class Wire:
    """One connection to the controller under test, driven byte by byte."""

    link: LinkEnd              # bench.protocol.link.Link, or a test's stand-in
    game: str
    timeouts: Timeouts = Timeouts()
    budget_s: float = 30.0
    log: WireLog = field(default_factory=WireLog)
    adapter: object = None     # the wire format (bench.adapters); None: the bench's own protocol

    def __post_init__(self):
        from bench.adapters.native import Native
        adapter = self.adapter or Native()
        self.codec = adapter.codec(self.game, BENCH)
        self.modulus = self.codec.seq_modulus
        # The bench's decoder is lenient on time: a check is about what the
        # controller sends, and a loaded machine must not turn its frames into
        # timeouts on our side.
        self.decoder = adapter.stream_decoder(self.game, CONTROLLER, Timeouts(
            byte=max(1.0, self.timeouts.byte), frame=max(2.0, self.timeouts.frame)))
        self.t0 = time.monotonic()
        self.ends_at = self.t0 + self.budget_s
        self.arrivals: list[Arrival] = []     # everything received, in order
        self.received = 0                     # bytes received
        self._unread = 0                      # index of the first arrival not yet returned by ``next``
        self.mark = 0                         # index of the first arrival after the check's own HELLO
        self.naks_sent: list[float] = []      # when the bench NAKed (a resend after one is prompted)
        self.tx_seq = 0
        self.last_seq = 0                     # the number of the frame ``frame`` made last
        self.version = 1
        self.peer_window = 1

    # -- time ---------------------------------------------------------------
    def now(self) -> float:
        return time.monotonic() - self.t0

    def _bounded(self, timeout: float) -> float:
        left = self.ends_at - time.monotonic()
        if left <= 0:
            raise CheckHung(f"the check's time budget of {self.budget_s:.0f} s ran out")
        return max(0.0, min(timeout, left))

    def note(self, text: str) -> None:
        self.log.append(LogLine(self.now(), "#", text))

    # -- writing --------------------------------------------------------------
    def write(self, data: bytes) -> None:
        """Put ``data`` on the wire as it is (one write)."""
        self.log.append(LogLine(self.now(), ">", _show(data)))
        self.link.write(data)

    def frame(self, type_: str, seq: int | None = None, **fields) -> bytes:
        """The frame of a message, numbered ``seq`` or the next number (which is then spent)."""
        if seq is None:
            seq, self.tx_seq = self.tx_seq, (self.tx_seq + 1) % self.modulus
        self.last_seq = seq
        return self.codec.encode(make(type_, **fields), seq)

    def send(self, type_: str, seq: int | None = None, **fields) -> bytes:
        data = self.frame(type_, seq, **fields)
        self.write(data)
        return data

    def ack(self, seq: int) -> None:
        self.write(self.codec.ack(seq))

    def nak(self, seq: int, reason: str = "bad-crc") -> None:
        self.naks_sent.append(self.now())
        self.write(self.codec.nak(reason, seq))

    def pause(self, seconds: float) -> None:
        """Wait without reading (bytes the controller sends meanwhile stay in the pipe)."""
        time.sleep(self._bounded(seconds))

    # -- reading ----------------------------------------------------------------
    def _read(self, timeout: float) -> None:
        """One bounded read; what it brings is appended to ``arrivals``."""
        data = self.link.read_some(self._bounded(timeout))
        self.received += len(data)
        if self.received > CEILING_BYTES or len(self.arrivals) > CEILING_ARRIVALS:
            raise CheckFlooded(f"the controller flooded the link: {self.received} bytes and {len(self.arrivals)} "
                               f"frames or rejected runs in one check (the ceilings are {CEILING_BYTES} bytes "
                               f"and {CEILING_ARRIVALS})")
        now = time.monotonic()
        items = self.decoder.feed(data, now) if data else self.decoder.expire(now)
        for item in items:
            arrival = Arrival(now - self.t0, item)
            self.arrivals.append(arrival)
            shown = _show(item.raw)
            if isinstance(item, Rejected):
                shown += f"   [bench rejected it: {item.reason}: {item.detail}]"
            self.log.append(LogLine(arrival.at, "<", shown))

    def next(self, timeout: float) -> Arrival | None:
        """The next item from the controller, or None after ``timeout`` seconds."""
        ends = time.monotonic() + timeout
        while self._unread >= len(self.arrivals):
            left = ends - time.monotonic()
            if left <= 0:
                return None
            self._read(min(left, 0.05))
        self._unread += 1
        return self.arrivals[self._unread - 1]

    def collect(self, seconds: float) -> list[Arrival]:
        """Everything the controller sends in the next ``seconds``, answering nothing."""
        ends, got = time.monotonic() + seconds, list[Arrival]()
        while True:
            left = ends - time.monotonic()
            if left <= 0:
                return got
            arrival = self.next(left)
            if arrival is not None:
                got.append(arrival)

    def collect_until(self, found, timeout: float, *, linger: float = 0.1) -> list[Arrival]:
        """What the controller sends until an arrival for which ``found`` is
        true (at most ``timeout`` seconds), and ``linger`` seconds more: what
        a controller does about a frame it does at once, so a short look
        after the answer shows whether it did anything else."""
        ends, got = time.monotonic() + timeout, list[Arrival]()
        while True:
            left = ends - time.monotonic()
            if left <= 0:
                return got
            arrival = self.next(left)
            if arrival is None:
                return got
            got.append(arrival)
            if found(arrival):
                return got + self.collect(linger)

    # -- a well-behaved bench, for getting a controller into a phase ---------------
    def take(self, timeout: float, *, types: tuple[str, ...] | None = None, ack: bool = True) -> Message:
        """The next message (not ACK or NAK) of ``types``, acknowledging every
        message that arrives meanwhile; CheckFailed after ``timeout`` seconds
        or on a frame the bench had to reject."""
        ends = time.monotonic() + timeout
        while True:
            arrival = self.next(max(0.0, ends - time.monotonic()))
            if arrival is None:
                wanted = " or ".join(types) if types else "a message"
                raise CheckFailed(f"no {wanted} from the controller within {timeout} s")
            item = arrival.item
            if isinstance(item, Rejected):
                raise CheckFailed(f"the controller sent a frame the bench rejects: {item.reason}: {item.detail}")
            message = item.message
            if message.type in ("ACK", "NAK"):
                continue
            if ack:
                self.ack(seq_of(message))
            if types is None or message.type in types:
                return message

    def wait_ack(self, seq: int, timeout: float) -> Arrival | None:
        """The controller's ACK covering our message ``seq`` (in version 2 a
        cumulative ACK of a later one in the window counts), acknowledging its
        messages meanwhile; None after ``timeout``."""
        for waiting in self.arrivals[self._unread:]:
            if self.acknowledges(waiting, seq):
                return waiting
        ends = time.monotonic() + timeout
        while time.monotonic() < ends:
            arrival = self.next(max(0.0, ends - time.monotonic()))
            if arrival is None:
                break
            message = arrival.message
            if message is not None and message.type not in ("ACK", "NAK"):
                self.ack(seq_of(message))
            if self.acknowledges(arrival, seq):
                return arrival
        return None

    def acknowledges(self, arrival: Arrival, seq: int) -> bool:
        """Whether ``arrival`` is an ACK of the frame numbered ``seq`` (in version 2, a
        cumulative ACK of a later frame in the window acknowledges it too)."""
        message = arrival.message
        if message is None or message.type != "ACK":
            return False
        if self.version == 1:
            return message.seq == seq
        return (seq_of(message) - seq) % self.modulus < 2 * WINDOW + 1

    def request(self, type_: str, reply: str | tuple[str, ...], timeout: float, **fields) -> Message:
        """Send a message, require its ACK within the response timeout (with
        slack for a loaded machine), and return the reply of type ``reply``."""
        self.send(type_, **fields)
        seq = self.last_seq
        if self.wait_ack(seq, self.timeouts.response + 0.5) is None:
            raise CheckFailed(f"no ACK of our {type_} (seq {seq:04d}) within {self.timeouts.response + 0.5:.1f} s")
        return self.take(timeout, types=(reply,) if isinstance(reply, str) else reply)

    def settle(self, seconds: float = 0.1) -> None:
        """Acknowledge whatever the controller still says for ``seconds``, so
        that it is not left retransmitting into the next check."""
        ends = time.monotonic() + seconds
        while True:
            left = ends - time.monotonic()
            if left <= 0:
                return
            arrival = self.next(left)
            message = arrival.message if arrival is not None else None
            if message is not None and message.type not in ("ACK", "NAK"):
                self.ack(seq_of(message))

    def settle_quiet(self, quiet: float, at_most: float) -> None:
        """Acknowledge what the controller says until it has said nothing for
        ``quiet`` seconds, or ``at_most`` seconds have passed."""
        ends = time.monotonic() + at_most
        while True:
            left = ends - time.monotonic()
            if left <= 0:
                return
            arrival = self.next(min(quiet, left))
            if arrival is None:
                return
            message = arrival.message
            if message is not None and message.seq is not None and message.type not in ("ACK", "NAK"):
                self.ack(message.seq)

    def wire_log(self) -> str:
        return "\n".join(f"{line.at:8.3f} {line.direction} {line.text}" for line in self.log)


def _show(data: bytes) -> str:
    """Bytes as a line of the wire log: printable ASCII as it is, CR LF
    dropped at the end, anything else escaped; very long runs shortened."""
    text = data[:-2] if data.endswith(b"\r\n") else data
    shown = text.decode("ascii", errors="backslashreplace").encode("unicode_escape").decode("ascii")
    shown = shown.replace("\\\\x", "\\x")
    if not data.endswith(b"\r\n"):
        shown += "   (no CR LF)"
    if len(shown) > 300:
        shown = f"{shown[:120]} ... ({len(data)} bytes) ... {shown[-60:]}"
    return shown
