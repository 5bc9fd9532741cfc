"""Docs whose figures are checked (issue 41): a figure the code can produce
sits in docs/ between two markers,

    <!-- checked: NAME -->
    ... the text a test makes ...
    <!-- /checked -->

and the test that makes it compares it with the doc's, so that a change
which makes a doc wrong fails ``make test``, and so does a figure changed
by hand. Where the suite already runs what a figure counts (the regulation
scenarios played on the emulated controllers), the check rides on that test
instead of running it twice.

To regenerate every checked block after a change, in the same commit:

    make docs          # TABLEBENCH_WRITE_DOCS=1, the tests in DOCS_TESTS

A table whose rows are made by separate tests (one per misbehaviour) is
checked row by row (``check_row``): the row is the line starting with
``| `KEY` |``.

Timings cannot be checked: docs state them as measured once, with the date.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
WRITE = os.environ.get("TABLEBENCH_WRITE_DOCS") == "1"
BLOCK = re.compile(r"<!-- checked: (?P<name>[a-z0-9-]+) -->\n(?P<body>.*?)<!-- /checked -->", re.S)
REGENERATE = "make docs (TABLEBENCH_WRITE_DOCS=1) regenerates it"


class StaleDoc(AssertionError):
    """A doc's checked block is not what the code gives."""


def blocks(doc: Path) -> dict[str, str]:
    """The checked blocks of a doc, by name: their text between the markers."""
    found: dict[str, str] = {}
    for match in BLOCK.finditer(doc.read_text(encoding="utf-8")):
        if match["name"] in found:
            raise StaleDoc(f"{doc.relative_to(ROOT)}: two blocks named {match['name']!r}")
        found[match["name"]] = match["body"]
    return found


def _block(doc: Path, name: str) -> str:
    found = blocks(doc)
    if name not in found:
        raise StaleDoc(f"{doc.relative_to(ROOT)}: no block <!-- checked: {name} --> ... <!-- /checked -->")
    return found[name]


def _write(doc: Path, name: str, body: str) -> None:
    text = doc.read_text(encoding="utf-8")
    start = text.index(f"<!-- checked: {name} -->\n") + len(f"<!-- checked: {name} -->\n")
    end = text.index("<!-- /checked -->", start)
    doc.write_text(text[:start] + body + text[end:], encoding="utf-8")


def check(doc: str | Path, name: str, made: str) -> None:
    """The block NAME of ``doc`` (relative to the repository) is ``made``;
    with TABLEBENCH_WRITE_DOCS=1 it is written so."""
    path = ROOT / doc
    made = made.rstrip("\n") + "\n"
    written = _block(path, name)
    if written == made:
        return
    if WRITE:
        _write(path, name, made)
        return
    diff = "".join(difflib.unified_diff(written.splitlines(True), made.splitlines(True),
                                        f"{doc} (as written)", f"{doc} (as the code gives it)"))
    raise StaleDoc(f"{doc}: the block {name!r} is not what the code gives ({REGENERATE}):\n{diff}")


def row_key(line: str) -> str | None:
    """The key of a table row, ``| `KEY` | ...``: its first cell's code."""
    found = re.match(r"\| `([^`]+)` \|", line)
    return found.group(1) if found else None


def rows(doc: str | Path, name: str) -> dict[str, str]:
    """The rows of the table in block NAME, by key."""
    return {key: line for line in _block(ROOT / doc, name).splitlines() if (key := row_key(line))}


def check_row(doc: str | Path, name: str, made: str) -> None:
    """The row of block NAME's table with ``made``'s key is ``made``; with
    TABLEBENCH_WRITE_DOCS=1 it is written so (added at the table's end if
    the table has none)."""
    key = row_key(made)
    assert key, f"not a table row keyed by its first cell's code: {made!r}"
    path = ROOT / doc
    body = _block(path, name)
    lines = body.splitlines()
    written = next((line for line in lines if row_key(line) == key), None)
    if written == made:
        return
    if WRITE:
        if written is None:
            last = max(i for i, line in enumerate(lines) if line.startswith("|"))
            lines.insert(last + 1, made)
        else:
            lines[lines.index(written)] = made
        _write(path, name, "\n".join(lines) + "\n")
        return
    raise StaleDoc(f"{doc}: in the block {name!r}, the row of {key!r} is not what the code gives "
                   f"({REGENERATE}):\n  written: {written}\n  made:    {made}")
