"""The outcome kind owns how a round progresses (issue 43, item 2): the
oracle, the emulated controller and the round script ask the kind
(``bench.rules.outcome_kind``) what a no roll does and whether a round is one
throw or a series, and none of them branches on the kind itself.

A toy kind, registered for these tests only (``KINDS_BY_NAME``
monkeypatched, the game's descriptor naming it), changes one answer; the
three consumers, playing a round in process, follow it without an edit."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

from bench.emulator.controller import EmulatedController
from bench.oracle import Oracle
from bench.play.plant import Reading
from bench.play.round_script import NextRoll, RoundScript
from bench.rules import outcome_kind as kinds
from bench.rules import get_game
from bench.rules.submission import default_rules
from tests.bench.test_round_script import ScriptedController, play

ROOT = Path(__file__).resolve().parents[2]
GAME = "lightning-dice"
NOT_FLAT = Reading(dice=(5, 5, 1), flat=(False, False, False))    # no die flat: a no roll whatever the reading
FLAT = Reading(dice=(6, 4, 1), flat=(True, True, True))


class ThrownAgain(kinds.ThreeDice):
    """Three dice whose no roll is thrown again, never voids: a kind no
    shipped game has (Lightning Dice voids, 625b.2(d)(5))."""

    name = "toy-dice3-again"
    asked: ClassVar[list[str]] = []       # the modules that asked, in order

    def no_roll_ends_round(self) -> bool:
        self.asked.append(sys._getframe(1).f_globals["__name__"])
        return False


@pytest.fixture
def toy_kind(monkeypatch):
    """Lightning Dice with the toy kind, for this test only."""
    game = get_game(GAME)
    monkeypatch.setitem(kinds.KINDS_BY_NAME, ThrownAgain.name, ThrownAgain)
    monkeypatch.setattr(game, "descriptor", dataclasses.replace(game.descriptor, kind=ThrownAgain.name))
    ThrownAgain.asked.clear()
    yield ThrownAgain
    kinds.outcome_kind.cache_clear()


class Table(ScriptedController):
    """The round script's ``Talk`` wired straight to an in-process emulated
    controller, every frame both ways judged by the oracle."""

    def __init__(self, game: str, seed: int = 5):
        super().__init__()
        rules = default_rules(game)
        self.oracle = Oracle(game, rules)
        self.said: list[str] = []
        self.mono = 0.0
        session: Any = _Wire(self)          # the few Session methods the controller calls
        self.controller = EmulatedController(session, game=game, rules=rules, seed=seed)

    def _judge(self, direction, message):
        self.mono += 0.01
        self.oracle.observe(direction, message, self.mono)

    def heard(self, message):
        """The controller said ``message``."""
        self.said.append(message.type)
        self._judge("rx", message)
        self.queued.append(message)

    def send(self, type_, **fields):
        message = super().send(type_, **fields)
        self._judge("tx", message)
        self.controller.handle(message)
        return message

    def play_round(self, readings) -> RoundScript:
        """HELLO, one wager, then the round script from CLOSE to CLEARED, the plant reporting ``readings``."""
        self.send("HELLO", proto=2, role="bench", sw="tests/1", game=GAME, window=1)
        self.expect("HELLO")
        round_no = self.expect("OPEN")["round"]
        self.send("WAGER", round=round_no, id="w1", bet="low", stake=100)
        self.expect("ACCEPT")
        script = RoundScript(self, get_game(GAME).descriptor, round_no, accepted=["w1"])
        assert not [step for step in play(script, readings) if isinstance(step, NextRoll)]
        self.oracle.finish()
        return script

    def sensors(self) -> int:
        return [m.type for m in self.sent].count("SENSOR")


class _Wire:
    """The emulated controller's end of the link: what it sends, the table hears."""

    def __init__(self, table: Table):
        self.table = table
        self.version = 2

    def use_protocol(self, version, peer_window=None):
        self.version = version

    def flush(self):
        pass

    def send(self, message):
        self.table.heard(message)


def test_a_shipped_kind_voids_lightning_dice_on_a_no_roll():
    """Before the toy: Lightning Dice's kind ends the round on a no roll, every wager returned (625b.2(d)(5))."""
    table = Table(GAME)
    script = table.play_round([NOT_FLAT, FLAT])
    assert table.sensors() == 1 and script.no_roll and script.settled == {"w1": 100}
    assert table.oracle.violations == [] and [s.no_roll for s in table.oracle.rounds] == [True]


def test_the_emulator_the_round_script_and_the_oracle_follow_a_toy_kind(toy_kind):
    """The toy kind says a no roll is thrown again: the emulated controller
    commands the dice again, the round script sends the second reading, and
    the oracle judges the round on it with nothing to flag."""
    table = Table(GAME)
    script = table.play_round([NOT_FLAT, FLAT])
    assert table.sensors() == 2 and table.said.count("RELEASE") == 2
    assert table.said.index("NOROLL") < table.said.index("RESULT")
    assert not script.no_roll and script.finished
    assert table.oracle.violations == []
    [summary] = table.oracle.rounds
    assert summary.outcome == FLAT.dice and not summary.no_roll and summary.returned == summary.expected
    # each of them asked the kind, on the no roll
    assert {"bench.emulator.controller", "bench.play.round_script", "bench.oracle.judge"} <= set(toy_kind.asked)


# The kind's flags (gone: ask its questions), which kind it is, or a descriptor's shortcut to either.
CHECKS = re.compile(r"outcome\.series|can_no_roll|no_roll_voids|throws_in_series|descriptor\.(kind|no_roll)\s*[=!]="
                    r"|descriptor\.(rolls|pocket)\b|isinstance\([^)]*\b(ThreeDice|RollSeries|SingleZeroPocket)\b")


def test_no_capability_check_on_the_outcome_kind_remains_outside_bench_rules():
    """Outside bench/rules a consumer asks the kind a question
    (``no_roll_ends_round()``, ``throws_until_bets_resolve()``...); it never
    reads the kind's flags or tests which kind it is."""
    found = []
    for path in sorted(p for top in ("bench", "twin", "tablebench_io") for p in (ROOT / top).rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name.startswith("bench/rules/"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if CHECKS.search(line):
                found.append(f"{name}:{number}: {line.strip()}")
    assert found == []


def test_the_kind_compares_a_camera_s_call_with_the_truth():
    """What a recogniser sent is judged by the game's kind of outcome: the dice
    in any order, or the pocket; the oracle's recognition check and replay's
    words ask the kind, not whether the record holds dice or a pocket."""
    from bench.rules.registry import get_game
    dice = get_game("lightning-dice").descriptor.outcome
    wheel = get_game("lightning-roulette").descriptor.outcome
    truth = {"dice": [4, 1, 5], "flat": [True] * 3, "pocket": None}
    assert dice.camera_misread(truth, {**truth, "dice": [5, 4, 1]}) is None
    assert "showing [4, 1, 5]" in dice.camera_misread(truth, {**truth, "dice": [1, 1, 1]})
    assert dice.camera_shown(truth) == "dice [4, 1, 5] flat [True, True, True]"
    spun = {"dice": None, "flat": None, "pocket": 17}
    assert wheel.camera_misread(spun, dict(spun)) is None
    assert "pocket 0" in wheel.camera_misread(spun, {**spun, "pocket": 0}) and wheel.camera_shown(spun) == "pocket 17"
