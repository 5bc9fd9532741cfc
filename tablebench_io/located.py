"""The error of a bad input value, located in its file and field."""

from __future__ import annotations


class LocatedError(Exception):
    """Bad input, located: ``str(err)`` reads ``FILE: FIELD: MESSAGE (clause
    CLAUSE)`` with the parts that are known, so that a CLI prints it as it is.
    The bench's ``RulesError`` and the twin's ``DesignError`` are kinds of it."""

    def __init__(self, message: str, *, file: str | None = None,
                 field: str | None = None, clause: str | None = None):
        self.message = message
        self.file = file
        self.field = field
        self.clause = clause
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = [str(p) for p in (self.file, self.field) if p]
        text = ": ".join(parts + [self.message])
        if self.clause:
            text += f" (clause {self.clause})"
        return text

    def located(self, *, file: str | None = None, field: str | None = None):
        """The same error with the file (and a field prefix) filled in by a
        caller that knows where the value came from."""
        new_field = self.field
        if field:
            new_field = f"{field}.{self.field}" if self.field else field
        return type(self)._relocated(self, file or self.file, new_field)

    @classmethod
    def _relocated(cls, err: "LocatedError", file, field):
        new = cls.__new__(cls)
        LocatedError.__init__(new, err.message, file=file, field=field, clause=err.clause)
        return new
