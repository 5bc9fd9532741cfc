"""The conformance checks of a controller's link and session layers, each
naming the section of docs/protocol.md it tests.

A check gets a ``Context``: a fresh ``Wire`` to the controller, the protocol
version it runs in, and what the bench knows of the controller (its game,
rules and timeouts). It returns a short note when the controller did what
the section says and raises ``CheckFailed`` saying what it did instead.
Every check starts with its own HELLO (section 5: a HELLO starts the
controller afresh), so checks do not depend on each other. What a check
puts in flight and how long it waits for bytes to cross come from the line's
speed (``Context.line``, ``bench.conformance.speed``), so that a check
passes a compliant controller at 9,600 baud as at 115,200.

The checks live by layer and concern, one module each; importing this package
registers them all in ``CHECKS`` in the order the suite runs them (the order
of the imports below), which is the order a report lists them in.
"""

from bench.conformance.checks.core import (CHECKS, LINK, ONCE, REPLY_S, SESSION, SLACK_S, Check, CheckFailed,
                                           Context, check, is_type, messages, of_type, require, show)
from bench.conformance.checks.observe import observe_round
from bench.conformance.checks import watched_round, rejected_frames, delivery, version2, hello, reset, refusals  # noqa: F401  (each registers its checks)
from bench.conformance.checks.rejected_frames import largest_frame


def by_name() -> dict[str, Check]:
    return {c.name: c for c in CHECKS}


__all__ = ["CHECKS", "LINK", "ONCE", "REPLY_S", "SESSION", "SLACK_S", "Check", "CheckFailed", "Context",
           "by_name", "check", "is_type", "largest_frame", "messages", "observe_round", "of_type", "require",
           "show"]
