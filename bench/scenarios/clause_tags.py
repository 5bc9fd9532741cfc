"""pytest plugin: every tag in the feature files is a clause
(``@625b.2.d.5``, docs/features.md) or says where a scenario can be played
(``@off-controller.layout``), and becomes a registered marker, so that
pytest-bdd's tag marks raise no "unknown mark" warning and ``-m 625b.2.d.5``
selects one clause's scenarios, whichever directory is run.

The feature files are looked for where a project keeps them: the folder of
the ``bdd_features_base_dir`` setting, else ``features/`` under the rootdir
and the rootdir itself (what ``bench features DIR`` writes); and the feature
files shipped with tablebench.

In the JUnit XML (``pytest --junitxml``), a scenario's test case is named by
the scenario in the feature's words (an outline's example values filled in)
rather than by the Python function pytest-bdd made of it, and carries each
clause it is tagged with as a ``<property name="clause" value="625b.2(d)(5)">``,
so that a CI server or a regulator reads the results clause by clause.
pytest-bdd's Cucumber JSON (``--cucumberjson``) carries the tags itself.
Loaded by tablebench's ``pytest11`` entry point."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

_KNOWN_TAGS = pytest.StashKey[dict]()
SECTION_TAG = re.compile(r"^(?:sd\.)?(\d{3}[a-z]?\.\d+|20\.18\.33\.14)((?:\.[0-9a-z]+)*)$")


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


def clause_of_tag(tag: str) -> str:
    """A tag in the citation form the regulations and the oracle use:
    ``625b.2.d.5`` -> ``625b.2(d)(5)``, ``sd.20.18.33.14.1.b`` ->
    ``20:18:33:14(1)(b)``; a tag outside the scheme (``off-controller.layout``)
    stays as it is."""
    match = SECTION_TAG.match(tag)
    if not match:
        return tag
    section = match.group(1)
    if section == "20.18.33.14":
        section = "20:18:33:14"
    return section + "".join(f"({level})" for level in match.group(2).split(".")[1:])


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
    config.stash[_KNOWN_TAGS] = tags
    for tag, first_file in tags.items():
        config.addinivalue_line("markers", f"{tag}: scenarios for this clause (first in {first_file})")
    config.pluginmanager.register(_ScenarioNames(config), "bench-scenario-names")


def scenario_name(item: pytest.Item) -> str | None:
    """The scenario a pytest-bdd test plays, in the feature's words, or None."""
    try:
        from pytest_bdd.scenario import scenario_wrapper_template_registry
    except ImportError:          # pytest-bdd absent or reorganised: keep pytest's own name
        return None
    obj = getattr(item, "obj", None)
    template = scenario_wrapper_template_registry.get(obj) if obj is not None else None
    if template is None:
        return None
    callspec = getattr(item, "callspec", None)      # a parametrized test's: an outline's example
    example = getattr(callspec, "params", {}).get("_pytest_bdd_example")
    name = template.render(example).name if example else template.name
    # An outline whose name does not show its examples (an example comes only with a callspec).
    if example and callspec is not None and name == template.name:
        name += f" [{callspec.id}]"
    return name


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    known = config.stash.get(_KNOWN_TAGS, {})
    for item in items:
        clauses = sorted({clause_of_tag(m.name) for m in item.iter_markers()
                          if m.name in known and SECTION_TAG.match(m.name)})
        item.user_properties.extend(("clause", clause) for clause in clauses)
        name = scenario_name(item)
        if name:
            item.user_properties.append(("scenario", name))


class _ScenarioNames:
    """Names each JUnit test case by its scenario: runs before the JUnit
    writer (``--junitxml``) sees a report, and sets the test case's name
    the way pytest's own ``record_xml_attribute`` does."""

    def __init__(self, config: pytest.Config):
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        name = dict(report.user_properties).get("scenario")
        if not name:
            return
        try:
            from _pytest.junitxml import xml_key
        except ImportError:        # pytest reorganised: the test keeps pytest's name, with its properties
            return
        junit = self.config.stash.get(xml_key, None)
        if junit is not None:
            junit.node_reporter(report).add_attribute("name", name)
