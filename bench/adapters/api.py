"""What an adapter is: the seam between the bytes on a link and the bench's
messages (docs/adapters.md, "The Python API").

The bench plays, judges and journals *messages* (``bench.protocol.Message``:
HELLO, OPEN, WAGER ... CLEARED, with the fields of docs/protocol.md section
4). A controller speaks *bytes* in some wire format. An adapter turns one
into the other, both ways, for one wire format, with that format's own
framing, check values, acknowledgements, timeouts and retries. The link under
it is any ``bench.protocol.link`` link (a pyserial URL: a serial device,
``socket://``, ``rfc2217://``, a pty), so ``--adapter NAME`` works with every
link the bench can open.

An adapter gives the bench three things, each built on the one before:

* ``codec(game, role)``: one frame of bytes <-> one ``Message`` (the
  mapping, the framing of one frame, the check value), plus the format's ACK
  and NAK frames. Every adapter must write this.
* ``stream_decoder(game, sender, timeouts)``: a byte stream -> frames and
  rejections, with the byte and frame timeouts. The default splits lines
  (``bench.adapters.lines``), for the many formats that end a frame with a
  line end; a binary format overrides it.
* ``open(port, game, role=...)``: an active session (``MessageSession``) that
  delivers messages with acknowledgement and bounded retransmission. The
  default is stop-and-wait (``bench.adapters.stop_and_wait``); a format with
  another delivery scheme overrides it.

``listener(game, sender)`` (a passive decoder for ``bench monitor``) is
derived from ``stream_decoder`` and the stop-and-wait receiver's rules, and
needs no code of the adapter's own unless its delivery is another.

Adapters are found by the entry point group ``tablebench.adapters``
(``bench.adapters.registry``); ``bench adapters`` lists them.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections import Counter, deque
from typing import Callable, ClassVar, Protocol, runtime_checkable

from bench.protocol import FrameEvent, Message, Timeouts
from bench.protocol.codec import Decoded, Rejected
from bench.protocol.messages import BENCH, CONTROLLER

Observer = Callable[[FrameEvent], None]


class FrameCodec(Protocol):
    """One wire format's frames, for one game, as one side writes them.

    ``encode`` raises ValueError for a message the format cannot carry (a
    programming error or an unencodable reading, never bad input from the
    wire); ``decode_line`` raises ``bench.protocol.FrameError`` (a reason
    token and a precise description) for bytes that are not a valid frame.
    ``decode_line(encode(m, s))`` must give back ``m`` numbered ``s``
    exactly: replay decodes the journal's raw bytes again and compares."""

    seq_modulus: int          # sequence numbers run 0 .. seq_modulus - 1, then wrap
    max_frame: int            # the longest frame, in bytes, terminator included

    def encode(self, message: Message, seq: int) -> bytes: ...
    def ack(self, seq: int) -> bytes: ...
    def nak(self, reason: str, seq: int) -> bytes: ...
    def decode_line(self, line: bytes, sender: str | None = None) -> tuple[Message, int]: ...


class StreamDecoder(Protocol):
    """Bytes as they arrive -> ``Decoded`` frames and ``Rejected`` runs
    (``bench.protocol.codec``); ``expire(now)`` rejects a frame cut short by
    silence. ACK and NAK frames decode to messages of type ACK and NAK."""

    def feed(self, data: bytes, now: float) -> list[Decoded | Rejected]: ...
    def expire(self, now: float) -> list[Decoded | Rejected]: ...


class MessageEncoder(Protocol):
    """What a session's ``codec`` is asked for: a message as it would go on the
    wire (a ``FrameCodec`` is one; so is the bench's own ``bench.protocol.Codec``)."""

    def encode(self, message: Message, seq: int) -> bytes: ...


@runtime_checkable
class MessageSession(Protocol):
    """What the bench needs from one end of a link (``bench.protocol.Session``
    is one; so is ``bench.adapters.stop_and_wait.StopAndWaitSession``).

    ``send`` delivers one message (acknowledged, or LinkTimeout); ``receive``
    and ``poll`` give the next message of the peer (of the ``expect`` types;
    others stay queued in ``inbox`` in order) within a timeout; ``flush`` and
    ``linger`` keep the link serviced; ``restart`` starts the numbering
    again. Every frame both ways is reported to each of ``observers`` as a
    ``FrameEvent`` with its raw bytes; ``on_idle`` is called when the session
    would otherwise sit waiting. ``protocol_versions``: the versions of the
    bench's message set (docs/protocol.md section 9) the session can carry;
    ``use_protocol`` switches to one after the HELLO exchange. ``codec``
    encodes a message as it would go on the wire (ValueError if it cannot)."""

    inbox: deque
    stats: Counter
    observers: list
    on_idle: Callable[[], None] | None
    version: int
    protocol_versions: tuple[int, ...]

    # A session's codec only has to encode (``bench.protocol.Session``'s makes no ACK or NAK frames). Read-only
    # here: a settable member would have to be of exactly this type in every session.
    @property
    def codec(self) -> MessageEncoder: ...

    def send(self, message: Message) -> Message: ...
    def receive(self, timeout: float, *, expect: str | tuple[str, ...] | None = None) -> Message: ...
    def poll(self, timeout: float, *, expect: str | tuple[str, ...] | None = None) -> Message | None: ...
    def flush(self, timeout: float | None = None) -> None: ...
    def linger(self, seconds: float) -> None: ...
    def restart(self) -> None: ...
    def use_protocol(self, version: int, *, peer_window: int | None = None) -> None: ...


class Adapter(ABC):
    """One wire format. Subclass it, set the class attributes, write
    ``codec``; override ``stream_decoder`` or ``open`` only if the format's
    framing is not line by line or its delivery is not stop-and-wait."""

    name: ClassVar[str]               # what --adapter NAME takes: lower case, digits and '-'
    version: ClassVar[str]            # the adapter's own version, journalled with every session
    summary: ClassVar[str] = ""       # one line for ``bench adapters``
    timeouts: ClassVar[Timeouts] = Timeouts()   # the format's byte, frame and response timeouts and retries
    document: ClassVar[str] = ""      # where its specification is (a file, a URL)

    @abstractmethod
    def codec(self, game: str, role: str) -> FrameCodec:
        """The frames of ``game`` as ``role`` ("bench" or "controller") writes them."""

    def stream_decoder(self, game: str, sender: str | None, timeouts: Timeouts | None = None) -> StreamDecoder:
        """Frames in a byte stream from ``sender`` (None: either side)."""
        from bench.adapters.lines import LineDecoder
        t = timeouts or self.timeouts
        # The codec of the side that writes these frames (decode_line checks the sender).
        return LineDecoder(self.codec(game, sender or BENCH), sender=sender, byte_timeout=t.byte,
                           frame_timeout=t.frame)

    def open(self, port, game: str, *, role: str, observer: Observer | None = None,
             timeouts: Timeouts | None = None, clock=time.monotonic, wall=time.time) -> MessageSession:
        """An active session over ``port`` (``read_some(timeout)``, ``write(data)``)."""
        from bench.adapters.stop_and_wait import StopAndWaitSession
        t = timeouts or self.timeouts
        return StopAndWaitSession(port, self.codec(game, role), self.stream_decoder(game, _other(role), t),
                                  role=role, timeouts=t, observer=observer, clock=clock, wall=wall)

    def listener(self, game: str, sender: str, timeouts: Timeouts | None = None):
        """A passive decoder of one direction of a live link (``bench monitor``),
        taking messages as the stop-and-wait receiver does."""
        from bench.adapters.tap import Listener
        return Listener(self.stream_decoder(game, sender, timeouts), sender=sender)

    def listeners(self, game: str, timeouts: Timeouts | None = None) -> tuple:
        """The two directions' listeners, the bench's side first. A format whose
        delivery depends on what the two sides agreed overrides this to let
        them share it (the bench's own protocol: the version of the HELLOs)."""
        return self.listener(game, BENCH, timeouts), self.listener(game, CONTROLLER, timeouts)

    def conformance_checks(self) -> list:
        """Checks of this format's own link layer (``bench.conformance.checks.Check``),
        run by ``bench conformance --adapter NAME`` beside the bench's
        message-level checks. None by default."""
        return []

    def link_misbehaviours(self) -> dict[str, type]:
        """Port wrappers breaking one rule of this format's link layer, for
        ``bench emulate --adapter NAME --misbehave-link MISBEHAVIOUR``. None by default."""
        return {}

    def label(self) -> str:
        """``name/version``, as the journal records it."""
        return f"{self.name}/{self.version}"


def _other(role: str) -> str:
    return CONTROLLER if role == BENCH else BENCH
