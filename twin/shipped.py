"""Designs by name: ``standard`` means the shipped ``towers/standard.yaml``
when there is no file of that name here (``tablebench_fixtures``)."""

from __future__ import annotations

from pathlib import Path

import tablebench_fixtures

from twin.errors import DesignError

DESIGN_KINDS = ("tower", "wheel")


def shipped_design(given: str | Path, *kinds: str) -> str:
    """The file to read for ``given``: a path, or the name of a shipped design
    of one of ``kinds`` (default: towers and wheels)."""
    try:
        return tablebench_fixtures.resolve(str(given), *(kinds or DESIGN_KINDS))
    except ValueError as err:
        raise DesignError(str(err)) from None
