"""How much of a noisy link the journal keeps: a controller that floods the
link (junk lines, damaged frames, duplicates, or valid messages by the
thousand) must not take the bench's memory or the journal's disk with it.

Every frame that carries a message the oracle judges is always kept: replay
needs each one. The rest, the noise (rejected bytes, duplicates, frames out
of order, stray ACKs and NAKs, and the NAKs the bench answers damaged frames
with), is kept up to ``KEPT_BYTES`` (a frame's raw bytes and ``ROW_BYTES``) and ``KEPT_FRAMES`` a round and
``SESSION_KEPT_BYTES`` a session, and counted past that (the round's record
says how much was left out). Past ``CEILING_BYTES`` or ``CEILING_FRAMES`` in
one round, or past ``MESSAGES_PER_WAGER`` messages from the controller for
each wager placed and ``ROUND_MESSAGES`` besides (a flood of valid, in-sequence
messages: each is judged and journalled), the link is called flooded:
``LinkFlooded``, a link fault that fails the round (and, if the flood goes on
through the reset, the session).

A session as a whole is bounded too: past ``max_frames`` judged frames
(``bench run --max-frames``) it ends as a link fault (``SessionCeiling``),
and so it does past its journal's ceiling (``--max-journal-mb``, checked by
the runner after each round's record).
"""

from __future__ import annotations

from bench.protocol import FrameEvent
from bench.protocol.errors import LinkError

KEPT_BYTES = 64 * 1024             # noise bytes journalled per round
KEPT_FRAMES = 1000                 # noise frames journalled per round
SESSION_KEPT_BYTES = 1024 * 1024  # noise bytes journalled per session, whatever its length
ROW_BYTES = 100                    # what a journalled frame costs besides its raw bytes (times, kind, note)
CEILING_BYTES = 16 * 1024 * 1024   # noise bytes in one round that make it a link fault
CEILING_FRAMES = 100_000           # frames (of any kind) in one round that make it a link fault
# A wager costs a round up to six frames (WAGER, ACCEPT or REFUSE, SETTLE and an ACK of each);
# at most a tenth of the frame ceiling in wagers leaves room for the round's own messages and
# for retransmissions, so that the bench never trips its own ceiling (bench run --wagers).
MAX_WAGERS = CEILING_FRAMES // 10
# A controller's messages in one round: an ACCEPT or REFUSE and a SETTLE for each wager, and the
# round's own (OPEN, NOMORE, LUCKY, commands, RESULTs, SETTLED, CLEARED; a re-throw or a Dice-Ology
# roll a few more). Twice that per wager and a thousand besides is more than any compliant round.
MESSAGES_PER_WAGER = 4
ROUND_MESSAGES = 1000
DEFAULT_MAX_FRAMES = 10_000_000              # judged frames a session (bench run --max-frames)
DEFAULT_MAX_JOURNAL_BYTES = 1024 * 1024 * 1024   # a session's journal (bench run --max-journal-mb)

# Frames that are never noise: what the oracle judges, and the bench's own
# retransmissions and ACKs (each bounded by the messages exchanged).
_SIGNAL = frozenset({("tx", "send"), ("rx", "message"), ("tx", "retransmit"), ("tx", "ack")})
_RX_MESSAGE, _TX_SEND = ("rx", "message"), ("tx", "send")


class LinkFlooded(LinkError):
    """The controller sent more than a round can take (``CEILING_BYTES`` or ``CEILING_FRAMES``)."""


class SessionCeiling(LinkError):
    """The session passed its ceiling of judged frames or journal bytes: it
    ends (as a link fault) with every file, whatever round it is in."""


class WireBudget:
    def __init__(self, max_frames: int | None = None) -> None:
        """``max_frames``: the session's ceiling of judged frames (``bench run``
        gives ``DEFAULT_MAX_FRAMES`` or its --max-frames); None: none (a pytest
        run's table, a monitor that rotates its journal)."""
        self.session_kept_bytes = 0
        self.max_frames = max_frames
        self.judged = 0           # judged frames of the session
        self.over = False         # the session's ceiling was passed (said once)
        self._reset()

    def _reset(self) -> None:
        self.messages = 0         # messages from the controller this round
        self.wagers = 0           # wagers the bench placed this round
        self.frames = 0           # every frame of the round
        self.noise_frames = 0
        self.noise_bytes = 0
        self.kept_frames = 0      # noise kept
        self.kept_bytes = 0
        self.dropped_frames = 0   # noise counted and left out
        self.dropped_bytes = 0

    def admit(self, event: FrameEvent) -> bool:
        """True to journal the frame; False to count it only. Raises
        LinkFlooded when the round passes a ceiling."""
        self.frames += 1
        key = (event.direction, event.kind)
        if key in _SIGNAL:
            if self.frames > CEILING_FRAMES:
                raise self._flooded()
            if key == _RX_MESSAGE:
                self.messages += 1
                most = MESSAGES_PER_WAGER * self.wagers + ROUND_MESSAGES
                if self.messages > most:
                    raise LinkFlooded(
                        f"link flooded: the controller sent {self.messages} messages in one round; a round of "
                        f"{self.wagers} wagers takes at most {most} ({MESSAGES_PER_WAGER} a wager and "
                        f"{ROUND_MESSAGES} besides)")
            elif key == _TX_SEND and event.message is not None and event.message.type == "WAGER":
                self.wagers += 1
            if key == _RX_MESSAGE or key == _TX_SEND:
                self.judged += 1
                if self.max_frames is not None and self.judged > self.max_frames and not self.over:
                    self.over = True
                    raise SessionCeiling(f"the session passed its ceiling of {self.max_frames} judged frames "
                                         "(bench run --max-frames N raises it)")
            return True
        # A long run of noise arrives as one event with a sample of it (``size``: its length on the wire).
        on_wire = len(event.raw) if event.size is None else event.size
        size = len(event.raw) + ROW_BYTES          # what journalling it costs
        self.noise_frames += 1
        self.noise_bytes += on_wire + ROW_BYTES
        if self.noise_bytes > CEILING_BYTES or self.frames > CEILING_FRAMES:
            self.dropped_frames += 1
            self.dropped_bytes += on_wire
            raise self._flooded()
        if (self.kept_frames < KEPT_FRAMES and self.kept_bytes + size <= KEPT_BYTES
                and self.session_kept_bytes + size <= SESSION_KEPT_BYTES):
            self.kept_frames += 1
            self.kept_bytes += size
            self.session_kept_bytes += size
            self.dropped_bytes += on_wire - len(event.raw)     # the sample kept, the rest counted
            return True
        self.dropped_frames += 1
        self.dropped_bytes += on_wire
        return False

    def _flooded(self) -> LinkFlooded:
        return LinkFlooded(f"link flooded: {self.frames} frames and {self.noise_bytes} bytes of noise "
                           f"(rejected, duplicate or stray) in one round; the ceilings are {CEILING_FRAMES} "
                           f"frames and {CEILING_BYTES} bytes")

    def close_round(self) -> dict[str, dict[str, int]]:
        """What the round's record says of the noise left out (nothing if none), and a fresh count."""
        left_out = ({"left_out": {"frames": self.dropped_frames, "bytes": self.dropped_bytes}}
                    if self.dropped_frames or self.dropped_bytes else {})
        self._reset()
        return left_out
