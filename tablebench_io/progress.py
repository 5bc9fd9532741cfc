"""Progress bars: drawn only for a person watching.

A bar goes to standard error and only when it is a terminal, so that a log
file, a CI job or a ``--json`` consumer gets none; ``--progress`` and
``--no-progress`` (on every command) force it either way. The command line
sets the choice once with ``configure``; library code asks ``bar``.
"""

from __future__ import annotations

import sys
from typing import Any, Iterable

from tqdm import tqdm

_forced: bool | None = None


def configure(enabled: bool | None) -> None:
    """True or False forces bars on or off; None: on when stderr is a terminal."""
    global _forced
    _forced = enabled


def enabled() -> bool:
    if _forced is not None:
        return _forced
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def bar(iterable: Iterable[Any] | None = None, **options: Any) -> tqdm:
    """A tqdm bar on stderr, disabled unless progress is wanted (and unless
    the caller disables it, e.g. for a handful of items)."""
    disable = options.pop("disable", False) or not enabled()
    return tqdm(iterable, file=sys.stderr, disable=disable, **options)


def echo(text: str) -> None:
    """A result line on stdout while a bar may be drawn on stderr: on a
    terminal both share the screen, so the bar is cleared first and drawn
    again below the line (else the line runs on from the bar)."""
    tqdm.write(text, file=sys.stdout)
    sys.stdout.flush()
