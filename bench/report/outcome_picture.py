"""A round's outcome as a picture, drawn from the plant's reading as the
journal recorded it, without simulating anything again: the tray from above
with each die where it came to rest (``twin.tower.picture.tray_png``, from
the recorded poses), or the wheel at rest with the ball in its pocket
(``twin.wheel.picture.draw_wheel``, the rotor's angle from the recorded seed's
launch and the recorded spin time). The design is the one the session used:
the copy its journal carries, or for an older journal the recorded file if
its SHA-256 still matches (``bench.journal.replay.session_file``); otherwise there is
no picture and the reason says why.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

from bench.errors import BenchError
from bench.journal.replay import session_file
from twin.errors import TwinError


_DESIGNS: dict[str, object] = {}      # loaded designs by SHA-256: a report draws many rounds of one design


def _usable_design(header: dict):
    """(design, None) or (None, why there is no picture)."""
    kind = header.get("plant")
    if kind not in ("tower", "wheel"):
        return None, f"the {kind or 'unknown'} plant has no picture of its outcome"
    digest = header.get("design_sha256")
    if digest in _DESIGNS:
        return _DESIGNS[digest], None
    try:
        with session_file(header, "design") as path:
            if path is None:
                return None, "the journal names no design"
            if kind == "tower":
                from twin.tower import load_design
            else:
                from twin.wheel import load_design
            design = load_design(path)
    except (BenchError, TwinError, OSError) as err:
        return None, str(err)
    if digest:
        _DESIGNS[digest] = design
    return design, None


def tray_picture(design, detail: dict) -> bytes:
    """The tray from above, from a drop's recorded result (``DropResult.to_dict``)."""
    from twin.tower import DropResult
    from twin.tower.picture import tray_png
    result = DropResult.from_dict(detail)
    with tempfile.TemporaryDirectory() as folder:
        return tray_png(design, result, Path(folder) / "tray.png").read_bytes()


def wheel_picture(design, reading: dict, caption: str) -> bytes:
    """The wheel at rest with the ball in the recorded pocket."""
    import io

    from twin.wheel.picture import draw_wheel
    from twin.wheel.spin import draw_launch, rotor_at
    from twin.wheel.world import pocket_angle
    detail = reading.get("detail") or {}
    seed, pocket = int(reading["seed"]), reading.get("pocket")
    rotor_angle = rotor_at(design, draw_launch(design, seed), float(detail.get("spin_time_s", 0.0)))[0]
    index = ball = None
    if pocket is not None and pocket in design.pockets:
        index = design.pockets.index(pocket)
        angle = rotor_angle + pocket_angle(index)
        radius = (design.rotor.pocket_inner_radius_m + design.rotor.pocket_outer_radius_m) / 2
        ball = (radius * math.cos(angle), radius * math.sin(angle), 0.0)
    image = draw_wheel(design, rotor_angle, ball, index, 420, caption)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def why_no_picture(header: dict) -> str | None:
    """Why a session's outcomes cannot be drawn (the plant, or its design
    file not here as it was), or None when they can."""
    return _usable_design(header)[1]


def reading_words(reading: dict) -> str:
    """A recorded reading in a few words: faces (and which die was not flat) or the pocket."""
    if reading.get("pocket") is not None:
        return f"pocket {reading['pocket']}"
    dice, flat = reading.get("dice") or [], reading.get("flat") or []
    cocked = [k + 1 for k, f in enumerate(flat) if not f]
    return "-".join(map(str, dice)) + (f" (die {', '.join(map(str, cocked))} not flat)" if cocked else "")


def outcome_picture(header: dict, reading: dict) -> tuple[bytes | None, str]:
    """(PNG bytes or None, what it shows or why there is none) for one reading."""
    design, why_not = _usable_design(header)
    seed = reading.get("seed")
    if design is None:
        return None, why_not
    try:
        if header.get("plant") == "tower":
            detail = reading.get("detail") or {}
            what = ("NO ROLL: " + ", ".join(f"die {k + 1} {d.get('reason')}" for k, d in
                                              enumerate(detail.get("dice", ())) if not d.get("flat"))
                    if detail.get("no_roll") else "faces " + " ".join(map(str, detail.get("faces", ()))))
            return tray_picture(design, detail), f"the tray from above, drop seed {seed}: {what}"
        pocket = reading.get("pocket")
        return (wheel_picture(design, reading, f"seed {seed}: pocket {pocket}"),
                f"the wheel at rest, spin seed {seed}: pocket {pocket}")
    except (KeyError, TypeError, ValueError) as err:
        return None, f"the recorded reading cannot be drawn ({err!r})"
