"""A recogniser's reply as a reading, checked strictly (docs/camera.md,
"Plumbing"): a JSON object of at most ``MAX_REPLY`` bytes, nested no deeper
than ``MAX_DEPTH``, its numbers finite and of at most ``MAX_DIGITS`` digits,
its dice, faces, pocket and frame name of the reading's types. Anything
malformed is ``{"error": ...}`` naming the reason: the frame is lost, never
the bench.

Apart from the plumbing that gets the reply (``bench.vision.recognizer``,
``bench.vision.recognizer_http``): every way of asking ends here, and the
check is read and tested on its own.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_REPLY = 1 << 20
MAX_DIGITS = 18                  # a number in a reading with more digits than this is malformed
MAX_DEPTH = 8                    # a reading nests lists and objects no deeper than this


# -- a reading, checked ------------------------------------------------------------
class Malformed(ValueError):
    """What is wrong with a reply, in words (``check_reading``)."""


def _number(text: str) -> float | int:
    digits = sum(c.isdigit() for c in text)
    if digits > MAX_DIGITS:
        raise Malformed(f"a number of {digits} digits")
    value = float(text) if any(c in text for c in ".eE") else int(text)
    if isinstance(value, float) and not math.isfinite(value):
        raise Malformed(f"the number {text[:20]} is out of range")
    return value


def _constant(text: str):
    raise Malformed(f"{text} is not a JSON number")


def _depth(value: Any, level: int = 1) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max([_depth(v, level + 1) for v in value.values()], default=level)
    if isinstance(value, list):
        return max([_depth(v, level + 1) for v in value], default=level)
    return level


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_die(i: int, die) -> None:
    where = f"dice[{i}]"
    if not isinstance(die, dict):
        raise Malformed(f"{where} is {type(die).__name__}, not an object")
    face = die.get("face")
    if face is not None and not (_is_int(face) and 1 <= face <= 6):
        raise Malformed(f"{where}.face is {json.dumps(face)[:20]}, not 1 to 6 or null")
    if "flat" in die and not isinstance(die["flat"], bool):
        raise Malformed(f"{where}.flat is {json.dumps(die['flat'])[:20]}, not true or false")
    for key, size in (("box_px", 4), ("centre_px", 2)):
        if key in die and die[key] is not None:
            place = die[key]
            if not isinstance(place, list) or len(place) != size or not all(_is_number(v) for v in place):
                shown = f"{len(place)} values" if isinstance(place, list) else type(place).__name__
                raise Malformed(f"{where}.{key} is {shown}, not {size} numbers")
    if die.get("box_px") is None and die.get("centre_px") is None:
        raise Malformed(f"{where} has no place (box_px or centre_px)")


def check_reading(value: Any) -> None:
    """Raise ``Malformed`` naming what is wrong with a decoded reading."""
    if not isinstance(value, dict):
        raise Malformed(f"not a JSON object: {type(value).__name__}")
    if _depth(value) > MAX_DEPTH:
        raise Malformed(f"nested deeper than {MAX_DEPTH}")
    if "error" in value:
        raise Malformed(f"the recogniser's own error: {str(value['error'])[:200]}")
    if "frame" in value and not isinstance(value["frame"], str):
        raise Malformed(f"frame is {type(value['frame']).__name__}, not the frame's name")
    if "no_roll" in value and not isinstance(value["no_roll"], bool):
        raise Malformed(f"no_roll is {json.dumps(value['no_roll'])[:20]}, not true or false")
    if "pocket" in value and value["pocket"] is not None and not (_is_int(value["pocket"])
                                                                  and 0 <= value["pocket"] <= 36):
        raise Malformed(f"pocket is {json.dumps(value['pocket'])[:20]}, not 0 to 36 or null")
    if "dice" in value:
        dice = value["dice"]
        if not isinstance(dice, list):
            raise Malformed(f"dice is {type(dice).__name__}, not a list")
        for i, die in enumerate(dice):
            _check_die(i, die)


def parse_reading(raw: bytes | str) -> dict:
    """A reply as a reading: a JSON object of the reading's types, or
    ``{"error": ...}`` saying why not (the frame is lost, never the bench)."""
    if isinstance(raw, bytes):
        if len(raw) > MAX_REPLY:
            return {"error": f"a reply of more than {MAX_REPLY} bytes"}
        raw = raw.decode("utf-8", errors="replace")
    text = raw.strip()
    if not text:
        return {"error": "an empty reply"}
    try:
        value = json.loads(text, parse_int=_number, parse_float=_number, parse_constant=_constant)
        check_reading(value)
    except Malformed as err:
        return {"error": f"malformed: {err}"}
    except RecursionError:
        return {"error": "malformed: nested too deep"}
    except ValueError as err:
        msg = getattr(err, "msg", str(err))
        return {"error": f"not JSON: {msg} (reply starts {text[:60]!r})"}
    return value
