"""The documents that ship with tablebench, so that an error message's
"bench docs protocol 11" can be read wherever tablebench is installed.

Installed as the package ``tablebench_docs`` (``pyproject.toml`` maps it onto
this folder, like ``tablebench_fixtures``); ``bench docs [NAME [SECTION]]``
prints them. A leaf: it imports neither ``bench`` nor ``twin``.
"""

from __future__ import annotations

import re
from importlib import resources

SUFFIX = ".md"
_HEADING = re.compile(r"^(#{2,3}) (.+)$")


def names() -> list[str]:
    """Every shipped document, by name (the file name without .md)."""
    return sorted(entry.name[:-len(SUFFIX)] for entry in resources.files(__name__).iterdir()
                  if entry.is_file() and entry.name.endswith(SUFFIX))


def text(name: str) -> str:
    """A document's text; KeyError naming the documents there are."""
    bare = name[:-len(SUFFIX)] if name.endswith(SUFFIX) else name
    bare = bare.rpartition("/")[2]
    if bare not in names():
        raise KeyError(f"no document {name!r}; the documents: {', '.join(names())}")
    return (resources.files(__name__) / f"{bare}{SUFFIX}").read_text(encoding="utf-8")


def title(name: str) -> str:
    """A document's first heading."""
    for line in text(name).splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return name


def section(name: str, wanted: str) -> str:
    """The section of a document whose heading is numbered ``wanted`` ("5",
    "11") or starts with its words ("deadlines"), down to the next heading
    of the same level or above; KeyError naming the sections there are."""
    lines = text(name).splitlines()
    headings = [(i, len(m[1]), m[2].strip()) for i, line in enumerate(lines) if (m := _HEADING.match(line))]
    key = wanted.strip().rstrip(".").lower()
    for index, (start, level, heading) in enumerate(headings):
        number, _, words = heading.partition(". ")
        if number.lower() == key or heading.lower().startswith(key) or (words and words.lower().startswith(key)):
            end = next((i for i, lv, _ in headings[index + 1:] if lv <= level), len(lines))
            return "\n".join(lines[start:end]).rstrip() + "\n"
    raise KeyError(f"{name} has no section {wanted!r}; its sections: "
                   + "; ".join(h for _, lv, h in headings if lv == 2))
