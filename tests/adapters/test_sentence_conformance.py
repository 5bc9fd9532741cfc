"""bench conformance through the example adapter: the emulated controller
speaking it passes the session layer's checks and the adapter's own link
checks, and each of the adapter's link misbehaviours fails the check that
covers it (docs/adapters.md section 8); the bench protocol's own link checks
are not run through it."""

from __future__ import annotations

import dataclasses

import pytest

from bench.adapters.registry import get_adapter
from bench.conformance.checks import LINK, SESSION
from bench.conformance.suite import FAIL, PASS, checks_for, controller_url, run_suite
from bench.rules.submission import default_rules

GAME = "lightning-dice"
RULES = default_rules(GAME, None)
ADAPTER = get_adapter("ascii-sentence")
# The protocol's timeouts, the response timeout shortened (the emulator is started with the same):
# the retransmission check then waits 1.3 s, not 3.2 s.
FAST = dataclasses.replace(ADAPTER.timeouts, response=0.3)


def suite(spec: str, only=lambda check: True):
    with controller_url(spec, GAME, FAST, ADAPTER) as url:
        return run_suite(url, game=GAME, rules=RULES, timeouts=FAST, adapter=ADAPTER, only=only)


def test_the_emulator_speaking_it_passes_every_check_that_applies():
    results = suite("emulated")
    assert [f"{r.id}: {r.detail}" for r in results if r.status != PASS] == []
    names = {r.check.name for r in results}
    assert {c.name for c in ADAPTER.conformance_checks()} <= names and "refuse-reasons" in names
    assert not any(c.layer == LINK and c.name in names for c in checks_for(None) if c not in ADAPTER.conformance_checks())
    assert all(c.layer == SESSION for c in checks_for(ADAPTER) if c not in ADAPTER.conformance_checks())


@pytest.mark.parametrize("misbehaviour,fails", [
    ("ignores-check", {"sentence-rejects-bad-check"}),
    ("never-naks", {"sentence-rejects-bad-check", "sentence-rejects-no-end"}),
    ("never-retransmits", {"sentence-retransmits"}),
    ("delivers-duplicates", {"sentence-duplicate"}),
])
def test_each_link_misbehaviour_fails_its_check(misbehaviour, fails):
    watched = fails | {"sentence-valid", "sentence-acks"}
    results = suite(f"emulated:link={misbehaviour}", only=lambda check: check.name in watched)
    assert {r.check.name for r in results if r.status == FAIL} == fails
    assert all("docs/adapters.md" in r.check.section for r in results)
