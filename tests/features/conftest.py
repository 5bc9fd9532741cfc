"""Binding of the regulation features (``features/*.feature``) to the bench.

Two jobs:
- every tag written in a feature file is a clause (``@625b.2.d.5``, see
  docs/features.md); pytest-bdd turns tags into marks, so each is registered
  here as a marker: no "unknown mark" warning, and ``-m 625b.2.d.5`` selects
  one clause's scenarios;
- the ``open_table`` fixture is the one place that decides what the scenarios
  play against. Today that is the rules engine (``RulesTable``); a later issue
  returns a controller-backed table with the same methods instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rules_table import RulesTable


def feature_tags(features_dir: Path) -> dict[str, str]:
    """Every tag in the feature files, mapped to the first file using it."""
    tags: dict[str, str] = {}
    for path in sorted(features_dir.glob("*.feature")):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.split("#", 1)[0].split()
            if words and words[0].startswith("@"):
                for word in words:
                    if word.startswith("@"):
                        tags.setdefault(word[1:], path.name)
    return tags


def pytest_configure(config: pytest.Config) -> None:
    features_dir = config.rootpath / (config.getini("bdd_features_base_dir") or "features")
    for tag, first_file in feature_tags(features_dir).items():
        config.addinivalue_line("markers", f"{tag}: scenarios for this clause (first in {first_file})")


@pytest.fixture
def open_table():
    """``open_table(game, paytable=None, rules=None)`` -> a table for one
    scenario, under ``rules`` (a loaded submission) or the game's defaults."""
    def opener(game: str, paytable: str | None = None, rules=None) -> RulesTable:
        return RulesTable(game, paytable, rules)
    return opener
