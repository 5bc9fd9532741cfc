"""Errors of the controller link a person can act on."""

from __future__ import annotations

from bench.errors import BenchError


class LinkError(BenchError):
    """The link failed: closed by the peer, or a write could not complete."""


class LinkClosed(LinkError):
    """The other end closed the connection."""


class LinkTimeout(LinkError):
    """A frame was not acknowledged after the bounded number of retransmissions."""


class ResponseTimeout(LinkError):
    """The peer did not send the expected message before the deadline."""


class ProtocolViolation(LinkError):
    """The peer sent a well-formed frame that makes no sense here (wrong
    version, wrong game, a message out of turn)."""
