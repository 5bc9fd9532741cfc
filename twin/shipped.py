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
        found = tablebench_fixtures.resolve(str(given), *(kinds or DESIGN_KINDS))
    except ValueError as err:
        raise DesignError(str(err)) from None
    if found == str(given) and not Path(found).exists():
        others = [kind for kind in DESIGN_KINDS if kind not in kinds and tablebench_fixtures.find(str(given), kind)]
        if kinds and others:
            # towers/standard given where a wheel is read: say so, not "cannot read"
            raise DesignError(f"{given}: a shipped {others[0]} design, not a {' or '.join(kinds)}: "
                              f"{USED_BY.get(others[0], 'twin')} {given}")
    return found


USED_BY = {"tower": "twin drop", "wheel": "twin spin"}
