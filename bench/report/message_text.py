"""A decoded protocol message as a person reads it in a report: its type,
its round first, then its fields (``HELLO game=lightning-dice proto=2 …``;
a Lucky Number as "total:4 pays 50 to 1")."""

from __future__ import annotations


def value_text(value) -> str:
    if isinstance(value, list):
        return ", ".join(value_text(item) for item in value)
    if isinstance(value, dict):
        if set(value) == {"bet", "pays"}:
            return f"{value['bet']} pays {value['pays']} to 1"
        return " ".join(f"{k}={value_text(v)}" for k, v in value.items())
    return str(value)


def message_text(message: dict) -> str:
    keys = sorted((k for k in message if k not in ("type", "seq")), key=lambda k: (k != "round", k))
    return " ".join([str(message.get("type"))] + [f"{k}={value_text(message[k])}" for k in keys])
