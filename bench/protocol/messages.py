"""The message set of the protocol (versions 1 and 2 share it; version 2 adds
only HELLO's optional ``window``): who sends each message, and its fields
with their types. SENSOR's and RESULT's fields are the game's kind of outcome's
(``bench.rules.outcome_kind``: three dice, a wheel, two-dice rolls), and which
games use a message is asked of the game's descriptor, so nothing here branches
on a kind.

The schema checks form only (a field is present and is an integer); whether
the value is lawful (dice 1..6, Lucky odds in range, the order of a round) is
the controller's and the oracle's business, so that a non-compliant controller
can be *heard* saying something unlawful. See docs/protocol.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping
from urllib.parse import quote, unquote

from bench.rules import describe
from bench.rules.base import Lucky

PROTOCOL_VERSIONS = (1, 2)      # every version this implementation speaks
PROTOCOL_VERSION = max(PROTOCOL_VERSIONS)   # the one it offers first

BENCH = "bench"        # plays the players, the dealer and the plant
CONTROLLER = "controller"  # the game controller under test
BOTH = "both"

TOKEN_CHARS = "A-Za-z0-9._:@/+()-"
_TOKEN = re.compile(f"[{TOKEN_CHARS}]{{1,48}}")
_INT = re.compile(r"(0|[1-9][0-9]{0,14})")
MAX_INT = 10**15 - 1          # the largest integer a field carries (15 decimal digits)
_TOKEN_SAFE = "._:@/+()-"  # punctuation quote() leaves alone in a TEXT value


class FieldError(ValueError):
    """A field value that does not parse; the message names the field."""


@dataclass(frozen=True)
class FieldType:
    name: str                           # as the docs call it
    parse: Callable[[str], Any]
    render: Callable[[Any], str]


def _parse_int(text: str) -> int:
    # (0|[1-9][0-9]{0,14}) without a regex: the commonest field of all
    if not (text.isascii() and text.isdigit()) or len(text) > 15 or (text[0] == "0" and len(text) > 1):
        raise FieldError(f"expected a non-negative decimal integer, got {text!r}")
    return int(text)


def _parse_token(text: str) -> str:
    if not _TOKEN.fullmatch(text):
        raise FieldError(f"expected 1-48 characters from [{TOKEN_CHARS}], got {text!r}")
    return text


def is_token(text: str) -> bool:
    """Can ``text`` travel as a token field?"""
    return bool(_TOKEN.fullmatch(text))


def _parse_text(text: str) -> str:
    if not re.fullmatch(f"[%{TOKEN_CHARS}]*", text):
        raise FieldError(f"expected percent-encoded text, got {text!r}")
    try:
        return unquote(text, errors="strict")
    except UnicodeDecodeError:
        raise FieldError(f"percent-encoding is not UTF-8: {text!r}") from None


def _parse_ints(text: str) -> tuple[int, ...]:
    if not text:
        raise FieldError("expected a comma-separated list of integers, got nothing")
    return tuple(_parse_int(part) for part in text.split(","))


def _parse_flags(text: str) -> tuple[bool, ...]:
    if not re.fullmatch(r"[01](,[01])*", text):
        raise FieldError(f"expected a comma-separated list of 0 and 1, got {text!r}")
    return tuple(part == "1" for part in text.split(","))


def _parse_flag(text: str) -> bool:
    if text not in ("0", "1"):
        raise FieldError(f"expected 0 or 1, got {text!r}")
    return text == "1"


def _parse_lucky(text: str) -> tuple[Lucky, ...]:
    entries = []
    for part in text.split(","):
        bet, at, pays = part.rpartition("@")
        if not at or not bet:
            raise FieldError(f"expected BET@PAYS entries separated by commas, got {part!r}")
        entries.append(Lucky(bet=_parse_token(bet), pays=_parse_int(pays)))
    if len(entries) > 12:
        raise FieldError(f"more than 12 Lucky Numbers ({len(entries)})")
    return tuple(entries)


INT = FieldType("integer", _parse_int, lambda v: str(int(v)))
TOKEN = FieldType("token", _parse_token, str)
TEXT = FieldType("text", _parse_text, lambda v: quote(str(v), safe=_TOKEN_SAFE))
INTS = FieldType("integer list", _parse_ints, lambda v: ",".join(str(int(x)) for x in v))
FLAGS = FieldType("flag list", _parse_flags, lambda v: ",".join("1" if x else "0" for x in v))
FLAG = FieldType("flag", _parse_flag, lambda v: "1" if v else "0")
LUCKY = FieldType("lucky list", _parse_lucky, lambda v: ",".join(f"{x.bet}@{int(x.pays)}" for x in v))


# Which games use a message (``Spec.only``), asked of the game's descriptor.
LIGHTNING = "lightning"     # a game that reveals Lucky Numbers
COMMAND = "command"         # the game whose plant command this is (RELEASE, SPIN, ROLL)
NO_ROLL = "no-roll"         # a game whose outcome can be a no roll (a die not flat)


@dataclass(frozen=True)
class Spec:
    """One message type: its sender, required and optional fields, and the
    games that use it (``only``: LIGHTNING, COMMAND or NO_ROLL; None: every game)."""

    type: str
    sender: str
    required: tuple[tuple[str, FieldType], ...] = ()
    optional: tuple[tuple[str, FieldType], ...] = ()
    only: str | None = None
    meaning: str = ""

    def used_by(self, descriptor) -> bool:
        """Does the game ``descriptor`` describes use this message?"""
        return {None: True, LIGHTNING: descriptor.lightning, COMMAND: descriptor.command == self.type,
                NO_ROLL: descriptor.outcome.calls_no_roll()}[self.only]

    def field_types(self) -> dict[str, FieldType]:
        return dict(self.required + self.optional)


R = ("round", INT)
# The field types an outcome kind names (bench.rules.outcome_kind): SENSOR's and
# RESULT's fields are the kind's, the rules not importing the protocol.
FIELD_TYPES = {"int": INT, "ints": INTS, "flags": FLAGS}


def _typed(fields: tuple[tuple[str, str], ...]) -> tuple[tuple[str, FieldType], ...]:
    return tuple((name, FIELD_TYPES[type_name]) for name, type_name in fields)


# (type, sender, required per kind or for all, optional, kinds, meaning)
_SPECS: list[Spec] = [
    Spec("HELLO", BOTH, (("proto", INT), ("role", TOKEN), ("sw", TOKEN), ("game", TOKEN)),
         (("paytable", TOKEN), ("rules", TOKEN), ("seed", INT), ("window", INT)),
         meaning="protocol version, role, software version and game (version 2: the sender's receive "
                 "window); starts (or restarts) a session"),
    Spec("ACK", BOTH, meaning="the frame with this sequence number arrived intact"),
    Spec("NAK", BOTH, (("reason", TOKEN),),
         meaning="a damaged frame arrived; the sequence number is the last one accepted"),
    Spec("ERROR", BOTH, (("code", TOKEN),), (("round", INT), ("detail", TEXT)),
         meaning="a well-formed message that could not be acted on"),
    Spec("RESET", BOTH, (("reason", TOKEN),), (("round", INT),),
         meaning="the sender resets (controller) or asks for a reset (bench); the round in flight is void"),
    Spec("OPEN", CONTROLLER, (R,), meaning="betting is open for this round"),
    Spec("WAGER", BENCH, (R, ("id", TOKEN), ("bet", TOKEN), ("stake", INT)),
         meaning="a player places a wager (stake in minor units)"),
    Spec("ACCEPT", CONTROLLER, (R, ("id", TOKEN)), meaning="the wager is accepted"),
    Spec("REFUSE", CONTROLLER, (R, ("id", TOKEN), ("reason", TOKEN)), (("clause", TOKEN),),
         meaning="the wager is refused, with why"),
    Spec("CLOSE", BENCH, (R,), meaning="the dealer calls no more bets (the betting time has expired)"),
    Spec("NOMORE", CONTROLLER, (R,), meaning="no more bets: betting is closed"),
    Spec("LUCKY", CONTROLLER, (R, ("lucky", LUCKY)), only=LIGHTNING,
         meaning="the Lucky Numbers and their enhanced odds, BET@PAYS meaning PAYS to 1"),
    Spec("TRIGGER", BENCH, (R,), meaning="the dealer triggers the drop, the spin or the throw"),
    Spec("RELEASE", CONTROLLER, (R,), only=COMMAND,
         meaning="command to the tower (shaker): release the dice"),
    Spec("SPIN", CONTROLLER, (R,), only=COMMAND, meaning="command to the wheel: spin"),
    Spec("ROLL", CONTROLLER, (R, ("roll", INT)), only=COMMAND,
         meaning="command to the shooter: throw roll number ROLL"),
    Spec("SENSOR", BENCH, meaning="the plant's reading: faces and flatness of each die, or the pocket"),
    Spec("RESULT", CONTROLLER, meaning="the outcome the controller established"),
    Spec("NOROLL", CONTROLLER, (R,), only=NO_ROLL,
         meaning="a die did not land flat: no roll"),
    Spec("SETTLE", CONTROLLER, (R, ("id", TOKEN), ("returned", INT)),
         meaning="one wager settled: everything handed back, stake included (0 for a loss)"),
    Spec("SETTLED", CONTROLLER, (R, ("wagers", INT), ("returned", INT)), (("void", FLAG),),
         meaning="every wager of the round is settled: how many, and the total returned"),
    Spec("CLEARED", CONTROLLER, (R,), meaning="dice removed from the tray to the top (ball retrieved): ready"),
    # The test-mode exchange of the Lucky RNG's output, outside play (docs/protocol.md, "Raw RNG output";
    # 58 Pa. Code 810a.5: a laboratory tests the raw output before scaling and the scaled values).
    Spec("RNGREQ", BENCH, (("kind", TOKEN), ("count", INT)), (("range", INT),),
         meaning="test mode: the next COUNT raw 32-bit words (kind=raw) or values scaled onto 0..RANGE-1 "
                 "(kind=scaled) of the Lucky RNG"),
    Spec("RNGDATA", CONTROLLER, (("kind", TOKEN), ("count", INT), ("values", INTS)), (("range", INT),),
         meaning="test mode: the values asked for, in the order the generator made them"),
]
SPECS: dict[str, Spec] = {spec.type: spec for spec in _SPECS}
# The controller's command to its plant, one for each kind of game: whichever
# answers the bench's TRIGGER (docs/protocol.md; which one was due, the oracle judges).
COMMANDS = ("RELEASE", "SPIN", "ROLL")


def spec_for(type_: str, game: str) -> Spec:
    """The spec of ``type_`` as ``game`` uses it (SENSOR and RESULT differ per kind).
    Raises KeyError for an unknown type, LookupError if the game does not use it."""
    spec = SPECS[type_]
    descriptor = describe(game)
    if not spec.used_by(descriptor):
        raise LookupError(f"{type_} is not a message of {game}")
    if type_ == "RESULT":
        return Spec(type_, spec.sender, _typed(descriptor.outcome.result_fields), meaning=spec.meaning)
    if type_ == "SENSOR":
        return Spec(type_, spec.sender, _typed(descriptor.outcome.sensor_fields), meaning=spec.meaning)
    return spec


@dataclass(frozen=True, slots=True)     # slots: a third cheaper to make, and one is made per frame
class Message:
    """A decoded message: its type, its typed fields, and (once on the wire)
    its sequence number."""

    type: str
    fields: Mapping[str, Any] = field(default_factory=dict)
    seq: int | None = None

    def __getitem__(self, name: str) -> Any:
        return self.fields[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    @property
    def round(self) -> int | None:
        return self.fields.get("round")

    def as_dict(self) -> dict:
        """Plain JSON-able data, for a journal."""
        out: dict[str, Any] = {"type": self.type}
        if self.seq is not None:
            out["seq"] = self.seq
        for name, value in self.fields.items():
            if isinstance(value, tuple) and value and isinstance(value[0], Lucky):
                value = [{"bet": x.bet, "pays": x.pays} for x in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[name] = value
        return out


def make(type_: str, **fields: Any) -> Message:
    return Message(type_, dict(fields))
