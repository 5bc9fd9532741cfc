"""The designs, rules submissions and game files that ship with tablebench.

Installed as the package ``tablebench_fixtures`` (``setup.py`` maps it onto this
folder), so that a user who installed the wheel can name a shipped file instead
of a path: ``twin drop standard``, ``bench run --design narrow-tray``. Only the
top-level files of each kind are shipped; ``invalid/`` and ``journals/`` are the
test suite's own.

This package is a leaf: it imports neither ``twin`` nor ``bench``, so the twin
(designs) and the rules (submissions, games) can both ask it without importing
each other.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

# kind -> the folder its files are shipped in
KINDS = {"tower": "towers", "wheel": "wheels", "submission": "submissions", "game": "games"}
SUFFIX = ".yaml"


def _folder(kind: str):
    return resources.files(__name__) / KINDS[kind]


def names(kind: str) -> list[str]:
    """The shipped files of one kind, by name (the file name without .yaml)."""
    folder = _folder(kind)
    if not folder.is_dir():
        return []
    return sorted(entry.name[:-len(SUFFIX)] for entry in folder.iterdir()
                  if entry.is_file() and entry.name.endswith(SUFFIX))


def find(name: str, *kinds: str) -> list[tuple[str, Path]]:
    """``(kind, path)`` of every shipped file called ``name`` among ``kinds``:
    ``standard``, or ``towers/standard`` to say which kind. A name never ends
    in ``.yaml``: that is the caller's own file."""
    folder, _, bare = name.rpartition("/")
    if not bare or name.endswith(SUFFIX) or "\\" in name:
        return []
    found = []
    for kind in kinds:
        if folder and folder != KINDS[kind]:
            continue
        entry = _folder(kind) / f"{bare}{SUFFIX}"
        if entry.is_file():
            # Installed from a wheel the package is a plain folder, so this is a real path.
            found.append((kind, Path(str(entry))))
    return found


def resolve(given: str, *kinds: str) -> str:
    """The path to read for ``given``: the user's file if one is there, else
    the shipped file of that name, else ``given`` unchanged (so that the
    reader reports it as missing, naming what the user typed). Raises
    ``ValueError`` when the name fits shipped files of two kinds."""
    if Path(given).exists():
        return given
    found = find(given, *kinds)
    if len(found) > 1:
        choices = " or ".join(f"{KINDS[kind]}/{Path(given).name}" for kind, _ in found)
        raise ValueError(f"{given}: names a shipped {' and a shipped '.join(k for k, _ in found)}; say {choices}")
    return str(found[0][1]) if found else given


def listing(*kinds: str) -> str:
    """A listing for ``--list``: one line a shipped file, with its kind."""
    lines = []
    for kind in kinds:
        for name in names(kind):
            lines.append(f"{name:24s} {kind:10s} {KINDS[kind]}/{name}{SUFFIX}")
    return "\n".join(lines)
