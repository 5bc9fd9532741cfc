"""Errors a user can act on: each names the file, the field and, where a
regulation limits the value, the clause."""

from __future__ import annotations


class BenchError(Exception):
    """Base of every error the bench reports to a person."""


class RulesError(BenchError):
    """Bad input against the rules: a bet the game does not offer, dice out of
    range, a submission outside the regulation's limits.

    ``str(err)`` reads ``FILE: FIELD: MESSAGE (clause CLAUSE)`` with the parts
    that are known, so that a CLI can print it as it is.
    """

    def __init__(self, message: str, *, file: str | None = None,
                 field: str | None = None, clause: str | None = None):
        self.message = message
        self.file = file
        self.field = field
        self.clause = clause
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.field) if p]
        text = ": ".join(parts + [self.message])
        if self.clause:
            text += f" (clause {self.clause})"
        return text

    def located(self, *, file: str | None = None, field: str | None = None) -> "RulesError":
        """The same error with the file (and a field prefix) filled in by a caller
        that knows where the value came from."""
        new_field = self.field
        if field:
            new_field = f"{field}.{self.field}" if self.field else field
        return RulesError(self.message, file=file or self.file, field=new_field,
                          clause=self.clause)

