"""The oracle's one feed: which frames it judges, live or from a journal.

"Live and replay judge the same frames" is the bench's promise to a
regulator (ANCHORS lesson 5: replay is a source of frames, not a
monkeypatch). The rule is written here once; ``bench run``, the pytest
controller table and ``bench monitor`` (through ``bench.journal.recorder``),
``bench replay`` and the session report all read it from here, so that an
oracle's frame index names the same frame in every one of them.

The oracle judges a frame that carries a message the peer acted on: what the
bench sent the first time (tx "send") and what it received and accepted
(rx "message"). Retransmissions, duplicates, ACK/NAK, out-of-order frames and
rejected bytes are journalled but are not new messages.

Live, a frame is a ``bench.protocol.FrameEvent``. In a journal (schema 2) it
is a wire row, its columns ``bench.journal.chain.WIRE_COLUMNS``; a schema-1
journal has a record a frame with the same fields by name. A journalled frame
the oracle would judge is also checked for the types replay reads (a
hand-made journal may hold anything): such a row is judged by no one, and
replay says why.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, NamedTuple

from bench.protocol import FrameEvent, Message

JUDGED_FRAMES = frozenset({("tx", "send"), ("rx", "message")})

# The wire row's columns the feed reads, by place (bench.journal.chain.WIRE_COLUMNS:
# dir, frame, mono, wall, sim, raw, message, note; tests/oracle/test_feed.py ties the two).
ROW_WIDTH = 8
DIR, FRAME, MONO, WALL, RAW, MESSAGE = 0, 1, 2, 3, 5, 6


def judged(direction: object, frame_kind: object, message: object) -> bool:
    """Whether the oracle judges a frame of this direction and kind carrying ``message``."""
    return message is not None and (direction, frame_kind) in JUDGED_FRAMES


def judged_message(event: FrameEvent) -> Message | None:
    """The message of a live frame the oracle judges; None for any other frame."""
    message = event.message
    if message is not None and (event.direction, event.kind) in JUDGED_FRAMES:
        return message
    return None


def not_a_frame(mono: object, raw: object, recorded: object) -> str | None:
    """What makes a judged row something no bench wrote (a hand-made journal):
    the columns replay reads must have their types."""
    if isinstance(mono, bool) or not isinstance(mono, (int, float)):
        return f"its monotonic time is {type(mono).__name__}"
    if not isinstance(raw, str):
        return f"its raw bytes are {type(raw).__name__}, not text"
    if not isinstance(recorded, dict) or not isinstance(recorded.get("type"), str):
        return "its message is not a decoded message"
    return None


class JudgedRow(NamedTuple):
    """A journalled frame the oracle judges: ``recorded`` is the message the
    bench decoded (a dict); ``problem`` says why no bench wrote it, if so (then
    it is not judged)."""
    # The field shadows tuple.index on purpose (nothing calls that method on a row); mypy
    # takes any field over a tuple method for a bad override.
    index: int  # type: ignore[assignment]  # its place in the record's wire (0 for a schema-1 record)
    direction: Any
    mono: Any
    wall: Any             # the wall-clock time the bench recorded (unchecked: the oracle does not read it)
    raw: Any
    recorded: Any
    problem: str | None


_row = tuple.__new__      # makes a JudgedRow without a Python call (replay makes one a judged frame)


def judged_rows(wire: Iterable[Any]) -> Iterator[JudgedRow]:
    """The rows of a journal record's ``wire`` the oracle judges, in order,
    with any row that is not a frame of the journal's shape (reported by its
    ``problem``, never judged). The other rows (ACKs, the commonest frames,
    retransmissions, duplicates) are passed over without a tuple made."""
    for index, row in enumerate(wire):
        if type(row) is not list or len(row) != ROW_WIDTH:
            yield JudgedRow(index, None, None, None, None, None, f"not a frame of {ROW_WIDTH} columns")
            continue
        recorded, frame_kind = row[MESSAGE], row[FRAME]
        if recorded is None or (frame_kind != "message" and frame_kind != "send") \
                or (row[DIR], frame_kind) not in JUDGED_FRAMES:
            continue
        mono, raw = row[MONO], row[RAW]
        # The frame as every bench writes it, told by exact types (bool is not float, nor int's
        # type): not_a_frame's checks, without its call, for all but a hand-made journal's rows.
        mono_type = type(mono)
        if (mono_type is float or mono_type is int) and type(raw) is str and type(recorded) is dict \
                and type(recorded.get("type")) is str:
            yield _row(JudgedRow, (index, row[DIR], mono, row[WALL], raw, recorded, None))
            continue
        problem = not_a_frame(mono, raw, recorded)
        yield _row(JudgedRow, (index, row[DIR], mono, row[WALL], raw, recorded,
                               None if problem is None else f"not a frame as a bench records one: {problem}"))


def judged_record(record: dict) -> JudgedRow | None:
    """A schema-1 frame record (a record a frame, its fields by name) the
    oracle judges, or None."""
    if not judged(record.get("dir"), record.get("frame"), record.get("message")):
        return None
    mono, raw, recorded = record.get("mono"), record.get("raw"), record.get("message")
    problem = not_a_frame(mono, raw, recorded)
    return JudgedRow(0, record.get("dir"), mono, record.get("wall"), raw, recorded,
                     None if problem is None else f"not a frame as a bench records one: {problem}")


class CameraRow(NamedTuple):
    """A plant reading made through a camera and a recogniser: what the twin
    says came to rest (``truth``), what went to the controller (``sent``:
    the plant record's dice, flat and pocket) and how it was called
    (``call``: ``read`` by the recogniser, or ``unread``: the policy's call,
    docs/camera.md)."""
    round: Any
    frame: Any
    truth: dict
    sent: dict
    call: str
    rereads: int


def judged_camera(plant: object) -> CameraRow | None:
    """The camera's call in a journal's (or the live bench's) plant reading
    that the oracle judges (``bench.oracle.recognition``), or None: no
    camera, no recogniser, or a journal written before the bench judged the
    camera's calls (its ``detail.camera`` has no ``call``). A field of
    another type (a hand-made journal) is not judged."""
    if not isinstance(plant, dict) or not isinstance(plant.get("detail"), dict):
        return None
    camera = plant["detail"].get("camera")
    if not isinstance(camera, dict) or camera.get("call") not in ("read", "unread") \
            or not isinstance(camera.get("truth"), dict):
        return None
    rereads = camera.get("rereads")
    return CameraRow(plant.get("round"), camera.get("frame"), camera["truth"],
                     {name: plant.get(name) for name in ("dice", "flat", "pocket")}, camera["call"],
                     rereads if type(rereads) is int else 0)
