"""Which optional part of tablebench a missing module belongs to, so that a
command that needs it says in one line what to install (exit status 2)
instead of a traceback: the base install is the QA engineer's (bench, the
pytest plugin, the emulator, the oracle, replay, the fair-dice plant); the
physics twin is the ``twin`` extra, ``bench archive``'s Parquet and SQL the
``archive`` extra (pyproject.toml keeps the same table).
"""

from __future__ import annotations

# top-level module -> the extra that installs it
EXTRAS = {"pybullet": "twin", "ray": "ray", "pyarrow": "archive", "duckdb": "archive"}


def missing_extra(err: ImportError) -> str | None:
    """The one line to print for an import that failed because an extra is
    not installed, or None if the module is no extra's."""
    name = (getattr(err, "name", None) or "").partition(".")[0]
    extra = EXTRAS.get(name)
    if extra is None:
        return None
    return f"needs the {extra!r} extra ({name} is not installed): pip install 'tablebench[{extra}]'"
