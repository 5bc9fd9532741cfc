"""Every scenario of the four regulation features names the clause it tests,
in the one tag scheme of docs/features.md, so that a regulator can run or
read one clause (``pytest -m 625b.2.d.5``) and the reports group by clause."""

import re
from pathlib import Path

import pytest

from bench.scenarios.controller_scope import OFF_CONTROLLER, REASONS

FEATURES = Path(__file__).resolve().parents[2] / "features"
REGULATION_FEATURES = ["lightning_dice.feature", "sic_bo.feature", "lightning_roulette.feature",
                       "dice_ology.feature"]
# 58 Pa. Code: section then each bracketed level, e.g. 625b.2.d.5, 625a.6.b.3.ii, 617a.4;
# S.D. Admin. R.: sd. then the rule number and levels, e.g. sd.20.18.33.14.1.b, sd.20.18.33.14.pay-tables.
CLAUSE_TAG = re.compile(r"^(?:\d{3}[a-z]?\.\d+(?:\.(?:[a-z]|\d+|[ivx]+))*"
                        r"|sd\.20\.18\.33\.14(?:\.\d+(?:\.[a-z])?|\.pay-tables)?)$")


def scenarios_and_tags(text: str) -> list[tuple[str, list[str]]]:
    """(scenario title, the tags written just above it) for every scenario."""
    found, pending = [], []
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if words and words[0].startswith("@"):
            pending += [w[1:] for w in words if w.startswith("@")]
        elif words and words[0] in ("Scenario:", "Scenario", "Example:"):
            found.append((line.strip(), pending))
            pending = []
        elif words and words[0] == "Examples:":
            pending = []
    return found


@pytest.mark.parametrize("name", REGULATION_FEATURES)
def test_every_scenario_is_tagged_with_a_clause_in_the_scheme(name):
    scenarios = scenarios_and_tags((FEATURES / name).read_text(encoding="utf-8"))
    assert scenarios, f"{name} has no scenarios"
    untagged = [title for title, tags in scenarios if not tags]
    assert not untagged, f"{name}: scenarios without a clause tag: {untagged}"
    off_scheme = sorted({t for _, tags in scenarios for t in tags
                         if not CLAUSE_TAG.match(t) and not t.startswith(OFF_CONTROLLER)})
    assert not off_scheme, f"{name}: tags outside the scheme of docs/features.md: {off_scheme}"


def test_the_scheme_rejects_a_bracketed_citation():
    # The scheme must stay a pytest -m identifier: no brackets, colons or spaces.
    assert not CLAUSE_TAG.match("625b.2(d)(5)")
    assert not CLAUSE_TAG.match("20:18:33:14")
    assert CLAUSE_TAG.match("625a.6.b.3.ii") and CLAUSE_TAG.match("sd.20.18.33.14.pay-tables")


def test_off_controller_tags_name_a_known_reason():
    """``@off-controller.REASON`` deselects a scenario on a controller; a
    misspelt reason would deselect nothing (or fail collection), so each one
    must be a reason the plugin can print."""
    used = set()
    for name in REGULATION_FEATURES:
        for line in (FEATURES / name).read_text(encoding="utf-8").splitlines():
            used |= {w[1 + len(OFF_CONTROLLER):] for w in line.split("#", 1)[0].split()
                     if w.startswith("@" + OFF_CONTROLLER)}
    assert used, "no scenario is marked as not playable on a controller"
    assert used <= set(REASONS), f"unknown reasons: {sorted(used - set(REASONS))}"
