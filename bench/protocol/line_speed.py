"""A serial line's speed and what it allows: how long bytes take, how many
messages a side may keep in flight, and whether a frame fits the link's
timeouts (docs/protocol.md section 17, "A line with a speed").

Real controllers run at 9,600 to 115,200 baud, 10 bits a byte (8N1). Over a
line each direction is a queue: an ACK waits behind the data its sender
already wrote. At 9,600 baud (960 bytes a second) sixteen WAGER frames in
flight take about 0.9 s to drain, so the ACKs the bench owes for the
controller's replies, queued behind them, reach it after its 0.5 s response
timeout: it sends everything again, the line fills further, and the link
gives up. A side must therefore keep no more in flight than the line drains
within the response timeout (``window``), and every frame with its ACK must
cross within the frame and response timeouts (``problems``).

A baud rate comes from the link's URL (``/dev/ttyUSB0?baud=9600``, taken off
before pyserial opens it) or the command's ``--baud``; a device path without
one runs at ``DEFAULT_BAUD`` (docs/protocol.md section 1), a TCP link has no
line speed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bench.protocol.session import WINDOW
from bench.protocol.timeouts import Timeouts

BITS_PER_BYTE = 10            # start bit, 8 data bits, stop bit
DEFAULT_BAUD = 115_200        # docs/protocol.md section 1
ACK_BYTES = 16                # "$NNNN ACK*CCCC\r\n"
SAFETY = 0.8                  # of each timeout and phase the line may fill: the rest is the ends' own latency
TYPICAL_LARGEST_FRAME = 120   # a round's longest frames: a LUCKY of five Lucky Numbers is 117 bytes
BAUDS = (300, 600, 1200, 2400, 4800, 9600, 14400, 19200, 38400, 57600, 115200, 230400, 460800, 921600)
_BAUD_QUERY = re.compile(r"([?&])baud=([^&]*)(&?)")
_NO_LINE = ("socket://", "loop://")


class LineError(ValueError):
    """A baud rate the bench cannot use, or a line too slow for the protocol."""


def parse_baud(text: str) -> int:
    try:
        baud = int(text)
    except ValueError:
        raise LineError(f"baud rate {text!r} is not a whole number") from None
    if not BAUDS[0] <= baud <= BAUDS[-1]:
        raise LineError(f"baud rate {baud} is outside {BAUDS[0]} to {BAUDS[-1]}")
    return baud


def split_url(url: str) -> tuple[str, int | None]:
    """``(url without baud=, the baud it names or None)``."""
    match = _BAUD_QUERY.search(url)
    if match is None:
        return url, None
    rest = url[:match.start()] + (match[1] if match[3] else "") + url[match.end():]
    return rest.rstrip("?&"), parse_baud(match[2])


def window_for(baud: int | None, timeouts: Timeouts = Timeouts()) -> int:
    """The window a driver without a round budget uses on a line of ``baud``."""
    return WINDOW if baud is None else Line(baud, timeouts).window(TYPICAL_LARGEST_FRAME)


def line_baud(url: str, baud: int | None) -> int | None:
    """The baud rate of the line to ``url``: the one given, else the default
    for a device or serial-port URL, else None (TCP: no line speed)."""
    if baud is not None:
        return baud
    return None if url.startswith(_NO_LINE) else DEFAULT_BAUD


@dataclass(frozen=True)
class Line:
    baud: int
    timeouts: Timeouts = Timeouts()

    @property
    def bytes_per_s(self) -> float:
        return self.baud / BITS_PER_BYTE

    def seconds(self, nbytes: int) -> float:
        return nbytes / self.bytes_per_s

    def window(self, largest_frame: int, ack_bytes: int = ACK_BYTES) -> int:
        """How many messages a side may keep in flight so that what it has
        queued drains, behind it the ACK it owes and one of the peer's frames,
        within the response timeout (1 to the protocol's WINDOW)."""
        room = self.timeouts.response * SAFETY * self.bytes_per_s - ack_bytes - largest_frame
        return max(1, min(WINDOW, int(room // max(1, largest_frame))))

    def problems(self, largest_frame: int, ack_bytes: int = ACK_BYTES) -> list[str]:
        """Why frames of ``largest_frame`` bytes cannot cross this line within
        the link's timeouts (docs/protocol.md section 3), if they cannot."""
        found = []
        frame_s = self.seconds(largest_frame)
        if frame_s > self.timeouts.frame * SAFETY:
            found.append(f"a {largest_frame}-byte frame takes {frame_s:.2f} s, over {SAFETY:.0%} of the "
                         f"{self.timeouts.frame:g} s frame timeout")
        if self.seconds(largest_frame + ack_bytes) > self.timeouts.response * SAFETY:
            found.append(f"a {largest_frame}-byte frame and its ACK take {self.seconds(largest_frame + ack_bytes):.2f} s, "
                         f"over {SAFETY:.0%} of the {self.timeouts.response:g} s response timeout")
        return found

