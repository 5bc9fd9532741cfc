"""``duplicate-frame`` (docs/protocol.md section 3: the same frame twice is
ACKed twice and delivered once) judges every reply the controller gives to
the second copy, not only ACCEPTs. Issue 45: a controller that ACKed the
second copy as a duplicate and then acted on it all the same (``REFUSE
duplicate-id``) passed: in version 1 that reply waits behind the controller's
ACCEPT, which the check never acknowledged, so it came after the check had
stopped looking."""

from __future__ import annotations

import threading

from bench.conformance.suite import FAIL, PASS, run_suite
from bench.emulator.controller import EmulatedController
from bench.protocol import Session
from bench.rules.submission import default_rules
from tests.pty_controller import controller_on_pty

GAME = "lightning-dice"


class ActsOnDuplicates(Session):
    """A version-1 session that ACKs a frame sent twice as a duplicate, and
    delivers it again all the same."""

    def _on_message_v1(self, item) -> None:
        again = (item.message.seq, item.crc) == self._last_rx
        super()._on_message_v1(item)
        if again and item.message.type != "HELLO":
            self._accept(item, None)


def controller(session_class, stop: threading.Event) -> str:
    return controller_on_pty(GAME, stop, EmulatedController, session_class)


def duplicate_frame(session_class):
    stop = threading.Event()
    try:
        url = controller(session_class, stop)
        [result] = run_suite(url, game=GAME, rules=default_rules(GAME), versions=(1,),
                             only=lambda check: check.name == "duplicate-frame")
    finally:
        stop.set()
    return result


def test_a_duplicate_acted_on_with_a_refusal_fails_duplicate_frame():
    result = duplicate_frame(ActsOnDuplicates)
    assert result.status == FAIL and "REFUSE duplicate-id" in result.detail, result.detail


def test_a_duplicate_acked_and_not_delivered_passes_it():
    result = duplicate_frame(Session)
    assert result.status == PASS, result.detail
