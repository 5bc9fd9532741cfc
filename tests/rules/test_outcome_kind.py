"""The kind of outcome as an object (bench.rules.outcome_kind): what each
game's SENSOR and RESULT carry, which readings a controller must refuse, what a
no roll does, and that the quiet reading the bench finishes a round with does
finish it."""

import random

import pytest

from bench.protocol.messages import spec_for
from bench.rules import Round, Wager, describe, get_game
from bench.rules.submission import default_rules

GAMES = ("lightning-dice", "sic-bo", "lightning-roulette", "dice-ology")

# The wire contract (docs/protocol.md): a journal's frames keep these names in this order.
WIRE = {
    "lightning-dice": (("round", "dice", "flat"), ("round", "dice")),
    "sic-bo": (("round", "dice", "flat"), ("round", "dice")),
    "lightning-roulette": (("round", "pocket"), ("round", "pocket")),
    "dice-ology": (("round", "roll", "dice", "flat"), ("round", "roll", "dice", "open")),
}


@pytest.mark.parametrize("game", GAMES)
def test_sensor_and_result_carry_the_kinds_fields_in_wire_order(game):
    sensor, result = WIRE[game]
    assert tuple(name for name, _ in spec_for("SENSOR", game).required) == sensor
    assert tuple(name for name, _ in spec_for("RESULT", game).required) == result


@pytest.mark.parametrize("game, used, unused", [
    ("lightning-dice", {"RELEASE", "NOROLL", "LUCKY"}, {"SPIN", "ROLL"}),
    ("sic-bo", {"RELEASE", "NOROLL"}, {"SPIN", "ROLL", "LUCKY"}),
    ("lightning-roulette", {"SPIN", "LUCKY"}, {"RELEASE", "ROLL", "NOROLL"}),
    ("dice-ology", {"ROLL", "NOROLL"}, {"RELEASE", "SPIN", "LUCKY"}),
])
def test_each_game_uses_its_own_command_and_no_other(game, used, unused):
    for type_ in used:
        spec_for(type_, game)
    for type_ in unused:
        with pytest.raises(LookupError, match=f"{type_} is not a message of {game}"):
            spec_for(type_, game)


def test_what_a_no_roll_does_is_the_games():
    assert describe("lightning-dice").outcome.no_roll_ends_round()      # 625b.2(d)(5): every wager returned
    assert not describe("sic-bo").outcome.no_roll_ends_round()          # shaken again
    assert not describe("dice-ology").outcome.no_roll_ends_round()      # thrown again
    assert not describe("lightning-roulette").outcome.calls_no_roll()   # a ball has no face to cock


@pytest.mark.parametrize("game, reading, throws, problem", [
    ("lightning-dice", {"dice": (1, 2, 7), "flat": (True,) * 3}, 0, "not all from 1 to 6"),
    ("sic-bo", {"dice": (1, 2), "flat": (True, True)}, 0, "expected 3 dice"),
    ("lightning-roulette", {"pocket": 37}, 0, "not on a single-zero wheel"),
    ("dice-ology", {"roll": 3, "dice": (1, 2), "flat": (True, True)}, 1, "expected roll 2"),
    ("dice-ology", {"roll": 2, "dice": (1, 2), "flat": (True, True)}, 1, None),
    ("lightning-roulette", {"pocket": 0}, 0, None),
])
def test_a_reading_the_protocol_carries_but_no_plant_could_show_is_named(game, reading, throws, problem):
    found = describe(game).outcome.check_reading(reading, throws)
    assert found == problem if problem is None else problem in found


@pytest.mark.parametrize("game", GAMES)
def test_the_quiet_reading_settles_every_bet(game):
    """The bench finishes a round a scenario left with the kind's quiet
    reading (Dice-Ology: a seven, which resolves every side bet,
    S.D. 20:18:33:14): no wager may stay open after it."""
    descriptor, rules = describe(game), default_rules(game, describe(game).default_paytable)
    outcome = descriptor.outcome
    wagers = [Wager(f"w{i}", bet, 100) for i, bet in enumerate(get_game(game).bet_names(rules))]
    readings = outcome.readings(outcome.quiet(descriptor.quiet_outcome))
    paytable = None if rules.paytable is None else str(rules.paytable)
    if outcome.throws_until_bets_resolve():
        round_ = Round(game, rolls=tuple(tuple(r["dice"]) for r in readings), paytable=paytable)
        sensor = outcome.quiet_sensor(1, {"roll": 1})
        assert [tuple(sensor["dice"])] == [tuple(r["dice"]) for r in readings] \
            == [tuple(r["dice"]) for r in outcome.quiet_readings(1)]
    else:
        [reading] = readings
        assert all(reading.get("flat") or (True,))
        fields = outcome.round_fields(reading.get("pocket", reading.get("dice")))
        lucky = tuple(get_game(game).draw_lucky(rules, random.Random(1))) if descriptor.lightning else ()
        round_ = Round(game, **fields, paytable=paytable, lucky=lucky)
    settlements = get_game(game).settle(round_, wagers, rules)
    assert len(settlements) == len(wagers) and not [s.wager_id for s in settlements if s.open]
