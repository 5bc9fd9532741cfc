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

**A gap the tap alone may have.** The tap's copy of a line is not the
receiver's: a Y-cable's second receiver can take a flipped bit the
endpoint's did not, and a copy can lose bytes the link carried. So a number
that skips does not say by itself whether the *receiver* missed the message
(and, in version 2, discards what follows until it comes again) or only the
tap did (the receiver took it, and takes what follows). The listener does
not guess: the frames past the gap wait (``PARK_S`` at most, every frame of
the line behind them too, so that the line keeps its order) for the
receiver's word, which the tap hears on the other line (``Pair`` hands it
over as it is read):

* the receiver acknowledges the missing number (version 2: an ACK or NAK at
  or past it; version 1: an ACK of it): it took the message, the tap's copy
  lost it. An ``Unheard`` event stands where it was, naming its numbers, and
  the frames past the gap are taken, as the receiver took them;
* the receiver NAKs the last number before the gap, or the sender sends the
  missing number again (version 2): the receiver lacks it too; the frames
  past the gap are ``out-of-order``, as before;
* neither within ``PARK_S``: in version 2 a sender whose message was not
  taken sends it again within its response timeout (0.5 s), so it was taken
  (``Unheard``); in version 1 the receiver takes a gap whatever it is, and
  so does the listener, saying nothing it does not know.

An ``Unheard`` event is a message the judge never read: ``bench monitor``
stops judging the round it falls in (``bench.monitor.watch``).

A message taken is ``send`` from the bench's side and ``message`` from the
controller's (the two kinds the oracle judges, ``bench.journal.recorder``); a
copy ``retransmit`` or ``duplicate``; ACK and NAK frames ``ack`` and ``nak``;
bytes that are not a frame ``rejected`` with the format's reason.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from bench.protocol import FrameEvent
from bench.protocol.codec import Rejected
from bench.protocol.messages import BENCH

BEHIND = 32        # version 2: a copy up to this many numbers back is a go-back-N resend
PARK_S = 2.0       # the longest the frames past a gap wait for the receiver's word on it
MAX_PARKED = 512   # frames of one line kept waiting at most; past that the gap is settled as by PARK_S
EVIDENCE = 64      # the receiver's latest ACK and NAK numbers kept, to settle a gap with
# An Unheard event names at most the last this many numbers of its run: as many as the
# monitor's merge remembers (bench.monitor.merge.RECENT), so that the ACKs of every message
# of a long lost run wait for nothing (at 64, the ACKs of the first 44 of a run of 108 each
# waited out the hold and were declared unheard again).
ACCOUNTED = 4096
UNHEARD = "unheard"
_PARK = "park"     # (internal) a message past a gap: it waits for the receiver's word


class Unheard(FrameEvent):
    """Messages of ``direction`` that crossed the link and that the tap did
    not hear intact: no raw bytes, a note saying how it is known, and their
    numbers in ``accounts`` (the merge takes them as heard, so that the
    receiver's ACK of them waits for nothing). A subclass of the FrameEvent
    tuple without slots, so that it carries ``accounts`` beside the fields."""

    accounts: tuple[int, ...]


def unheard(direction: str, numbers: list[int] | tuple[int, ...], note: str | None, mono: float,
            wall: float) -> Unheard:
    event = Unheard(direction, UNHEARD, b"", None, note, mono, wall)
    event.accounts = tuple(numbers[-ACCOUNTED:])
    return event


def retimed(event: FrameEvent, mono: float) -> FrameEvent:
    """``event`` at another time (an ``Unheard`` keeps the numbers it stands for)."""
    if isinstance(event, Unheard):
        return unheard(event.direction, event.accounts, event.note, mono, event.wall)
    return event._replace(mono=mono)


class Listener:
    def __init__(self, decoder, *, sender: str, wall=time.time, modulus: int | None = None):
        self.decoder = decoder
        self.sender = sender
        self.direction = "tx" if sender == BENCH else "rx"     # as the bench sees the link
        self.first_kind = "send" if sender == BENCH else "message"
        self.repeat_kind = "retransmit" if sender == BENCH else "duplicate"
        self.peer = "controller" if sender == BENCH else "host"
        self.wall = wall
        # Numbers wrap at the format's modulus; without one (an adapter's decoder
        # that does not say) a gap cannot be measured and is taken as it comes.
        self.modulus = modulus or getattr(getattr(decoder, "codec", None), "seq_modulus", None)
        self._last: tuple[int, int | None] | None = None   # (number, check value) of the last message taken
        self._parked: list[tuple[Any, float, float]] = []   # (decoded item, arrival, wall) past a gap
        self._parked_since = 0.0
        self._evidence: deque[tuple[str, int]] = deque(maxlen=EVIDENCE)   # the receiver's ("ACK"|"NAK", number)
        self._lacking: int | None = None    # version 2: the number the receiver is known to lack
        # The first damaged frame since the last message taken (its reason, arrival and wall time):
        # where a message the tap then finds missing stood, and what the tap heard of it.
        self._damaged: tuple[str, float, float] | None = None
        self.said: list[tuple[str, int]] = []   # ACK and NAK numbers this line carried (the peer's evidence)
        # Only a listener paired with the other line's (``Pair``) hears the receiver's word on
        # a gap; one on its own takes a gap as the receiver's rules alone say, at once.
        self.paired = False
        self.unheard = 0                    # messages accounted as unheard

    # -- what the tap hands over -------------------------------------------------
    def feed(self, data: bytes, now: float, wall: float | None = None) -> list[FrameEvent]:
        """The frames ``data`` completes, received at monotonic ``now``."""
        return self._events(self.decoder.feed(data, now), now, wall)

    def expire(self, now: float, wall: float | None = None) -> list[FrameEvent]:
        """A frame cut short by silence, if its timeout has passed; and frames
        past a gap that waited ``PARK_S`` for the receiver's word."""
        return self._events(self.decoder.expire(now), now, wall) + self.overdue(now)

    def overdue(self, now: float) -> list[FrameEvent]:
        """Frames past a gap that have waited ``PARK_S`` (of the stream's time ``now``)."""
        if self._parked and now - self._parked_since >= PARK_S:
            return self._settle("timeout")
        return []

    def heard_from_receiver(self, kind: str, number: int | None) -> list[FrameEvent]:
        """The other line carried an ACK or NAK naming ``number`` of this
        side's messages (as it was read, before any merge): frames past a
        gap that it settles."""
        if number is None:
            return []
        self._evidence.append((kind, number))
        if not self._parked:
            return []
        found = self._verdict_on_gap()
        return self._settle(found) if found else []

    # -- decoding ---------------------------------------------------------------------
    def _events(self, items, now: float, wall: float | None) -> list[FrameEvent]:
        if not items:
            return []
        wall = self.wall() if wall is None else wall
        out: list[FrameEvent] = []
        parked = self._parked
        restarted = False
        for item in items:
            message = getattr(item, "message", None)
            if message is not None and message.type in ("ACK", "NAK"):
                self.said.append((message.type, message.seq))     # the peer's evidence, as it is read
            if parked:
                parked.append((item, now, wall))
                if message is not None and message.type in ("HELLO", "RESET"):
                    restarted = True
                continue
            self._one(item, now, wall, out)
        if parked:
            found = self._verdict_on_gap()
            if found is None and (restarted or len(parked) > MAX_PARKED):
                found = "timeout"         # a new numbering, or too long a wait: settled as no word settles it
            if found:
                out += self._settle(found)
        return out

    def _one(self, item, now: float, wall: float, out: list[FrameEvent]) -> None:
        if isinstance(item, Rejected):
            if item.damaged_frame and self._damaged is None:
                self._damaged = (item.reason, now, wall)    # where a missing message would have been
            out.append(FrameEvent(self.direction, "rejected", item.raw, None,
                                  f"{item.reason}: {item.detail}", now, wall, item.size))
            return
        message = item.message
        if message.type in ("ACK", "NAK"):
            kind = message.type.lower()
        else:
            kind = self._kind(message, item.crc)
            if kind == _PARK:
                self._parked.append((item, now, wall))
                self._parked_since = now
                return
            self._damaged = None
        out.append(FrameEvent(self.direction, kind, item.raw, message, None, now, wall))

    def _kind(self, message, check: int) -> str:
        key = (message.seq, check)
        if key == self._last:
            return self.repeat_kind
        if self._skips(message):
            return _PARK
        self._take_number(message, key)
        return self.first_kind

    def _take_number(self, message, key) -> None:
        self._last = key
        if message.type in ("HELLO", "RESET"):
            self._evidence.clear()          # the numbering may start again: old words are of old numbers

    # -- gaps -------------------------------------------------------------------------
    def _skips(self, message) -> bool:
        """A message whose number is past the next one expected (stop-and-wait:
        the receiver takes it all the same, but may have taken the ones
        between too, which the tap did not hear)."""
        last, modulus = self._last, self.modulus
        if not self.paired or modulus is None or last is None or message.seq is None \
                or message.type in ("HELLO", "RESET"):
            return False
        return (message.seq - last[0]) % modulus not in (0, 1)

    def _gap(self) -> tuple[int, int]:
        """(the number expected next, the modulus): a gap is measured only with both (``_skips``)."""
        last, modulus = self._last, self.modulus
        if last is None or modulus is None:
            raise RuntimeError("a gap without a number taken or a modulus")
        return (last[0] + 1) % modulus, modulus

    def _expected(self) -> int:
        return self._gap()[0]

    def _in_order(self) -> bool:
        """The receiver takes messages only in order (version 2's window)."""
        return False

    def _verdict_on_gap(self) -> str | None:
        """What the receiver's latest word says of the gap: "took" (it has the
        missing message), "lacks" (it does not), or None (nothing yet)."""
        first = self._parked[0][0].message
        expected, modulus = self._gap()
        missing = (first.seq - expected) % modulus
        if self._in_order():
            for item, _, _ in self._parked[1:]:
                message = getattr(item, "message", None)
                if message is not None and message.seq == expected and message.type not in ("ACK", "NAK"):
                    return "lacks"               # sent again: go-back-N
            for kind, number in reversed(self._evidence):
                ahead = (number - expected) % modulus
                if ahead < missing + BEHIND:
                    return "took"                # acknowledged at or past the missing number
                if kind == "NAK" and ahead == modulus - 1:
                    return "lacks"               # a NAK of the last number before it
            return None
        for _, number in reversed(self._evidence):
            if (number - expected) % modulus < missing:
                return "took"                    # stop-and-wait: each message is ACKed by its own number
        return None

    def _settle(self, how: str) -> list[FrameEvent]:
        """Settle the gap and hand on the frames that waited past it."""
        parked, self._parked = self._parked, []
        first_item, first_mono, first_wall = parked[0]
        first = first_item.message
        expected, modulus = self._gap()
        missing = [(expected + i) % modulus for i in range((first.seq - expected) % modulus)]
        out: list[FrameEvent] = []
        if how == "lacks":
            self._lacking = expected          # version 2: discarded until it comes again, as the receiver does
        elif how == "took" or self._in_order():
            self.unheard += len(missing)
            _, mono, wall = self._damaged or (None, first_mono, first_wall)
            out.append(unheard(self.direction, missing, self._unheard_note(missing, how), mono, wall))
            self._last = ((first.seq - 1) % modulus, None)
        else:
            self._last = ((first.seq - 1) % modulus, None)     # stop-and-wait: a gap, taken as the receiver takes it
        for item, now, wall in parked:
            if self._parked:                  # a second gap among them: the rest wait behind it
                self._parked.append((item, now, wall))
                continue
            self._one(item, now, wall, out)
        return out

    def _unheard_note(self, missing: list[int], how: str) -> str:
        numbers = f"{missing[0]:04d}" if len(missing) == 1 else f"{missing[0]:04d} to {missing[-1]:04d}"
        heard = f" (the tap heard a damaged frame there: {self._damaged[0]})" if self._damaged else ""
        why = (f"the {self.peer} acknowledged it" if how == "took" else
               f"it was not sent again within {PARK_S:g} s, so the receiver took it")
        return (f"the {self.sender}'s message{'s' if len(missing) > 1 else ''} {numbers} crossed the link but "
                f"not intact to the tap{heard}: {why}")


class Agreement:
    """The protocol version the two sides agreed: that of the controller's last HELLO."""
    version = 1


class InOrderListener(Listener):
    """The bench's own protocol: version 1 as ``Listener``, version 2 in order."""

    def __init__(self, decoder, *, sender: str, agreement: Agreement, modulus: int, wall=time.time):
        super().__init__(decoder, sender=sender, wall=wall, modulus=modulus)
        self.agreement = agreement
        self._hello: tuple[int, int] | None = None      # (number, check value) of the HELLO taken, until a RESET

    def _in_order(self) -> bool:
        return self.agreement.version != 1

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
        if not self.paired or self._lacking == self._expected():
            return "out-of-order"     # the receiver lacks the one before: it discards this, and so does the tap
        return _PARK

    def _take(self, message, key) -> str:
        self._take_number(message, key)
        self._lacking = None
        if message.type == "HELLO":
            self._hello = key
        elif message.type == "RESET":
            self._hello = None
        return self.first_kind


class Pair:
    """The two listeners of one link, each told the receiver's ACKs and NAKs
    the other line carries as they are read: what settles a gap."""

    def __init__(self, host, controller):
        self.host, self.controller = host, controller
        for listener in (host, controller):
            if hasattr(listener, "paired"):
                listener.paired = True
        # (a listener of an adapter's own making may keep no evidence: it is fed alone)
        self._told = {id(host): getattr(controller, "heard_from_receiver", None),
                      id(controller): getattr(host, "heard_from_receiver", None)}

    def feed(self, listener, data: bytes, now: float, wall: float | None = None) -> list[FrameEvent]:
        out = listener.feed(data, now, wall)
        said = getattr(listener, "said", None)
        if said:
            told = self._told[id(listener)]
            if told is not None:
                for kind, number in said:
                    out += told(kind, number)
            said.clear()
        return out

    def expire(self, now: float) -> list[FrameEvent]:
        return self.host.expire(now) + self.controller.expire(now)

    def overdue(self, now: float) -> list[FrameEvent]:
        out = []
        for listener in (self.host, self.controller):
            late = getattr(listener, "overdue", None)
            if late is not None:
                out += late(now)
        return out
