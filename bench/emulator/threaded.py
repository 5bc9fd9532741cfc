"""The emulated controller on a thread of this process, behind a pty: for a
test or benchmark that starts many controllers, where a process each
(``bench.emulator.process``) would cost more than the rounds played. The
bench still talks to it over a real link."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from bench.emulator.controller import EmulatedController
from bench.emulator.misbehaviours import policy_for
from bench.emulator.server import serve
from bench.errors import BenchError
from bench.protocol import Session, Timeouts
from bench.protocol.session import CONTROLLER

START_TIMEOUT_S = 10.0


@contextmanager
def threaded_controller(game: str, rules, *, seed: int, misbehave: str | None = None,
                        policy=None) -> Iterator[str]:
    """Yield the pty path of an emulated controller serving on a thread; it
    stops when the context ends. ``policy``: a ``Policy`` of the caller's own
    (a benchmark's or a test's hostile controller) instead of a named one."""
    if policy is None:
        policy = policy_for(misbehave, game, getattr(rules, "paytable", None))
    stop = threading.Event()
    announced: list[str] = []
    ready = threading.Event()

    def on_connection(link) -> None:
        session = Session(link, game, role=CONTROLLER, timeouts=Timeouts())
        EmulatedController(session, game=game, rules=rules, seed=seed, policy=policy).serve(stop.is_set, idle_poll=0.02)

    def announce(line: str) -> None:
        announced.append(line.split(" ", 1)[1])
        ready.set()

    thread = threading.Thread(target=serve, args=("pty", on_connection),
                              kwargs=dict(announce=announce, should_stop=stop.is_set), daemon=True)
    thread.start()
    if not ready.wait(START_TIMEOUT_S):
        stop.set()
        raise BenchError(f"the threaded emulated controller did not listen within {START_TIMEOUT_S:.0f} s")
    try:
        yield announced[0]
    finally:
        stop.set()
        thread.join(timeout=5)
