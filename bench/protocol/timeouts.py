"""Deadlines and the three link timeouts, passed down the stack.

A read without a timeout hangs a bench forever; here no timeout may be None,
zero, negative or infinite, and every wait is bounded by a ``Deadline``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

Clock = Callable[[], float]

# Wall seconds the bench waits for each controller reply, and the deadline the
# oracle judges a late reply by, unless a session says otherwise.
DEFAULT_REPLY_S = 3.0


class Deadline:
    """A point in monotonic time; ``remaining()`` never goes below zero."""

    __slots__ = ("at", "clock")

    def __init__(self, seconds: float, clock: Clock = time.monotonic):
        _check_positive("deadline", seconds)
        self.clock = clock
        self.at = clock() + seconds

    def remaining(self) -> float:
        return max(0.0, self.at - self.clock())

    def expired(self) -> bool:
        return self.clock() >= self.at

    def sooner(self, seconds: float) -> float:
        """The wait to use now: ``seconds`` or what is left, whichever is less."""
        return min(seconds, self.remaining())


@dataclass(frozen=True)
class Timeouts:
    """The link's three timeouts and its retransmission bound.

    byte:     the longest silence allowed between two bytes of one frame;
    frame:    the longest a frame may take from its "$" to its line end;
    response: how long a sender waits for the ACK of a frame before sending it again;
    retries:  how many times a frame is sent again before the link is declared dead.
    """

    byte: float = 0.1
    frame: float = 0.5
    response: float = 0.5
    retries: int = 3

    def __post_init__(self):
        for name in ("byte", "frame", "response"):
            _check_positive(f"{name} timeout", getattr(self, name))
        if not isinstance(self.retries, int) or not 0 <= self.retries <= 20:
            raise ValueError(f"retries must be an integer from 0 to 20, got {self.retries!r}")
        if self.byte > self.frame:
            raise ValueError(f"byte timeout {self.byte} s exceeds frame timeout {self.frame} s")

    def give_up_after(self) -> float:
        """The longest ``Session.send`` can block: every attempt's response timeout."""
        return self.response * (self.retries + 1)


def _check_positive(name: str, seconds) -> None:
    if seconds is None or isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise ValueError(f"{name} must be a number of seconds, got {seconds!r}")
    if not (seconds > 0 and math.isfinite(seconds)):
        raise ValueError(f"{name} must be positive and finite, got {seconds!r}")
