"""Fixtures for the link tests: the emulated controller started as its own
process (always killed afterwards), and a small bench-side driver that plays
the players, the dealer and the plant through a protocol session."""

from __future__ import annotations

import os
from contextlib import contextmanager

import pytest

from bench.emulator.process import emulator_process as bench_emulator_process
from bench.protocol.link import open_link
from bench.protocol import BENCH, Message, PROTOCOL_VERSION, Session, Timeouts, make
from bench.rules import describe
from bench.protocol.session import WINDOW

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAST = Timeouts(byte=0.1, frame=0.5, response=0.25, retries=4)
REPLY = 3.0   # seconds the driver waits for the controller's next message


@contextmanager
def emulator_process(*args: str, listen: str = "127.0.0.1:0"):
    """Start ``bench emulate ARGS --listen LISTEN``; yield the URL it
    announces; kill it afterwards whatever happened."""
    with bench_emulator_process(args, listen=listen) as url:
        yield url


@pytest.fixture
def emulator():
    return emulator_process


def connect(url: str, game: str, timeouts: Timeouts = FAST, observer=None) -> Session:
    return Session(open_link(url), game, role=BENCH, timeouts=timeouts, observer=observer)


def hello(session: Session, game: str, proto: int = PROTOCOL_VERSION) -> tuple[Message, Message]:
    """Greet the controller in protocol ``proto``; returns its HELLO and the
    OPEN of round 1. The session then speaks the version the controller answered in."""
    fields = dict(window=WINDOW) if proto >= 2 else {}
    session.send(make("HELLO", proto=proto, role="bench", sw="tests/1", game=game, **fields))
    theirs = session.receive(REPLY, expect="HELLO")
    session.use_protocol(theirs["proto"], peer_window=theirs.get("window"))
    return theirs, session.receive(REPLY, expect="OPEN")


def play_round(session: Session, game: str, round_: int, wagers, readings, *, late=()) -> list[Message]:
    """One round after its OPEN: place ``wagers`` ((id, bet, stake)...), call
    no more bets, place the ``late`` wagers, trigger, answer every release,
    spin or roll command with the next of ``readings`` (SENSOR fields; or
    a callable given what the controller said so far, for a plant that
    chooses its outcome after seeing the Lucky Numbers), and
    return everything the controller said until the round is settled and
    cleared."""
    readings = readings if callable(readings) else (lambda said, it=iter(readings): next(it))
    for wager_id, bet, stake in wagers:
        session.send(make("WAGER", round=round_, id=wager_id, bet=bet, stake=stake))
    session.send(make("CLOSE", round=round_))
    for wager_id, bet, stake in late:
        session.send(make("WAGER", round=round_, id=wager_id, bet=bet, stake=stake))
    said, seen = [], set()
    triggered = False
    while not {"SETTLED", "CLEARED"} <= seen:
        m = session.receive(REPLY)
        said.append(m)
        seen.add(m.type)
        if m.type in ("RELEASE", "SPIN", "ROLL"):
            session.send(make("SENSOR", round=round_, **readings(said)))
        elif m.type == "RESULT" and m.get("open"):
            session.send(make("TRIGGER", round=round_))       # Dice-Ology: the next roll
        if not triggered and "NOMORE" in seen and ("LUCKY" in seen or not describe(game).lightning):
            session.send(make("TRIGGER", round=round_))
            triggered = True
    return said


def of(messages, type_: str) -> list[Message]:
    return [m for m in messages if m.type == type_]


class Silence:
    """A peer that never answers, on a clock that moves only while the session
    waits to hear from it: when the session's timers fire, exactly, however
    loaded the machine is."""

    def __init__(self):
        self.now, self.written = 0.0, bytearray()

    def clock(self) -> float:
        return self.now

    def read_some(self, timeout):
        self.now += timeout
        return b""

    def write(self, data):
        self.written += data
