"""The ASCII sentence protocol's commands and their fields, mapped onto the
bench's messages both ways (docs/adapters.md, section 3).

Every bench message has one command of three letters and its fields in a
fixed order; an optional field left out is an empty field (``||``). Who may
send a command, and which games use it, are the bench's own rules
(``bench.protocol.messages.spec_for``): the sentence protocol carries the
same events, in other words.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from bench.adapters.sentence import codes
from bench.protocol.messages import FLAG, INT, TEXT, TOKEN, FieldError
from bench.rules import describe
from bench.rules.base import Lucky


class Field(NamedTuple):
    name: str
    render: Callable[[Any], str]
    parse: Callable[[str], Any]
    optional: bool = False


def _faces_render(values) -> str:
    values = tuple(values)
    if not values or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 9 for v in values):
        raise ValueError(f"faces {values!r} cannot be written as one digit each")
    return "".join(map(str, values))


def _faces_parse(text: str) -> tuple[int, ...]:
    if not text or not text.isdigit() or not text.isascii():
        raise FieldError(f"expected one digit a die, got {text!r}")
    return tuple(int(c) for c in text)


def _flags_render(values) -> str:
    values = tuple(values)
    if not values:
        raise ValueError("no flags")
    return "".join("1" if v else "0" for v in values)


def _flags_parse(text: str) -> tuple[bool, ...]:
    if not text or set(text) - {"0", "1"}:
        raise FieldError(f"expected one 0 or 1 a die, got {text!r}")
    return tuple(c == "1" for c in text)


def _lucky_render(values) -> str:
    return ";".join(f"{codes.bet_code(x.bet)}={INT.render(x.pays)}" for x in values)


def _lucky_parse(text: str) -> tuple[Lucky, ...]:
    entries = []
    for part in text.split(";"):
        code, eq, pays = part.rpartition("=")
        if not eq or not code:
            raise FieldError(f"expected CODE=PAYS entries separated by ';', got {part!r}")
        entries.append(Lucky(bet=codes.bet_name(code), pays=INT.parse(pays)))
    if len(entries) > 12:
        raise FieldError(f"more than 12 Lucky Numbers ({len(entries)})")
    return tuple(entries)


ROUND = Field("round", INT.render, INT.parse)
BET = Field("bet", codes.bet_code, codes.bet_name)
FACES = Field("dice", _faces_render, _faces_parse)
FLAT = Field("flat", _flags_render, _flags_parse)
POCKET = Field("pocket", INT.render, INT.parse)
ROLL_NO = Field("roll", INT.render, INT.parse)

COMMANDS = {"HELLO": "HEL", "ERROR": "ERR", "RESET": "RST", "OPEN": "OPN", "WAGER": "BET", "ACCEPT": "BOK",
            "REFUSE": "BNO", "CLOSE": "CLS", "NOMORE": "NMB", "LUCKY": "LKY", "TRIGGER": "TRG",
            "RELEASE": "DRP", "SPIN": "SPN", "ROLL": "THR", "SENSOR": "SNS", "RESULT": "RES", "NOROLL": "NRL",
            "SETTLE": "PAY", "SETTLED": "SUM", "CLEARED": "CLR", "ACK": "ACK", "NAK": "NAK"}
TYPES = {command: type_ for type_, command in COMMANDS.items()}

_FIELDS: dict[str, tuple[Field, ...]] = {
    # HELLO's role is the talker (BN bench, GC controller), not a field.
    "HELLO": (Field("proto", INT.render, INT.parse), Field("sw", TOKEN.render, TOKEN.parse),
              Field("game", TOKEN.render, TOKEN.parse), Field("paytable", TOKEN.render, TOKEN.parse, True),
              Field("rules", TOKEN.render, TOKEN.parse, True), Field("seed", INT.render, INT.parse, True)),
    "ERROR": (Field("code", codes.error_code, codes.error_word), Field("round", INT.render, INT.parse, True),
              Field("detail", TEXT.render, TEXT.parse, True)),
    "RESET": (Field("reason", TOKEN.render, TOKEN.parse), Field("round", INT.render, INT.parse, True)),
    "WAGER": (ROUND, Field("id", TOKEN.render, TOKEN.parse), BET, Field("stake", INT.render, INT.parse)),
    "ACCEPT": (ROUND, Field("id", TOKEN.render, TOKEN.parse)),
    "REFUSE": (ROUND, Field("id", TOKEN.render, TOKEN.parse), Field("reason", codes.refusal_code, codes.refusal_word),
               Field("clause", TOKEN.render, TOKEN.parse, True)),
    "LUCKY": (ROUND, Field("lucky", _lucky_render, _lucky_parse)),
    "ROLL": (ROUND, ROLL_NO),
    "SETTLE": (ROUND, Field("id", TOKEN.render, TOKEN.parse), Field("returned", INT.render, INT.parse)),
    "SETTLED": (ROUND, Field("wagers", INT.render, INT.parse), Field("returned", INT.render, INT.parse),
                Field("void", FLAG.render, FLAG.parse, True)),
    "ACK": (),
    "NAK": (Field("reason", codes.nak_code, codes.nak_word),),
    **{type_: (ROUND,) for type_ in ("OPEN", "CLOSE", "NOMORE", "TRIGGER", "RELEASE", "SPIN", "NOROLL", "CLEARED")},
}
# SENSOR's and RESULT's fields are the game's kind of outcome's (bench.rules.outcome_kind),
# in its order; each outcome field as the sentence protocol writes it.
_OUTCOME_FIELDS = {field.name: field for field in (ROUND, FACES, FLAT, POCKET, ROLL_NO)}
_OUTCOME_FIELDS["open"] = Field("open", INT.render, INT.parse)


def fields_of(type_: str, game: str) -> tuple[Field, ...]:
    """The fields of ``type_``'s sentence in ``game``, in order."""
    outcome = describe(game).outcome
    by_kind = {"SENSOR": outcome.sensor_fields, "RESULT": outcome.result_fields}.get(type_)
    if by_kind is not None:
        return tuple(_OUTCOME_FIELDS[name] for name, _ in by_kind)
    return _FIELDS[type_]
