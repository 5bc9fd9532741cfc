"""Errors the twin reports to a person: each names the file and the field.

The twin never imports ``bench``; its located errors share ``tablebench_io``'s
class with the bench's.
"""

from __future__ import annotations

from tablebench_io.located import LocatedError


class TwinError(Exception):
    """Base of every error the twin reports to a person."""


class DesignError(TwinError, LocatedError):
    """A tower or wheel design file the twin cannot build: a missing or
    out-of-range field, a wrong type, an impossible geometry.

    ``str(err)`` reads ``FILE: FIELD: MESSAGE`` with the parts that are known,
    so that a CLI can print it as it is (``LocatedError``).
    """


class GameFileError(TwinError, LocatedError):
    """A game file or rules submission whose payouts ``twin edge`` cannot weigh:
    a row the game has not, odds outside the regulation's range (named with its clause)."""
