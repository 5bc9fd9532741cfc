"""The waits every bench-side driver shares (bench.protocol.greeting)."""

from __future__ import annotations

import pytest

from bench.protocol.greeting import replies_to, reply_to
from bench.protocol import ResponseTimeout, make


class Scripted:
    """A session that hands out the controller's messages in a set order."""

    def __init__(self, *messages):
        self.messages = list(messages)

    def receive(self, timeout, *, expect):
        while self.messages:
            message = self.messages.pop(0)
            if message.type in expect:
                return message
        raise ResponseTimeout(f"nothing more within {timeout} s")


def test_replies_to_wagers_are_taken_in_whatever_order_they_come():
    session = Scripted(make("REFUSE", round=1, id="w2", reason="bad-stake"), make("ACCEPT", round=1, id="old"),
                       make("ACCEPT", round=1, id="w1"), make("ACCEPT", round=1, id="w3"))
    replies = replies_to(session, ["w1", "w2", "w3"], reply_s=0.1)
    assert {wager_id: reply.type for wager_id, reply in replies.items()} == \
        {"w1": "ACCEPT", "w2": "REFUSE", "w3": "ACCEPT"}


def test_a_reply_that_never_comes_is_a_bounded_wait():
    with pytest.raises(ResponseTimeout):
        reply_to(Scripted(make("ACCEPT", round=1, id="w1")), "w2", reply_s=0.1)
