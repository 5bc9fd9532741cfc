"""Errors a user can act on: each names the file, the field and, where a
regulation limits the value, the clause.

Defined in ``bench.rules.errors`` (the rules, the bench's lowest floor, raise
them and import nothing above themselves); this is the name the rest of the
bench imports them by."""

from __future__ import annotations

from bench.rules.errors import BenchError, RulesError

__all__ = ["BenchError", "RulesError"]
