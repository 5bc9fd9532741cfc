"""An emulated controller on a thread behind a pty it keeps open, as a powered
controller on a cable: sessions may end and others begin on the same device.
Shared by the tests that need a controller left on (a session-start finding,
a conformance check against a controller that acts on a duplicate)."""

from __future__ import annotations

import threading
from bench.emulator.server import serve
from bench.protocol import Session, Timeouts
from bench.protocol.session import CONTROLLER
from bench.rules.submission import default_rules


def controller_on_pty(game: str, stop: threading.Event, controller_class, session_class=Session,
                      seed: int = 7) -> str:
    """Start ``controller_class`` (an EmulatedController or a misbehaving one)
    serving ``game`` on a new pty until ``stop`` is set; the device to open."""
    rules, ready, where = default_rules(game), threading.Event(), []

    def on_connection(link) -> None:
        session = session_class(link, game, role=CONTROLLER, timeouts=Timeouts())
        controller_class(session, game=game, rules=rules, seed=seed).serve(stop.is_set, idle_poll=0.02)

    def announce(line: str) -> None:
        where.append(line.split(" ", 1)[1])
        ready.set()

    threading.Thread(target=serve, args=("pty", on_connection), kwargs=dict(announce=announce,
                     should_stop=stop.is_set), daemon=True).start()
    assert ready.wait(10), "the controller did not listen"
    return where[0]


__all__ = ["controller_on_pty"]
