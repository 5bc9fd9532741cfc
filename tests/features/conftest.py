"""Binding of the regulation features (``features/*.feature``) to the bench.

The ``open_table`` fixture is the one place that decides what the scenarios
play against: here the rules engine (``RulesTable``); ``features/conftest.py``
returns a controller-backed table with the same methods instead
(docs/controller-testing.md). The clause tags are registered as markers by
``bench.scenarios.clause_tags``.
"""

from __future__ import annotations

import pytest

from bench.scenarios.rules_table import RulesTable


@pytest.fixture
def open_table():
    """``open_table(game, paytable=None, rules=None)`` -> a table for one
    scenario, under ``rules`` (a loaded submission) or the game's defaults."""
    def opener(game: str, paytable: str | None = None, rules=None) -> RulesTable:
        return RulesTable(game, paytable, rules)
    return opener
