"""Faults injected on the emulated controller's side of the link, on demand
and from a recorded seed: frames corrupted, dropped, duplicated or delayed at
a given rate, and a reset in the middle of a given round.

    corrupt=RATE          flip one bit of one byte of a frame
    drop=RATE             do not send the frame at all
    duplicate=RATE        send the frame twice
    delay=RATE:SECONDS    wait SECONDS before sending the frame
    reset=ROUND           reset when the dealer triggers round ROUND (wagers placed, dice not yet released)

Every frame the controller writes (ACK and NAK included) is subject to the
rates, each decided independently from ``random.Random(f"{seed}:faults")``.
Protocol version 2 writes several frames at once; the fault layer splits such
a write at its line ends and decides for each frame, exactly as if it had been
written alone (a delay holds back that frame and those after it).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from bench.errors import BenchError

FAULT_NAMES = ("corrupt", "drop", "duplicate", "delay", "reset")


class FaultError(BenchError):
    """A ``--fault`` option that does not parse."""


@dataclass(frozen=True)
class Faults:
    corrupt: float = 0.0
    drop: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0
    delay_seconds: float = 0.0
    reset_round: int | None = None

    @property
    def touches_frames(self) -> bool:
        return any((self.corrupt, self.drop, self.duplicate, self.delay))


def parse_faults(specs: list[str]) -> Faults:
    """Faults from ``--fault NAME=VALUE`` options; raises FaultError naming the option."""
    values: dict = {}
    for spec in specs:
        name, eq, value = spec.partition("=")
        if not eq or name not in FAULT_NAMES:
            raise FaultError(f"--fault {spec!r}: expected NAME=VALUE with NAME one of {', '.join(FAULT_NAMES)}")
        try:
            if name == "reset":
                values["reset_round"] = int(value)
                if values["reset_round"] < 1:
                    raise ValueError
            elif name == "delay":
                rate, colon, seconds = value.partition(":")
                values["delay"], values["delay_seconds"] = _rate(rate), float(seconds)
                if not colon or not 0 < values["delay_seconds"] <= 60:
                    raise ValueError
            else:
                values[name] = _rate(value)
        except ValueError:
            form = {"reset": "a round number >= 1", "delay": "RATE:SECONDS, seconds in (0, 60]"}.get(
                name, "a rate from 0 to 1")
            raise FaultError(f"--fault {spec!r}: {name} takes {form}") from None
    return Faults(**values)


def _rate(text: str) -> float:
    rate = float(text)
    if not 0.0 <= rate <= 1.0:
        raise ValueError
    return rate


class FaultyPort:
    """A link whose writes suffer the configured faults; reads pass through."""

    def __init__(self, port, faults: Faults, seed: int):
        self.port = port
        self.faults = faults
        self.rng = random.Random(f"{seed}:faults")
        self.counts = {name: 0 for name in ("corrupt", "drop", "duplicate", "delay")}

    def read_some(self, timeout: float) -> bytes:
        return self.port.read_some(timeout)

    def write(self, data: bytes) -> None:
        out = bytearray()
        for frame in data.splitlines(keepends=True):
            out += self._fault(frame, out)
        if out:
            self.port.write(bytes(out))

    def _fault(self, data: bytes, before: bytearray) -> bytes:
        """What goes on the wire for one frame; ``before`` (what the same
        write holds ahead of it) is written first if this frame is delayed."""
        f, rng = self.faults, self.rng
        # Draw every decision each time, so that one fault's rate does not
        # shift the random stream of the others.
        drop, corrupt, duplicate, delay = (rng.random() < f.drop, rng.random() < f.corrupt,
                                           rng.random() < f.duplicate, rng.random() < f.delay)
        position, bit = rng.randrange(1, max(2, len(data) - 2)), 1 << rng.randrange(7)
        if delay:
            self.counts["delay"] += 1
            if before:
                self.port.write(bytes(before))
                before.clear()
            time.sleep(f.delay_seconds)
        if drop:
            self.counts["drop"] += 1
            return b""
        if corrupt:
            self.counts["corrupt"] += 1
            damaged = bytearray(data)
            damaged[position] ^= bit
            data = bytes(damaged)
        if duplicate:
            self.counts["duplicate"] += 1
            return data + data
        return data

    def close(self) -> None:
        self.port.close()
