"""Where a journal was played: its table, and the dealer, dice set or wheel
where given. Kept in the journal's session header (``bench run``, ``bench
monitor``, the pytest plugin) so that an archive can partition and judge by
them (docs/archive.md); ``bench archive ingest --table`` labels older journals.

A label becomes a folder name in the archive (``table=NAME``), so it is held
to a short, portable alphabet: letters, digits, ``.``, ``_`` and ``-``."""

from __future__ import annotations

import re
from typing import Any

from bench.errors import BenchError

# header field -> its command-line option
LABELS: dict[str, str] = {"table": "--table", "dealer": "--dealer", "dice_set": "--dice-set", "wheel_id": "--wheel-id"}
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_HELP = {"table": "the table's name, kept in the journal's header (bench archive partitions by it)",
         "dealer": "the dealer on duty, kept in the journal's header",
         "dice_set": "the set of dice in the tower, kept in the journal's header",
         "wheel_id": "the wheel's identifier, kept in the journal's header"}


def check_label(field: str, value: str) -> str:
    """``value`` if it is a good name for ``field``, else a BenchError naming the option."""
    if not _NAME.fullmatch(value):
        raise BenchError(f"{LABELS.get(field, field)} {value[:80]!r}: a name of 1 to 64 letters, digits, '.', '_' "
                         "or '-', starting with a letter or digit (it names a folder of the archive)")
    return value


def label_fields(**given: str | None) -> dict[str, str]:
    """The header fields of the labels given (None: not given), each checked."""
    unknown = set(given) - set(LABELS)
    if unknown:
        raise ValueError(f"not a table label: {sorted(unknown)}")
    return {field: check_label(field, value) for field, value in given.items() if value is not None}


def add_label_options(parser: Any) -> None:
    """``--table``, ``--dealer``, ``--dice-set``, ``--wheel-id`` on an argparse
    parser (or a pytest option group: its ``addoption`` is used when it has one)."""
    add = getattr(parser, "addoption", None) or parser.add_argument
    for field, option in LABELS.items():
        add(option, dest=field, metavar="NAME", default=None, help=_HELP[field])


def labels_from(options: Any) -> dict[str, str]:
    """The checked header fields from parsed options (``add_label_options``)."""
    return label_fields(**{field: getattr(options, field, None) for field in LABELS})
