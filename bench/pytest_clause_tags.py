"""pytest plugin: every tag in ``features/*.feature`` is a clause
(``@625b.2.d.5``, docs/features.md) and becomes a registered marker, so that
pytest-bdd's tag marks raise no "unknown mark" warning and ``-m 625b.2.d.5``
selects one clause's scenarios, whichever directory is run.
Active in this repository through the root ``conftest.py``."""

from __future__ import annotations

from pathlib import Path

import pytest


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
