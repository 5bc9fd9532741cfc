"""How much of a noisy link the journal keeps: a controller that floods the
link (junk lines, damaged frames, duplicates) must not take the bench's
memory or the journal's disk with it.

Every frame that carries a message the oracle judges is always kept: replay
needs each one. The rest, the noise (rejected bytes, duplicates, frames out
of order, stray ACKs and NAKs, and the NAKs the bench answers damaged frames
with), is kept up to ``KEPT_BYTES`` (a frame's raw bytes and ``ROW_BYTES``) and ``KEPT_FRAMES`` a round and
``SESSION_KEPT_BYTES`` a session, and counted past that (the round's record
says how much was left out). Past ``CEILING_BYTES`` or ``CEILING_FRAMES`` in
one round the link is called flooded: ``LinkFlooded``, a link fault that
fails the round (and, if the flood goes on through the reset, the session).
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

# Frames that are never noise: what the oracle judges, and the bench's own
# retransmissions and ACKs (each bounded by the messages exchanged).
_SIGNAL = frozenset({("tx", "send"), ("rx", "message"), ("tx", "retransmit"), ("tx", "ack")})


class LinkFlooded(LinkError):
    """The controller sent more than a round can take (``CEILING_BYTES`` or ``CEILING_FRAMES``)."""


class WireBudget:
    def __init__(self) -> None:
        self.session_kept_bytes = 0
        self._reset()

    def _reset(self) -> None:
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
        if (event.direction, event.kind) in _SIGNAL:
            if self.frames > CEILING_FRAMES:
                raise self._flooded()
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

    def close_round(self) -> dict[str, int]:
        """What the round's record says of the noise left out (nothing if none), and a fresh count."""
        left_out = ({"left_out": {"frames": self.dropped_frames, "bytes": self.dropped_bytes}}
                    if self.dropped_frames or self.dropped_bytes else {})
        self._reset()
        return left_out
