"""The bench's messages as plain values, and back with every check the
bench's own decoder makes: for an adapter whose wire format carries typed
values (JSON, a binary record) rather than the bench's text fields.

``plain(message)`` gives the fields as JSON-able values (integers, strings,
booleans, lists; Lucky Numbers as ``{"bet", "pays"}`` objects);
``checked(type_, game, values, seq, sender)`` builds the message from such
values, raising ``FrameError`` with the reasons of docs/protocol.md section 2
(``wrong-game``, ``wrong-sender``, ``missing-field``, ``extra-field``,
``bad-value``) for values that are not what the message's fields take.
``checked(m.type, game, plain(m), m.seq)`` gives back ``m``.
"""

from __future__ import annotations

from typing import Any

from bench.protocol.frame import FrameError
from bench.protocol.messages import BOTH, SPECS, Message, is_token, spec_for
from bench.rules.base import Lucky

MAX_INT = 10 ** 15        # the bench's integers have at most 15 digits


def plain(message: Message) -> dict[str, Any]:
    """The fields of ``message`` as JSON-able values (None-valued fields left out)."""
    values = message.as_dict()
    values.pop("type", None)
    values.pop("seq", None)
    return {name: value for name, value in values.items() if value is not None}


def _integer(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_INT:
        raise ValueError(f"expected a whole number from 0 to {MAX_INT - 1}, got {value!r}")
    return value


def _token(value) -> str:
    if not isinstance(value, str) or not is_token(value):
        raise ValueError(f"expected a token (1-48 of A-Z a-z 0-9 . _ : @ / + ( ) -), got {value!r}")
    return value


def _text(value) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {value!r}")
    return value


def _list(value, item) -> tuple:
    if not isinstance(value, list) or not value:
        raise ValueError(f"expected a non-empty list, got {value!r}")
    return tuple(item(x) for x in value)


def _flag(value) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _lucky(value) -> tuple[Lucky, ...]:
    def entry(x) -> Lucky:
        if not isinstance(x, dict) or set(x) != {"bet", "pays"}:
            raise ValueError(f"expected {{\"bet\": ..., \"pays\": ...}}, got {x!r}")
        return Lucky(bet=_token(x["bet"]), pays=_integer(x["pays"]))
    entries = _list(value, entry)
    if len(entries) > 12:
        raise ValueError(f"more than 12 Lucky Numbers ({len(entries)})")
    return entries


_BY_TYPE = {"integer": _integer, "token": _token, "text": _text, "flag": _flag, "lucky list": _lucky,
            "integer list": lambda v: _list(v, _integer), "flag list": lambda v: _list(v, _flag)}


def checked(type_: str, game: str, values: dict[str, Any], seq: int, sender: str | None = None) -> Message:
    """The message ``type_`` of ``game`` with these field values, numbered
    ``seq``, sent by ``sender`` (None: not checked). FrameError if it cannot be."""
    if type_ not in SPECS:
        raise FrameError("unknown-type", f"unknown message type {type_!r}")
    try:
        spec = spec_for(type_, game)
    except LookupError as err:
        raise FrameError("wrong-game", str(err)) from None
    if sender is not None and spec.sender not in (BOTH, sender):
        raise FrameError("wrong-sender", f"{type_} is sent by the {spec.sender}, not the {sender}")
    if not isinstance(values, dict):
        raise FrameError("bad-syntax", f"{type_}: the fields are not a record: {values!r}")
    types = spec.field_types()
    for name in values:
        if name not in types:
            raise FrameError("extra-field", f"{type_}: unexpected field {name!r} (fields: {', '.join(types) or 'none'})")
    missing = [name for name, _ in spec.required if values.get(name) is None]
    if missing:
        raise FrameError("missing-field", f"{type_}: missing field {missing[0]!r}")
    fields = {}
    for name, value in values.items():
        if value is None:
            continue
        try:
            fields[name] = _BY_TYPE[types[name].name](value)
        except ValueError as err:
            raise FrameError("bad-value", f"{type_}: field {name!r}: {err}") from None
    return Message(type_, fields, seq)
