"""Errors a user can act on: each names the file, the field and, where a
regulation limits the value, the clause."""

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
