"""The error of bad input against the rules, and the base every error the
bench reports to a person shares.

Both are defined here, on the bench's lowest floor, so that the rules import
nothing above them (``RulesError`` is a kind of ``BenchError``: a command
that catches the one catches the other). ``bench.errors`` is the name the
rest of the bench imports them by."""

from __future__ import annotations

from tablebench_io.located import LocatedError


class BenchError(Exception):
    """Base of every error the bench reports to a person."""


class RulesError(BenchError, LocatedError):
    """Bad input against the rules: a bet the game does not offer, dice out of
    range, a submission outside the regulation's limits.

    ``str(err)`` reads ``FILE: FIELD: MESSAGE (clause CLAUSE)`` with the parts
    that are known, so that a CLI can print it as it is (``LocatedError``).
    """
