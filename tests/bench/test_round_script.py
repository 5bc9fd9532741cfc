"""The one round script both bench drivers play (bench.play.round_script): the
order of the bench's messages, what it hands its driver, and what it takes
from the controller, against a scripted controller (no link, no process)."""

from collections import deque

import pytest

from bench.play.plant import Reading
from bench.protocol import make
from bench.play.round_script import LateWager, NoResult, Pause, ReadingWanted, RoundScript
from bench.rules import Lucky, describe


class NoReply(Exception):
    pass


class ScriptedController:
    """``Talk`` over a queue of the controller's messages: ``expect`` takes
    the first queued one of the wanted types (as the session's inbox does)."""

    def __init__(self, *messages):
        self.queued = deque(messages)
        self.sent = []

    def send(self, type_, **fields):
        message = make(type_, **fields)
        self.sent.append(message)
        return message

    def expect(self, *types):
        for message in self.queued:
            if message.type in types:
                self.queued.remove(message)
                return message
        raise NoReply(f"no {types} queued")

    def reply_to(self, wager_id):
        for message in self.queued:
            if message.type in ("ACCEPT", "REFUSE") and message["id"] == wager_id:
                self.queued.remove(message)
                return message
        raise NoReply(f"no reply to {wager_id}")


def play(script, readings):
    """Drive the script as a driver would: the readings in order, every pause noted."""
    steps, answer, seen = script.steps(), None, []
    readings = deque(readings)
    while True:
        try:
            step = steps.send(answer)
        except StopIteration:
            return seen
        seen.append(step)
        answer = readings.popleft() if isinstance(step, ReadingWanted) else None


def test_a_lightning_dice_round_goes_close_to_cleared_in_the_protocols_order():
    r = 4
    controller = ScriptedController(
        make("NOMORE", round=r), make("REFUSE", round=r, id="late", reason="betting-closed", clause="625b.2(d)(1)"),
        make("LUCKY", round=r, lucky=[Lucky("total:10", 50), Lucky("total:11", 99)]),
        make("RELEASE", round=r), make("RESULT", round=r, dice=[4, 5, 1]),
        # SETTLED may come before the last SETTLE's turn is taken: any order
        make("SETTLE", round=r, id="a", returned=5000 + 100), make("SETTLED", round=r),
        make("SETTLE", round=r, id="b", returned=0), make("CLEARED", round=r))
    script = RoundScript(controller, describe("lightning-dice"), r, late_wager=LateWager("late", "total:10", 100),
                         accepted=["a", "b"])
    steps = play(script, [Reading(dice=(4, 5, 1), flat=(True, True, True))])

    assert [m.type for m in controller.sent] == ["CLOSE", "WAGER", "TRIGGER", "SENSOR"]
    assert controller.sent[3].fields == {"round": r, "dice": [4, 5, 1], "flat": [True, True, True]}
    assert [type(s).__name__ for s in steps] == ["Pause", "ReadingWanted", "Pause"]
    assert [s.phase for s in steps if isinstance(s, Pause)] == ["lucky", "result"]
    assert [x.bet for x in script.lucky] == ["total:10", "total:11"]
    assert script.late_reply.type == "REFUSE" and not script.unsettled
    assert script.settled == {"a": 5100, "b": 0}
    assert script.closing == ["SETTLE", "SETTLED", "SETTLE", "CLEARED"] and script.finished
    assert not controller.queued


def test_a_lightning_dice_no_roll_ends_the_round_and_an_accepted_late_wager_is_owed_a_settlement():
    r = 2
    controller = ScriptedController(
        make("NOMORE", round=r), make("ACCEPT", round=r, id="late"),
        make("LUCKY", round=r, lucky=[Lucky("total:10", 50), Lucky("total:11", 99)]),
        make("RELEASE", round=r), make("NOROLL", round=r),
        make("SETTLE", round=r, id="late", returned=100), make("SETTLED", round=r), make("CLEARED", round=r))
    script = RoundScript(controller, describe("lightning-dice"), r, late_wager=LateWager("late", "low", 100))
    steps = play(script, [Reading(dice=(4, 5, 1), flat=(True, False, True))])
    assert script.no_roll and sum(isinstance(s, ReadingWanted) for s in steps) == 1
    assert script.settled == {"late": 100} and not script.unsettled


def test_sic_bo_shakes_again_after_a_no_roll_and_asks_for_a_second_reading():
    r = 7
    controller = ScriptedController(
        make("NOMORE", round=r), make("RELEASE", round=r), make("NOROLL", round=r),
        make("RELEASE", round=r), make("RESULT", round=r, dice=[2, 2, 2]),
        make("SETTLED", round=r), make("CLEARED", round=r))
    script = RoundScript(controller, describe("sic-bo"), r)
    steps = play(script, [Reading(dice=(2, 2, 2), flat=(False, True, True)),
                          Reading(dice=(2, 2, 2), flat=(True, True, True))])
    assert [s.attempt for s in steps if isinstance(s, ReadingWanted)] == [0, 1]
    assert [m.type for m in controller.sent] == ["CLOSE", "TRIGGER", "SENSOR", "SENSOR"]
    assert not any(isinstance(s, Pause) and s.phase == "lucky" for s in steps)   # not a lightning game


def test_a_refused_reading_is_asked_for_again_with_the_controllers_error():
    r = 1
    controller = ScriptedController(
        make("NOMORE", round=r), make("LUCKY", round=r, lucky=[Lucky("straight:17", 499)]),
        make("SPIN", round=r), make("ERROR", code="bad-sensor", round=r, detail="pocket"),
        make("RESULT", round=r, pocket=17), make("SETTLED", round=r), make("CLEARED", round=r))
    script = RoundScript(controller, describe("lightning-roulette"), r)
    steps = play(script, [Reading(pocket=40), Reading(pocket=17)])
    asked = [s for s in steps if isinstance(s, ReadingWanted)]
    assert [a.refused is not None for a in asked] == [False, True]
    assert asked[1].refused["code"] == "bad-sensor"
    assert [m.get("pocket") for m in controller.sent if m.type == "SENSOR"] == [40, 17]


def test_dice_ology_hands_each_open_roll_to_its_driver_and_numbers_the_sensor_by_the_roll():
    r = 3
    controller = ScriptedController(
        make("NOMORE", round=r),
        make("ROLL", round=r, roll=1), make("RESULT", round=r, roll=1, dice=[2, 2], open=1),
        make("ROLL", round=r, roll=2), make("RESULT", round=r, roll=2, dice=[3, 4], open=0),
        make("SETTLE", round=r, id="x", returned=0), make("SETTLED", round=r), make("CLEARED", round=r))
    script = RoundScript(controller, describe("dice-ology"), r, accepted=["x"])
    steps = play(script, [Reading(dice=(2, 2), flat=(True, True)), Reading(dice=(3, 4), flat=(True, True))])
    assert [type(s).__name__ for s in steps if not isinstance(s, Pause)] == ["ReadingWanted", "NextRoll",
                                                                            "ReadingWanted"]
    assert [m.type for m in controller.sent] == ["CLOSE", "TRIGGER", "SENSOR", "TRIGGER", "SENSOR"]
    assert [m["roll"] for m in controller.sent if m.type == "SENSOR"] == [1, 2]
    assert script.settled == {"x": 0}


def test_a_controller_that_never_ends_the_round_is_given_up_after_max_attempts(monkeypatch):
    import bench.play.round_script as round_script
    monkeypatch.setattr(round_script, "MAX_ATTEMPTS", 3)
    r = 5
    controller = ScriptedController(make("NOMORE", round=r),
                                    *[m for _ in range(3) for m in (make("RELEASE", round=r), make("NOROLL", round=r))])
    script = RoundScript(controller, describe("sic-bo"), r)
    with pytest.raises(NoResult, match="no result after 3 releases"):
        play(script, [Reading(dice=(1, 2, 3), flat=(False, True, True))] * 3)


def test_a_reply_that_does_not_come_raises_the_drivers_own_error():
    controller = ScriptedController()          # says nothing
    script = RoundScript(controller, describe("lightning-dice"), 1)
    with pytest.raises(NoReply):
        play(script, [])
    assert [m.type for m in controller.sent] == ["CLOSE"]


def test_the_settlement_of_a_voided_earlier_round_is_not_taken_for_this_rounds():
    """After a RESET or a new HELLO the controller settles and clears the
    round it voided while the bench has moved on: its SETTLED and CLEARED,
    queued first, must not end this round early."""
    r = 9
    controller = ScriptedController(
        make("SETTLE", round=r - 1, id="old", returned=100), make("SETTLED", round=r - 1),
        make("CLEARED", round=r - 1),
        make("NOMORE", round=r), make("RELEASE", round=r), make("RESULT", round=r, dice=[1, 2, 3]),
        make("SETTLE", round=r, id="a", returned=0), make("SETTLED", round=r), make("CLEARED", round=r))
    script = RoundScript(controller, describe("sic-bo"), r, accepted=["a"])
    play(script, [Reading(dice=(1, 2, 3), flat=(True, True, True))])
    assert script.settled == {"a": 0} and script.finished
    assert script.stale == ["SETTLE", "SETTLED", "CLEARED"]
    assert not controller.queued          # this round's own SETTLED and CLEARED were taken
