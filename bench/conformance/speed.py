"""The line the conformance checks run over, and what its speed allows them
(docs/protocol.md section 17, "Conformance on a slow line").

A check that is right at 115,200 baud can fail a compliant controller at
9,600: bytes queue on a line, and a check's next frame waits behind what it
wrote before. So the checks ask this, not a constant:

- ``window``: the window the bench announces in its version-2 HELLO, what
  the line drains within the response timeout (``line_speed.window_for``,
  as the pytest plugin keeps);
- ``long_line_bytes``: the length of ``rejects-very-long-line``'s line. Over
  TCP 64 KiB; on a line, what it carries in ``LONG_LINE_S`` (64 KiB took
  68 s at 9,600 baud, the check's budget is 20 s, and every later check
  waited behind its bytes). Any length past what the frame timeout lets in
  tests the same thing: a receiver that keeps 256 bytes and skips the rest;
- ``drain_s``: how long the line takes to carry bytes the bench wrote, so a
  check waits for them before it expects an answer to what follows;
- ``quiet_s``: how long the bench listens for more before it closes a
  check's connection: a controller answers each ACK with its next message,
  one frame's crossing later (at 9,600 a round's SETTLED, CLEARED and OPEN
  came after the bench had closed, and the OPEN was never acknowledged).

The speed comes from the URL (``/dev/ttyUSB0?baud=9600``) or ``--baud``, as
for ``bench run`` (``bench.protocol.line_speed``): a device without one runs
at 115,200, a TCP link has none.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.protocol.frame import MAX_FRAME
from bench.protocol.line_speed import (ACK_BYTES, TYPICAL_LARGEST_FRAME, Line, LineError, line_baud, split_url,
                                       window_for)
from bench.protocol.timeouts import Timeouts
from tablebench_io.commandline import doc_ref

VERY_LONG = 65536          # the long line over a link without a speed (TCP): it arrives in milliseconds
LONG_LINE_S = 5.0          # a quarter of a check's 20 s budget: room for the HELLO, the NAK and the frame after
SHORTEST_LONG = 4 * MAX_FRAME   # however slow the line, the long line is still several frames long
QUIET_S = 0.05             # over a link without a speed: what a controller says at once has come by then
CHUNK_S = 1.0              # a write of the long line the line carries in this: within the link's 2 s write timeout


@dataclass(frozen=True)
class CheckLine:
    """The speed of the link to the controller (``baud`` None: none, TCP)."""
    baud: int | None = None
    timeouts: Timeouts = Timeouts()

    @classmethod
    def of(cls, url: str, timeouts: Timeouts = Timeouts()) -> "CheckLine":
        """The line to ``url``, its speed as the URL names it (the default for a device)."""
        device, baud = split_url(url)
        return cls(line_baud(device, baud), timeouts)

    @property
    def line(self) -> Line | None:
        return None if self.baud is None else Line(self.baud, self.timeouts)

    @property
    def window(self) -> int:
        return window_for(self.baud, self.timeouts)

    @property
    def long_line_bytes(self) -> int:
        if self.line is None:
            return VERY_LONG
        return min(VERY_LONG, max(SHORTEST_LONG, int(self.line.bytes_per_s * LONG_LINE_S)))

    @property
    def write_chunk(self) -> int:
        """The most bytes one write of the long line holds: on a real port a
        write blocks until the driver's buffer takes it all."""
        return VERY_LONG if self.line is None else max(64, int(self.line.bytes_per_s * CHUNK_S))

    def drain_s(self, nbytes: int) -> float:
        return 0.0 if self.line is None else self.line.seconds(nbytes)

    @property
    def quiet_s(self) -> float:
        """Silence after which the controller has nothing more on the way:
        on a line, one of its frames and the bench's ACK before it."""
        return QUIET_S if self.line is None else 2 * QUIET_S + self.line.seconds(TYPICAL_LARGEST_FRAME + ACK_BYTES)

    def problems(self, largest_frame: int) -> list[str]:
        """Why the checks cannot be judged on this line: a frame they send
        (``largest_frame``: rejects-too-long's, whose LF must come within the
        frame timeout to be ``too-long``) does not cross in time."""
        return [] if self.line is None else self.line.problems(largest_frame)

    def words(self) -> str:
        """The line, for the report's header."""
        if self.line is None:
            return f"no line speed (TCP): window {self.window}, long line {self.long_line_bytes:,} bytes"
        return (f"{self.baud} baud ({self.line.bytes_per_s:.0f} bytes a second): window {self.window}, long line "
                f"{self.long_line_bytes:,} bytes ({doc_ref('protocol', 17)})")

    def to_json(self) -> dict:
        return {"baud": self.baud, "window": self.window, "long_line_bytes": self.long_line_bytes}


def with_baud(url: str, baud: int | None) -> str:
    """``url`` naming the line's speed ``baud`` (as ``?baud=N``), so that
    every check's connection, and the report, carry it; LineError if the URL
    already names another."""
    if baud is None:
        return url
    _, in_url = split_url(url)
    if in_url is not None:
        if in_url != baud:
            raise LineError(f"--baud {baud} and the controller URL's baud={in_url} disagree")
        return url
    return f"{url}{'&' if '?' in url else '?'}baud={baud}"


def refuse_if_too_slow(line: CheckLine, largest_frame: int) -> None:
    """LineError naming the budget when the checks cannot be judged on ``line``."""
    found = line.problems(largest_frame)
    if found:
        raise LineError(f"at {line.baud} baud {'; '.join(found)}: the longest frame the checks send "
                        f"(rejects-too-long's) cannot be judged at that speed ({doc_ref('protocol', 17)})")
