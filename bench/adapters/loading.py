"""Turning one ``tablebench.adapters`` entry point into an adapter, with the
checks an adapter must pass, and the one-line reason when it cannot be.

Used in two places that must agree word for word: the child process that
tries a third party's entry point first (``bench.adapters.probe``), and the
bench's own process when it then takes the adapter in (``registry``).
"""

from __future__ import annotations

import re
from importlib import metadata

from bench.adapters.api import Adapter

_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
REASON_CHARS = 300              # a reason is one line of a listing; a package's message can be any length


class Phase:
    """Where loading got to, so that a reason can say where it failed."""

    def __init__(self) -> None:
        self.where = "at import"


def load(entry: metadata.EntryPoint, phase: Phase | None = None) -> Adapter:
    """The adapter ``entry`` names (an Adapter subclass, an instance, or a
    callable returning one). Raises whatever the package raises, or
    TypeError for something that is not a usable adapter."""
    phase = phase or Phase()
    loaded = entry.load()
    phase.where = f"making the adapter ({entry.value})"
    adapter = loaded() if callable(loaded) and not isinstance(loaded, Adapter) else loaded
    phase.where = "checking it"
    if not isinstance(adapter, Adapter):
        raise TypeError(f"{entry.value} gives a {type(adapter).__name__}, not a bench.adapters.api.Adapter")
    if not _NAME.fullmatch(str(getattr(adapter, "name", ""))):
        raise TypeError(f"{entry.value}: name {getattr(adapter, 'name', None)!r} is not 1-40 lower-case "
                        "letters, digits and '-'")
    if adapter.name != entry.name:
        raise TypeError(f"{entry.value} calls itself {adapter.name!r}; the entry point calls it {entry.name!r}")
    if not str(getattr(adapter, "version", "")):
        raise TypeError(f"{entry.value} has no version")
    return adapter


def one_line(text: str) -> str:
    """``text`` as one bounded line: a reason goes on one line of a listing
    and into a one-line error."""
    text = " ".join(str(text).split())
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS - 3] + "..."


def failure(err: BaseException, phase: Phase) -> str:
    """Why loading failed, in one line. A SystemExit is named as the exit it
    is: a package that calls sys.exit while loading would otherwise end the
    bench with its status, 0 included, having verified nothing."""
    if isinstance(err, SystemExit):
        return one_line(f"calls sys.exit({err.code!r}) {phase.where}")
    if phase.where == "checking it":        # the checks' own TypeError says it all
        return one_line(str(err))
    message = str(err)
    return one_line(f"{type(err).__name__} {phase.where}" + (f": {message}" if message else ""))
