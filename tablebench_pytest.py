"""tablebench's pytest entry points (``pytest11`` in pyproject.toml): the
plugin (``bench.scenarios.plugin``) and the clause tags
(``bench.scenarios.clause_tags``), under the names ``bench.pytest_plugin``
and ``bench.pytest_clause_tags``.

A module of its own, outside ``bench``, because of the name: ``python -m
pytest`` puts the working directory first on ``sys.path``, and a project with
a ``bench/`` package of its own (a common name in a vendor's repository)
would then have it stand in for tablebench's, and the plugin would not load.
Here tablebench's ``bench`` is imported from beside this file before any
other, so that every later ``import bench`` in the run is tablebench's. (The
project's own ``bench`` cannot be imported in that run: two packages cannot
share a name; ``docs/controller-testing.md`` says so.)
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _tablebench_bench():
    loaded = sys.modules.get("bench")
    if loaded is None:
        sys.path.insert(0, _HERE)
        try:
            import bench as loaded
        finally:
            sys.path.remove(_HERE)
    where = os.path.dirname(os.path.dirname(os.path.abspath(getattr(loaded, "__file__", None) or "?")))
    if where != _HERE:
        import pytest
        raise pytest.UsageError(
            f"a package named 'bench' from {where} was imported before tablebench's pytest plugin and stands in "
            f"for tablebench's; run the pytest command (or python -P -m pytest) from that folder")
    return loaded


def _same_libm_as_the_bench():
    """A pytest command restarts with the libm the ``bench`` and ``twin``
    commands run (tablebench_io.portable_math): a staged drop or a replayed
    spin must give here what it gives there. Here, at the plugin's import, no
    output is captured yet and nothing has run; a program that called
    ``pytest.main()`` itself is never restarted (its twin runs the CPU's own
    libm, and the fingerprint in its journals says so)."""
    from tablebench_io import portable_math
    if portable_math.started_as("pytest") or portable_math.started_as("py.test"):
        portable_math.restart_pinned()


_same_libm_as_the_bench()
_tablebench_bench()

from bench.scenarios import clause_tags, plugin  # noqa: E402  (after tablebench's bench is in place)

__all__ = ["clause_tags", "plugin"]
