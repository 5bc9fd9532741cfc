"""Registers the clause tags of features/lightning_dice_tower.feature as
markers (pytest-bdd turns tags into marks), so that running this directory
alone gives no "unknown mark" warning and ``-m 625b.2.c.3`` selects them."""

from __future__ import annotations

import pytest

FEATURE = "lightning_dice_tower.feature"


def pytest_configure(config: pytest.Config) -> None:
    path = config.rootpath / (config.getini("bdd_features_base_dir") or "features") / FEATURE
    tags = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        words = line.split("#", 1)[0].split()
        if words and words[0].startswith("@"):
            tags.update(w[1:] for w in words if w.startswith("@"))
    for tag in sorted(tags):
        config.addinivalue_line("markers", f"{tag}: scenarios for this clause (in {FEATURE})")
