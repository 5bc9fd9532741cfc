"""The Lucky RNG's misbehaviours (bench.emulator.rng_misbehaviours) break
only 810a.5: every round's Lucky Numbers are lawful and a short session's
oracle finds nothing, while each draws what its summary says."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from bench.emulator import policy_for
from bench.emulator.misbehaviours import BATTERY_ONLY, MISBEHAVIOURS
from bench.rules import get_game
from bench.rules.submission import default_rules
from bench.session.mutation import Trial, trial

LD, LR = "lightning-dice", "lightning-roulette"
NAMES = sorted(BATTERY_ONLY)


def controller(game: str, name: str | None, seed: int = 1):
    return SimpleNamespace(game=get_game(game), rules=default_rules(game), seed=seed,
                           policy=policy_for(name, game, None))


def test_the_seven_are_named_and_kept_out_of_the_per_round_mutation_score():
    assert set(NAMES) == {"modulo-bias", "short-period-rng", "stuck-low-bit", "lucky-follows-previous",
                          "same-sequence-after-restart", "lucky-again-after-win", "lucky-favours-a-number"}
    assert not set(NAMES) & set(MISBEHAVIOURS)
    assert all(BATTERY_ONLY[n].clause.startswith("810a.5") for n in NAMES)


@pytest.mark.parametrize("game", [LD, LR])
@pytest.mark.parametrize("name", NAMES)
def test_every_round_of_each_is_lawful(name, game):
    ctrl = controller(game, name)
    for number in range(300):
        drawn = ctrl.policy.draw_lucky(ctrl, random.Random(f"1:lucky:{number}"))
        ctrl.game.check_lucky(drawn, ctrl.rules)            # raises RulesError when unlawful
        support = {pays for pays, p in ctrl.rules.lucky.pays_distribution(drawn[0].bet) if p > 0}
        assert drawn[0].pays in support


@pytest.mark.parametrize("game", [LD, LR])
def test_lucky_favours_a_number_makes_the_lowest_position_lucky_twice_as_often(game):
    ctrl, fair = controller(game, "lucky-favours-a-number"), controller(game, None)
    favoured = ctrl.rules.lucky.positions[0]
    rounds = 4000

    def rate(c) -> float:
        return sum(any(x.bet == favoured for x in c.policy.draw_lucky(c, random.Random(f"1:lucky:{n}")))
                   for n in range(rounds)) / rounds

    expected = float(ctrl.rules.lucky.lucky_probability(favoured))
    assert abs(rate(fair) - expected) < 0.25 * expected
    assert abs(rate(ctrl) - 2 * expected) < 0.25 * expected


@pytest.mark.parametrize("name", NAMES)
def test_a_short_session_of_each_passes_the_oracle(name):
    result = trial(Trial(name, LD, seed=3, rounds=30, in_process=True))
    assert result.first_round is None, f"{name}: the per-round oracle named {result.clauses}"


def test_each_is_named_where_a_misbehaviour_is_named(tmp_path):
    """bench emulate, bench run and pytest --controller emulated:NAME take the
    seven as they take the per-round ones (they refused them at first): a 3-round
    session of one passes every per-round rule, as its controller stays lawful."""
    import subprocess
    import sys

    from bench.commands.run import check_misbehaviour
    from bench.conformance.suite import emulator_args
    for name in NAMES:
        check_misbehaviour(name, LD)                                    # BenchError if refused
        assert ["--misbehave", name] == emulator_args(f"emulated:{name}", LD)[-4:-2]
    run = subprocess.run([sys.executable, "-m", "bench.cli", "run", "--rounds", "3", "--plant", "dice", "--seed", "5",
                          "--misbehave", "lucky-favours-a-number", "--out", str(tmp_path / "s")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
