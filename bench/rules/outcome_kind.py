"""The kind of a game's outcome as one object: what the plant's reading and
the controller's RESULT carry on the wire, how a reading is checked, shown
and compared, which reading ends a round quietly, and how a round
progresses: what a no roll does, and whether one throw settles the round or
throws go on until every bet resolves (the questions under "how a round
progresses" below, which the oracle, the emulated controller, the round
script and the scenarios' table ask).

A game's descriptor names its kind (``GameDescriptor.kind``, a journal and
wire string) and its no-roll rule; ``GameDescriptor.outcome`` is the object
built from both. Everything outside ``bench/rules`` asks the object instead of
branching on the kind, so a new kind of outcome (a Big Six wheel, cards) is a
new class here and a game file, not an edit in the oracle, the emulator, the
scenario table and the conformance checks.

Three kinds:
- ``ThreeDice``: three dice at rest from one drop (Lightning Dice, 625b.2) or
  one shake (Sic Bo, 625a); a die not flat is a no roll, which voids the round
  (Lightning Dice, 625b.2(d)(5)) or has the dice shaken again (Sic Bo).
- ``RollSeries``: numbered two-dice rolls after the bets until every side bet
  resolves (Dice-Ology, S.D. 20:18:33:14); a cocked die is thrown again.
- ``SingleZeroPocket``: one pocket 0-36 of a single-zero wheel (Lightning
  Roulette, 617c.3); no ball lands "not flat", so there is no no roll.

Field types are named, not typed (``int``, ``ints``, ``flags``): the rules do
not import the protocol; ``bench.protocol.messages`` maps each name to its
field type.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Mapping

# Kinds of outcome, as the journal and the game files spell them.
DICE3 = "dice3"     # three dice at rest from one drop or shake
WHEEL = "wheel"     # one pocket of a single-zero wheel
CRAPS = "craps"     # numbered two-dice rolls until every side bet resolves

# What a "no roll" (a die not flat) does to the round.
NO_ROLL_VOIDS = "void"       # every wager returned, the round ends
NO_ROLL_AGAIN = "again"      # the dice are thrown again, the round goes on

# How a round progresses: the name each consumer (the oracle, the emulated
# controller, the scenario table) keeps its state machine for a round under.
ONE_THROW = "one-throw"      # one RESULT is the round's outcome and settles every wager
SERIES = "series"            # throws go on, each RESULT settling what it resolves, until no bet is open

_ROUND = ("round", "int")


@dataclass(frozen=True)
class OutcomeKind:
    """The behaviour every kind shares; each subclass sets the fields below
    and overrides what differs."""

    no_roll: str | None = None          # NO_ROLL_VOIDS, NO_ROLL_AGAIN or None (no die to cock)

    # Class constants (not dataclass fields): each kind sets its own.
    name: ClassVar[str] = ""                # DICE3, WHEEL or CRAPS
    dice_count: ClassVar[int] = 0           # dice read per throw (0: a pocket)
    progress: ClassVar[str] = ONE_THROW     # ONE_THROW or SERIES: how a round goes from command to SETTLED
    field: ClassVar[str] = ""               # what a scenario's outcome names: dice, pocket or rolls
    sensor_fields: ClassVar[tuple[tuple[str, str], ...]] = ()     # the SENSOR's fields, in wire order
    result_fields: ClassVar[tuple[tuple[str, str], ...]] = ()     # the RESULT's fields, in wire order
    widest_lucky: ClassVar[str] = ""        # the longest Lucky Number a frame may carry (the line budget)

    # -- how a round progresses ------------------------------------------
    # The oracle, the emulated controller, the round script and the scenario
    # table ask these; none of them branches on the kind itself.
    def calls_no_roll(self) -> bool:
        """Can the controller call a no roll (NOROLL): can a throw land with a die not flat?"""
        return self.no_roll is not None

    def no_roll_ends_round(self) -> bool:
        """After a no roll, is the round over with every wager returned
        (Lightning Dice, 625b.2(d)(5))? Else the plant is commanded again and
        the round goes on (Sic Bo shakes again, Dice-Ology throws again)."""
        return self.no_roll == NO_ROLL_VOIDS

    def throws_until_bets_resolve(self) -> bool:
        """Does a round go on throw after throw, each RESULT settling the
        wagers it resolves and saying how many are still open, until none is
        (a roll series)? Else the one RESULT is the round's outcome and
        settles every wager."""
        return self.progress == SERIES

    def command_problem(self, m, throws: int) -> str | None:
        """What is wrong with the controller's command to the plant (None:
        nothing), ``throws`` results into the round."""
        return None

    def summary_outcome(self, outcome, rolls: list):
        """What a round's summary records as its outcome: the one throw's
        ``outcome``, or the ``rolls`` of a series."""
        return outcome

    def due_no_roll(self, game, reading, rules) -> bool:
        """Is a no roll due for a SENSOR reading (its dice not lying flat as ``game`` requires)?"""
        return self.calls_no_roll() and bool(game.is_no_roll(tuple(reading["flat"]), rules))

    # -- the wire ----------------------------------------------------------
    def command_fields(self, throws: int) -> dict[str, Any]:
        """Fields of the plant's command after ``throws`` counted throws this round."""
        return {}

    def sensor(self, round_no: int, reading, roll: int | None = None) -> dict[str, Any]:
        """The SENSOR's fields for a plant reading (``roll``: the command's roll number)."""
        return {"round": round_no, "dice": list(reading.dice), "flat": list(reading.flat)}

    def check_reading(self, m, throws: int) -> str | None:
        """What is wrong with a SENSOR's reading (None: nothing), ``throws``
        counted throws into the round."""
        count = self.dice_count
        if len(m["dice"]) != count or len(m["flat"]) != count:
            return f"expected {count} dice and {count} flat flags, got {len(m['dice'])} and {len(m['flat'])}"
        if not all(1 <= face <= 6 for face in m["dice"]):
            return f"faces {m['dice']} are not all from 1 to 6"
        return None

    def outcome_of(self, m):
        """What a SENSOR or RESULT says the outcome is, to compare the two."""
        return tuple(m.get("dice") or ())

    def shown(self, m) -> str:
        """A SENSOR's or RESULT's outcome for a person."""
        return f"dice {list(m.get('dice') or ())}"

    def shown_reading(self, reading):
        """A plant reading as a scenario's error message shows it."""
        return list(reading.dice)

    def settled_outcome(self, reading):
        """A one-throw round's outcome from the reading the oracle settles on."""
        return tuple(reading["dice"])

    # -- a camera's call against the twin's truth (bench.oracle.recognition) -----
    # ``truth`` and ``sent`` are a camera plant record's readings: ``dice``,
    # ``flat`` and ``pocket``, the fields this kind does not read being None.
    def camera_shown(self, reading: Mapping[str, Any]) -> str:
        """A camera reading (the truth or what was sent) for a person."""
        return f"dice {reading.get('dice')} flat {reading.get('flat')}"

    def camera_misread(self, truth: Mapping[str, Any], sent: Mapping[str, Any]) -> str | None:
        """What a roll sent got wrong against the truth at rest (None: the same result)."""
        if sorted(truth.get("dice") or ()) == sorted(sent.get("dice") or ()):
            return None
        return f"the recogniser sent dice {sent.get('dice')}; the dice came to rest showing {truth.get('dice')}"

    def round_fields(self, outcome) -> dict[str, Any]:
        """The ``Round`` fields that hold a one-throw round's outcome."""
        return {"dice": None if outcome is None else tuple(outcome)}

    def of_round(self, round_):
        """The outcome a ``Round`` holds (its dice, pocket or rolls)."""
        return round_.dice

    # -- a scenario's outcome, and the quiet one -------------------------
    def readings(self, outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The plant's readings, in order, for a scenario's outcome (the
        keyword arguments of ``bench.play.plant.Reading``)."""
        dice = tuple(outcome["dice"])
        flat = (False,) * len(dice) if outcome.get("no_roll") else tuple(outcome.get("flat") or (True,) * len(dice))
        return [{"dice": dice, "flat": flat}]

    def quiet(self, quiet_outcome: Mapping[str, Any]) -> Mapping[str, Any]:
        """The outcome that finishes a round a scenario left: the game's quiet
        outcome, landed flat."""
        return {**quiet_outcome, "no_roll": False}

    def quiet_sensor(self, round_no: int, command) -> dict[str, Any]:
        """A lawful SENSOR that ends the round (the conformance checks' reading)."""
        return dict(round=round_no, dice=(6, 4, 1), flat=(True, True, True))

    # -- the largest frames (the line budget) ----------------------------
    def largest_sensor(self, round_no: int) -> dict[str, Any]:
        return dict(round=round_no, dice=(6,) * self.dice_count, flat=(True,) * self.dice_count)

    def largest_result(self, round_no: int) -> dict[str, Any]:
        return dict(round=round_no, dice=(6,) * self.dice_count)

    def largest_command(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class ThreeDice(OutcomeKind):
    """Three dice at rest (Lightning Dice 625b.2, Sic Bo 625a)."""

    name = DICE3
    dice_count = 3
    field = "dice"
    sensor_fields = (_ROUND, ("dice", "ints"), ("flat", "flags"))
    result_fields = (_ROUND, ("dice", "ints"))
    widest_lucky = "total:18"


@dataclass(frozen=True)
class RollSeries(OutcomeKind):
    """Numbered two-dice rolls after the bets until every side bet resolves
    (Dice-Ology, S.D. 20:18:33:14). A seven resolves every side bet: the quiet
    roll that ends a sequence is (3, 4)."""

    name = CRAPS
    dice_count = 2
    progress = SERIES
    field = "rolls"
    sensor_fields = (_ROUND, ("roll", "int"), ("dice", "ints"), ("flat", "flags"))
    # ``open``: how many side bets are still unresolved after this roll
    result_fields = (_ROUND, ("roll", "int"), ("dice", "ints"), ("open", "int"))
    widest_lucky = "total:18"
    SEVEN: ClassVar[tuple[int, int]] = (3, 4)                    # a seven ends it: every side bet resolves

    def command_fields(self, throws: int) -> dict[str, Any]:
        return {"roll": throws + 1}

    def sensor(self, round_no: int, reading, roll: int | None = None) -> dict[str, Any]:
        return {**super().sensor(round_no, reading), "roll": roll}

    def check_reading(self, m, throws: int) -> str | None:
        problem = super().check_reading(m, throws)
        if problem is None and m["roll"] != throws + 1:
            return f"reading for roll {m['roll']}, expected roll {throws + 1}"
        return problem

    def command_problem(self, m, throws: int) -> str | None:
        return None if m.get("roll") == throws + 1 else f"ROLL {m.get('roll')}, expected roll {throws + 1}"

    def summary_outcome(self, outcome, rolls: list):
        return tuple(rolls)

    def outcome_of(self, m):
        return (m.get("roll"), super().outcome_of(m))

    def shown(self, m) -> str:
        return f"roll {m.get('roll')} {super().shown(m)}"

    def shown_reading(self, reading):
        return "-".join(map(str, reading.dice))

    def of_round(self, round_):
        return round_.rolls

    def readings(self, outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [{"dice": tuple(dice), "flat": (True,) * len(dice)} for dice in outcome["rolls"]]

    def quiet(self, quiet_outcome: Mapping[str, Any]) -> Mapping[str, Any]:
        return {"rolls": [list(self.SEVEN)]}

    def quiet_sensor(self, round_no: int, command) -> dict[str, Any]:
        return dict(round=round_no, roll=command["roll"], dice=self.SEVEN, flat=(True, True))

    def quiet_readings(self, count: int) -> list[dict[str, Any]]:
        """Sevens, enough to settle every side bet still up."""
        return [{"dice": self.SEVEN, "flat": (True, True)} for _ in range(count)]

    def largest_sensor(self, round_no: int) -> dict[str, Any]:
        return {**super().largest_sensor(round_no), "roll": 99}

    def largest_result(self, round_no: int) -> dict[str, Any]:
        return dict(round=round_no, roll=99, dice=(6, 6), open=3)

    def largest_command(self) -> dict[str, Any]:
        return {"roll": 99}


@dataclass(frozen=True)
class SingleZeroPocket(OutcomeKind):
    """One pocket of a single-zero wheel, 0-36 (Lightning Roulette 617c.3)."""

    name = WHEEL
    field = "pocket"
    sensor_fields = (_ROUND, ("pocket", "int"))
    result_fields = (_ROUND, ("pocket", "int"))
    widest_lucky = "straight:36"
    POCKETS: ClassVar[int] = 37

    def due_no_roll(self, game, reading, rules) -> bool:
        return False

    def sensor(self, round_no: int, reading, roll: int | None = None) -> dict[str, Any]:
        return {"round": round_no, "pocket": reading.pocket}

    def check_reading(self, m, throws: int) -> str | None:
        return None if 0 <= m["pocket"] < self.POCKETS else f"pocket {m['pocket']} is not on a single-zero wheel"

    def camera_shown(self, reading: Mapping[str, Any]) -> str:
        return f"pocket {reading.get('pocket')}"

    def camera_misread(self, truth: Mapping[str, Any], sent: Mapping[str, Any]) -> str | None:
        if truth.get("pocket") == sent.get("pocket"):
            return None
        return f"the recogniser sent pocket {sent.get('pocket')}; the ball came to rest in pocket {truth.get('pocket')}"

    def outcome_of(self, m):
        return m.get("pocket")

    def shown(self, m) -> str:
        return f"pocket {m.get('pocket')}"

    def shown_reading(self, reading):
        return reading.pocket

    def settled_outcome(self, reading):
        return reading["pocket"]

    def round_fields(self, outcome) -> dict[str, Any]:
        return {"pocket": outcome}

    def of_round(self, round_):
        return round_.pocket

    def readings(self, outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [{"pocket": outcome["pocket"]}]

    def quiet_sensor(self, round_no: int, command) -> dict[str, Any]:
        return dict(round=round_no, pocket=17)

    def largest_sensor(self, round_no: int) -> dict[str, Any]:
        return dict(round=round_no, pocket=self.POCKETS - 1)

    def largest_result(self, round_no: int) -> dict[str, Any]:
        return dict(round=round_no, pocket=self.POCKETS - 1)


KINDS_BY_NAME: dict[str, type[OutcomeKind]] = {kind.name: kind for kind in (ThreeDice, SingleZeroPocket, RollSeries)}
KINDS = (DICE3, WHEEL, CRAPS)


@lru_cache(maxsize=None)
def outcome_kind(name: str, no_roll: str | None = None) -> OutcomeKind:
    """The outcome kind ``name`` with a game's no-roll rule."""
    return KINDS_BY_NAME[name](no_roll=no_roll)


__all__ = ["CRAPS", "DICE3", "KINDS", "KINDS_BY_NAME", "NO_ROLL_AGAIN", "NO_ROLL_VOIDS", "ONE_THROW", "OutcomeKind",
           "RollSeries", "SERIES", "SingleZeroPocket", "ThreeDice", "WHEEL", "outcome_kind"]
