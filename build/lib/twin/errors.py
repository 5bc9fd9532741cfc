"""Errors the twin reports to a person: each names the file and the field.

The twin never imports ``bench``; this is its own error family.
"""

from __future__ import annotations


class TwinError(Exception):
    """Base of every error the twin reports to a person."""


class DesignError(TwinError):
    """A tower or wheel design file the twin cannot build: a missing or
    out-of-range field, a wrong type, an impossible geometry.

    ``str(err)`` reads ``FILE: FIELD: MESSAGE`` with the parts that are known,
    so that a CLI can print it as it is.
    """

    def __init__(self, message: str, *, file: str | None = None,
                 field: str | None = None):
        self.message = message
        self.file = file
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = [str(p) for p in (self.file, self.field) if p]
        return ": ".join(parts + [self.message])

    def located(self, *, file: str | None = None, field: str | None = None) -> "DesignError":
        """The same error with the file (and a field prefix) filled in by a
        caller that knows where the value came from."""
        new_field = self.field
        if field:
            new_field = f"{field}.{self.field}" if self.field else field
        return DesignError(self.message, file=file or self.file, field=new_field)
