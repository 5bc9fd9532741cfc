"""Every named misbehaviour does the unlawful thing it is named for, in a
round that exposes it, while the compliant controller in the same round
does not. (In-process over a socket pair: the same session and link code as
over TCP, without a process start per case.)"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from contextlib import contextmanager

import pytest

from bench.emulator import EmulatedController, MISBEHAVIOURS, policy_for
from bench.errors import RulesError
from bench.protocol.link import Link
from bench.protocol import BENCH, CONTROLLER, LinkClosed, Session
from bench.rules import get_game
from bench.rules.submission import default_rules
from tests.link.conftest import FAST, REPO, hello, of, play_round

FLAT3 = (True, True, True)
PAYTABLE = {"sic-bo": "A", "dice-ology": "1"}


@contextmanager
def controller(game: str, misbehave: str | None, seed: int = 21):
    rules = default_rules(game, PAYTABLE.get(game))
    a, b = socket.socketpair()
    ctl = Session(Link.from_socket(a, "controller end"), game, role=CONTROLLER, timeouts=FAST)
    emulated = EmulatedController(ctl, game=game, rules=rules, seed=seed,
                                  policy=policy_for(misbehave, game, rules.paytable))
    stop = threading.Event()

    def serve():
        try:
            emulated.serve(stop.is_set, 0.02)
        except LinkClosed:
            pass   # the bench hung up: the end of the test

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    bench = Session(Link.from_socket(b, "bench end"), game, role=BENCH, timeouts=FAST)
    try:
        yield bench
    finally:
        stop.set()
        b.close()
        thread.join(timeout=5)
        a.close()


def one_round(game, misbehave, wagers, readings, late=()):
    with controller(game, misbehave) as bench:
        _, opened = hello(bench, game)
        return play_round(bench, game, opened["round"], wagers, readings, late=late)


def returned(said, wager_id):
    return {m["id"]: m["returned"] for m in of(said, "SETTLE")}[wager_id]


def index(said, type_):
    return [m.type for m in said].index(type_)


def lucky_of(said):
    return of(said, "LUCKY")[0]["lucky"]


def check_lucky_clause(game, said) -> str | None:
    try:
        get_game(game).check_lucky(lucky_of(said), default_rules(game))
    except RulesError as err:
        return err.clause
    return None


def not_lucky_pocket(said):
    lucky = {x.bet for x in lucky_of(said)}
    return {"pocket": next(n for n in range(37) if f"straight:{n}" not in lucky)}


LD, LR, SB, DO = "lightning-dice", "lightning-roulette", "sic-bo", "dice-ology"
ALL_STRAIGHTS = [(f"s{n}", f"straight:{n}", 10) for n in range(37)]

# name -> (game, wagers, readings, late wagers, what shows the breach in the transcript)
CASES = {
    "five-lucky-numbers": (LD, [("w1", "low", 100)], [dict(dice=(1, 2, 3), flat=FLAT3)], (),
                           lambda said: len(lucky_of(said)) == 5),
    "lucky-odds-out-of-range": (LD, [("w1", "low", 100)], [dict(dice=(1, 2, 3), flat=FLAT3)], (),
                                lambda said: check_lucky_clause(LD, said) == "625b.2(g)(3)"),
    "pay-on-no-roll": (LD, [("w1", "total:11", 100)], [dict(dice=(5, 5, 1), flat=(True, False, True))], (),
                       lambda said: of(said, "NOROLL") and returned(said, "w1") != 100),
    "clear-before-settle": (LD, [("w1", "low", 100)], [dict(dice=(1, 2, 3), flat=FLAT3)], (),
                            lambda said: index(said, "CLEARED") < index(said, "SETTLE")),
    "lucky-before-no-more-bets": (LD, [("w1", "low", 100)], [dict(dice=(1, 2, 3), flat=FLAT3)], (),
                                  lambda said: index(said, "LUCKY") < index(said, "NOMORE")),
    "straight-up-35-to-1": (LR, ALL_STRAIGHTS, not_lucky_pocket, (),
                            lambda said: 360 in [m["returned"] for m in of(said, "SETTLE")]),
    "six-lucky-numbers": (LR, [("w1", "red", 100)], [dict(pocket=3)], (), lambda said: len(lucky_of(said)) == 6),
    "lucky-payout-not-listed": (LR, [("w1", "red", 100)], [dict(pocket=3)], (),
                                lambda said: check_lucky_clause(LR, said) == "617c.3(g)"),
    "small-wins-on-triple": (SB, [("w1", "small", 100)], [dict(dice=(2, 2, 2), flat=FLAT3)], (),
                             lambda said: returned(said, "w1") == 200),
    "one-of-a-kind-12-to-1": (SB, [("w1", "single:3", 100)], [dict(dice=(3, 3, 3), flat=FLAT3)], (),
                              lambda said: returned(said, "w1") == 1300),
    "little-ones-survive-seven": (DO, [("w1", "little-ones", 100)],
                                  [dict(roll=k + 1, dice=d, flat=(True, True)) for k, d in
                                   enumerate([(3, 4), (1, 1), (1, 2), (2, 2), (2, 3), (3, 3)])], (),
                                  lambda said: of(said, "RESULT")[0]["open"] == 1 and returned(said, "w1") > 0),
    "accept-late-wager": (LD, [("w1", "low", 100)], [dict(dice=(1, 2, 3), flat=FLAT3)], [("late", "high", 100)],
                          lambda said: "late" in [m["id"] for m in of(said, "ACCEPT")]),
}


def test_every_case_is_a_misbehaviour():
    """The first twelve, seen in the transcript; every one is judged by the oracle
    (tests/oracle/test_oracle_emulator.py) and by bench run (tests/bench/test_mutation_score.py)."""
    assert set(CASES) <= set(MISBEHAVIOURS)
    assert len(MISBEHAVIOURS) >= 12


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_misbehaviour_breaks_its_clause_and_the_compliant_controller_does_not(name):
    game, wagers, readings, late, breached = CASES[name]
    assert game in MISBEHAVIOURS[name].games
    assert breached(one_round(game, name, wagers, readings, late))
    assert not breached(one_round(game, None, wagers, readings, late))


def test_a_misbehaviour_for_another_game_is_refused_naming_its_game():
    with pytest.raises(RulesError, match="applies to lightning-roulette, not lightning-dice"):
        policy_for("six-lucky-numbers", LD, None)
    with pytest.raises(RulesError, match="needs Sic Bo paytable A"):
        policy_for("one-of-a-kind-12-to-1", SB, "B")


def test_help_lists_every_misbehaviour_with_its_clause():
    out = subprocess.run([sys.executable, "-m", "bench.cli", "emulate", "--help"], cwd=REPO,
                         capture_output=True, text=True, timeout=30).stdout
    for name, cls in MISBEHAVIOURS.items():
        line = next(line for line in out.splitlines() if line.strip().startswith(name + " "))
        assert cls.clause in line
