"""Which regulation scenarios a game controller can be tested on, and why not
the others (``pytest features/ --controller URL``).

A scenario runs against a controller when every step is something the bench
can do or see on the link: place wagers, report the plant's reading, read the
controller's settlements. The feature files say which scenarios cannot, with
a tag ``@off-controller.REASON`` on the scenario (or on one Examples block):
it is about something no frame carries (the layout), judges an input the
scenario dictates to the rules engine (a Lucky Number announcement, a rules
submission, seeded draws, exact chances), pays the odds of a Lucky Number the
scenario dictates (the controller draws its own: 58 Pa. Code 625b.2(d)(2),
617c.3(d)), or reports a reading the protocol cannot carry. The rest is decided
by the controller under test: a scenario is deselected when it needs a game,
paytable or reading the controller does not run.

``plan(steps, readings, target, tags)`` takes a scenario's rendered steps as
``(type, text)`` pairs and its tags (the markers of its test item) and
returns a ``Plan``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping

import pytest

from bench.errors import RulesError
from bench.rules import game_titled

if TYPE_CHECKING:
    from bench.rules.submission import Rules

# Each scenario's wire logs, kept on its pytest item: the plugin writes them,
# the run's report links them.
WIRE_LOGS = pytest.StashKey[list]()

REASONS = {
    "layout": "about the layout, which no frame of the protocol describes",
    "dictated-announcement": "judges a Lucky Number announcement the scenario dictates; a controller draws its own "
                             "(the oracle judges those in every round)",
    "seeded-draws": "draws the rules engine's RNG by seed; a controller's RNG is not seeded by the bench",
    "submission": "validates a rules submission: a filing, not something a controller does",
    "exact-figures": "exact chances and returns: figures of the rules engine, not of a round",
    "dictated-lucky-pays": "expects the odds of a Lucky Number the scenario dictates; a controller draws its own "
                           "and the bench cannot impose them",
    "unencodable": "reports a reading the protocol cannot carry (a negative number)",
    "other-game": "plays a game the controller under test does not run",
    "other-rules": "needs a paytable or reading the controller's rules submission does not have",
    "misbehaviour-elsewhere": "the named misbehaviour does not apply to this game or paytable",
    "no-table": "opens no table",
}

OFF_CONTROLLER = "off-controller."     # the tag prefix; the rest is a key of REASONS
# "a Lightning Dice table", "a Sic Bo table using paytable A", "a Dice-Ology
# table using pay table 2": a game by its title (GameDescriptor.title), and
# the paytable in the regulation's own words.
TABLE = re.compile(r"^an? (?P<title>[A-Z][\w-]*(?: [A-Z][\w-]*)*) table(?: using pay ?table (?P<paytable>\S+))?$")
READING = re.compile(r'^the rules submission reads (?P<question>.+) as "(?P<reading>.+)"$')
PAID = [re.compile(r'^the wager on "(?P<bet>[^"]+)" wins and is paid \d+ to 1$'),
        re.compile(r'^the player receives (?P<amount>\d+) for the wager on "(?P<bet>[^"]+)"$')]


@dataclass(frozen=True)
class Target:
    """What the scenarios are played on: ``emulated`` (a controller started
    per game and rules, ``misbehave`` naming a breach) or one ``device``
    running ``game`` with ``rules``."""
    mode: str
    url: str | None = None
    misbehave: str | None = None
    game: str | None = None
    rules: Rules | None = None


@dataclass(frozen=True)
class Plan:
    reason: str | None = None                # a key of REASONS when the scenario is deselected
    detail: str = ""
    game: str | None = None
    paytable: str | None = None
    options: dict = field(default_factory=dict)
    plain_bets: frozenset = frozenset()      # paid at base odds: must carry no Lucky Number

    @property
    def runnable(self) -> bool:
        return self.reason is None


def plan(steps: Iterable[tuple[str, str]], readings: Mapping, target: Target,
         tags: Iterable[str] = ()) -> Plan:
    for tag in tags:
        if tag.startswith(OFF_CONTROLLER):
            reason = tag[len(OFF_CONTROLLER):]
            if reason not in REASONS:
                raise RulesError(f"unknown reason in the tag @{tag}; known: {', '.join(sorted(REASONS))}",
                                 field="tags")
            return Plan(reason, f"@{tag}")
    steps = [(kind, text.strip()) for kind, text in steps]
    game = paytable = None
    options: dict[str, str] = {}
    paid: set[str] = set()
    for _kind, text in steps:
        m = TABLE.match(text)
        if m:
            try:
                game, paytable = game_titled(m["title"]), m["paytable"]
            except RulesError:
                pass                   # not a game's table: the scenario's own step
        m = READING.match(text)
        if m:
            try:
                options.update(readings[m["question"]][m["reading"]])
            except KeyError:
                return Plan("other-rules", f"no rules option for the reading {text!r}")
        for pattern in PAID:
            m = pattern.match(text)
            if m and (m.groupdict().get("amount") is None or int(m["amount"]) > 0):
                paid.add(m["bet"])
    if game is None:
        return Plan("no-table")
    result = Plan(None, "", game, paytable, options, frozenset(paid))
    return _on_target(result, target)


def _on_target(p: Plan, target: Target) -> Plan:
    assert p.game is not None, "plan() puts on a target only a scenario with a table"
    if target.mode == "emulated":
        if target.misbehave:
            from bench.emulator.misbehaviours import policy_for
            try:
                policy_for(target.misbehave, p.game, p.paytable)
            except RulesError as err:
                return Plan("misbehaviour-elsewhere", str(err), p.game, p.paytable, p.options)
        return p
    from bench.rules import describe
    assert target.game is not None and target.rules is not None, \
        "a device's target names the game and rules it runs (bench.scenarios.plugin.target)"
    if p.game != describe(target.game).built_in:     # a game file's variant plays its base game's scenarios
        return Plan("other-game", f"{p.game}, the controller runs {target.game}", p.game)
    rules = target.rules
    if p.paytable is not None and str(p.paytable) != str(getattr(rules, "paytable", None)):
        return Plan("other-rules", f"paytable {p.paytable}, the controller's is {rules.paytable}", p.game)
    for name, value in p.options.items():
        if rules.options.get(name) != value:
            return Plan("other-rules", f"{name}: {value}, the controller's submission says {rules.options.get(name)}",
                        p.game)
    return p


# Where a test item keeps its scenario's plan (the pytest plugin sets it; its run report reads it).
PLAN = pytest.StashKey[Plan]()


def played_on_controller(item: pytest.Item) -> bool:
    """Whether a test item is a scenario of a feature played on a controller (its
    module says ``PLAYED_ON_CONTROLLER``)."""
    return bool(getattr(getattr(item, "module", None), "PLAYED_ON_CONTROLLER", False))
