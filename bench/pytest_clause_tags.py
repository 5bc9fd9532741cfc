"""pytest plugin: every tag in the feature files is a clause
(``@625b.2.d.5``, docs/features.md) or says where a scenario can be played
(``@off-controller.layout``), and becomes a registered marker, so that
pytest-bdd's tag marks raise no "unknown mark" warning and ``-m 625b.2.d.5``
selects one clause's scenarios, whichever directory is run.

The feature files are looked for where a project keeps them: the folder of
the ``bdd_features_base_dir`` setting, else ``features/`` under the rootdir
and the rootdir itself (what ``bench features DIR`` writes); and the feature
files shipped with tablebench. Loaded by tablebench's ``pytest11`` entry point."""

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


def feature_dirs(config: pytest.Config) -> list[Path]:
    base = config.getini("bdd_features_base_dir")
    dirs = [config.rootpath / base] if base else [config.rootpath / "features", config.rootpath]
    try:
        from importlib import resources
        dirs.append(Path(str(resources.files("tablebench_features"))))
    except (ModuleNotFoundError, TypeError):
        pass
    return [d for d in dirs if d.is_dir()]


def pytest_configure(config: pytest.Config) -> None:
    tags: dict[str, str] = {}
    for folder in feature_dirs(config):
        for tag, first_file in feature_tags(folder).items():
            tags.setdefault(tag, first_file)
    for tag, first_file in tags.items():
        config.addinivalue_line("markers", f"{tag}: scenarios for this clause (first in {first_file})")
