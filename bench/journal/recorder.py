"""Where every frame goes as it passes: into the journal, and past the oracle.

The oracle's one feed (``bench.oracle.feed``) decides, live and in replay,
which frames the oracle judges, so a journal is judged exactly as the link
was (ANCHORS lesson 5: replay is a source of frames, not a monkeypatch).

The frames, plant readings and verdicts of the round in flight are kept here
and written as one ``round`` record when the round ends (``bench.journal.chain``,
schema 2): a crash loses at most the round in flight either way, and one
record a round costs one hash instead of eighty. Frames are journalled and
judged in ``catch_up``, which the bench runs while it waits for the
controller, so that this work never delays a reply.
"""

from __future__ import annotations

import hashlib

import math
import platform
from collections import deque
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

import bench
from bench.journal.chain import SCHEMA_VERSION, JournalWriter, raw_text
from bench.play.plant import Reading
from bench.protocol import FrameEvent, Message
from bench.journal.wire_budget import WireBudget
from bench.oracle.feed import judged, judged_camera
from tablebench_io.commandline import signals_held


def embedded_file(path: str | Path | None) -> tuple[str | None, str | None]:
    """``(text, SHA-256)`` of a file the session runs with (a design, a rules
    submission), read once, for the journal's header: with its full text in
    the journal, replay needs no file of the session's machine."""
    if not path:
        return None, None
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:        # not a text file: its digest alone is recorded
        text = None
    return text, hashlib.sha256(data).hexdigest()


def versions() -> dict[str, str]:
    """The software a session ran on, for its header (and its report)."""
    found = {"tablebench": bench.__version__, "python": platform.python_version()}
    try:
        found["pybullet"] = metadata.version("pybullet")
    except metadata.PackageNotFoundError:
        pass
    return found


def session_header(*, game: str, rules, controller: str | None, emulated: bool, misbehave: str | None,
                   phases: dict, design: str | None = None, **more: Any) -> dict[str, Any]:
    """The journal's first record: what the session played and what it is
    judged by (replay rebuilds its oracle from this), with the full text of
    the rules submission and the plant's design so that it replays on any
    machine. ``more``: what the driver adds (seeds, the plant; the table, dealer,
    dice set or wheel it was played at: ``bench.archive.labels``)."""
    submission = getattr(rules, "source", None)
    submission_text, submission_sha256 = embedded_file(submission)
    design_text, design_sha256 = embedded_file(design)
    return dict(schema=SCHEMA_VERSION, software=f"tablebench/{bench.__version__}", versions=versions(),
                game=game, controller=controller, emulated=emulated, misbehave=misbehave,
                paytable=getattr(rules, "paytable", None), options=dict(getattr(rules, "options", {})),
                submission=submission, submission_sha256=submission_sha256, submission_text=submission_text,
                design=design, design_sha256=design_sha256, design_text=design_text,
                phases=phases, **more)


def adapter_fields(adapter) -> dict[str, Any]:
    """The wire format a session spoke (``bench.adapters``), for its header:
    replay decodes the raw bytes again with the adapter of that name, and
    says so when the version installed is another."""
    return dict(adapter=adapter.name, adapter_version=str(adapter.version))


def game_file_fields(game: str) -> dict[str, Any]:
    """A game file's variant: the file, its text and digest for the header, so
    that the journal alone replays it; nothing for a built-in game."""
    from bench.rules import describe
    descriptor = describe(game)
    if descriptor.source_text is None:
        return {}
    return dict(game_file=descriptor.source, game_file_text=descriptor.source_text,
                game_file_sha256=hashlib.sha256(descriptor.source_text.encode()).hexdigest())


class Recorder:
    def __init__(self, journal: JournalWriter, oracle, clock_now=lambda: 0.0, *, max_frames: int | None = None):
        self.journal = journal
        self.oracle = oracle
        self.sim_now = clock_now
        # Where each frame the oracle judged since the last record is in the journal, by
        # oracle index from ``_places_from``: (the seq of the record that holds it, its
        # index in that record's wire). A verdict names a frame of the record it is written
        # in; earlier places are let go, so that a long session's memory stays flat.
        self.frame_places: list[tuple[int, int]] = []
        self._places_from = 0
        self._offered: dict[str, tuple[str, int, object]] = {}
        self.stakes_by_bet: dict[str, int] = {}   # accepted stakes, for the exact RTP of what was played
        # The same, round by round, for the probe rounds alone (their records say ``probe``; the
        # return leaves their stakes out): kept for every round, it grew a dict a round. A round's
        # stakes are held in ``_round_stakes`` until its record is written.
        self.stakes_by_round: dict[object, dict[str, int]] = {}
        self._round_stakes: dict[object, dict[str, int]] = {}
        self._pending: deque[tuple[FrameEvent, float]] = deque()   # frames not yet journalled, with their sim time
        self._readings: deque[dict[str, Any]] = deque()   # plant readings not yet journalled
        self._wire: list[list[Any]] = []
        self._plants: list[dict[str, Any]] = []
        self._verdicts: list[dict[str, Any]] = []
        # how much of a noisy link is kept, and how many frames a session judges (bench.journal.wire_budget)
        self.budget = WireBudget(max_frames)

    def on_frame(self, event: FrameEvent) -> None:
        """The session's observer: keep the frame; it is journalled and judged
        in ``catch_up``, when the session waits for the controller (its
        ``on_idle``) or the round ends, so that this bookkeeping does not
        delay the bench's replies. The frame keeps the times it crossed the link."""
        if self.budget.admit(event):
            self._pending.append((event, float(self.sim_now())))

    def catch_up(self, *, judge: bool = True) -> None:
        """Journal and judge every frame kept so far, in order; and the last
        round record's fsync, if the journal deferred it. ``judge=False``
        only journals them (a session being interrupted, perhaps by the oracle).

        SIGINT and SIGTERM wait until the batch is done: raised inside the
        oracle's handling of a frame or a reading they tore its state (a
        RESULT journalled but not taken in, so the round's SETTLEs read as
        settled before the outcome: 15 false 625b.2(d)(6) violations that
        replay of the same journal did not find)."""
        with signals_held():
            self._catch_up(judge)

    def _catch_up(self, judge: bool) -> None:
        self.journal.fsync_deferred()
        while self._readings:
            plant = _json_numbers(self._readings[0])
            self._plants.append(plant)
            self._readings.popleft()
            camera = judged_camera(plant) if judge else None
            if camera is not None:          # a recogniser's call beside the twin's truth (bench.oracle.recognition)
                found = self.oracle.recognised(camera)
                if found:
                    self._record_verdicts(found)
        pending, wire = self._pending, self._wire
        observe = self.oracle.observe
        while pending:
            (direction, kind, raw, message, note, mono, wall, _), sim = pending[0]     # a FrameEvent's fields
            wire.append([direction, kind, round(mono, 6), round(wall, 6), round(sim, 6), raw_text(raw),
                         message.as_dict() if message is not None else None, note])
            pending.popleft()      # journalled: an interruption from here on loses nothing of it
            if judge and message is not None and judged(direction, kind, message):
                self._count_stake(message)
                self.frame_places.append((self.journal.seq, len(wire) - 1))
                found = observe(direction, message, mono)
                if found:
                    self._record_verdicts(found)

    def _count_stake(self, message: Message) -> None:
        if message.type == "WAGER":
            self._offered[message["id"]] = (message["bet"], message["stake"], message.get("round"))
        elif message.type == "ACCEPT" and message["id"] in self._offered:
            bet, stake, round_no = self._offered.pop(message["id"])
            self.stakes_by_bet[bet] = self.stakes_by_bet.get(bet, 0) + stake
            in_round = self._round_stakes.setdefault(round_no, {})
            in_round[bet] = in_round.get(bet, 0) + stake
        elif message.type == "REFUSE":
            self._offered.pop(message["id"], None)

    def verdicts(self, violations) -> None:
        """Verdicts found outside the frames (e.g. the oracle's ``finish``)."""
        self.catch_up()        # after the frames before them
        self._record_verdicts(violations)

    def _record_verdicts(self, violations) -> None:
        places, first = self.frame_places, self._places_from
        for violation in violations:
            at = None if violation.frame is None else violation.frame - first
            place = places[at] if at is not None and 0 <= at < len(places) else None
            self._verdicts.append({"clause": violation.clause, "message": violation.message,
                                   "round": violation.round, "frame": violation.frame,
                                   "record": place[0] if place else None, "wire": place[1] if place else None})

    def on_plant(self, round_no: int, attempt: int, reading: Reading) -> None:
        """The plant's reading, kept like a frame until ``catch_up``: the bench
        is about to send it and nothing here must delay that."""
        self._readings.append({
            "round": round_no, "attempt": attempt, "seed": reading.seed,
            "dice": list(reading.dice) if reading.dice else None,
            "flat": list(reading.flat) if reading.flat else None,
            "pocket": reading.pocket, "duration_s": round(reading.duration_s, 6), "detail": reading.detail})

    @property
    def unwritten(self) -> bool:
        """Anything kept for the next record: frames, readings or verdicts."""
        return bool(self._pending or self._readings or self._wire or self._plants or self._verdicts)

    def on_round_end(self, round_no: int, failure: str | None, *, judge: bool = True, **fields: Any) -> None:
        """Write the round's record (everything since the last record): to the
        OS at once, fsynced at once or at the bench's next wait (``JournalWriter``)."""
        self.catch_up(judge=judge)
        if failure:
            fields["failure"] = failure
        fields.update(self.budget.close_round())
        stakes = self._round_stakes.pop(round_no, None)
        if fields.get("probe") and stakes:
            self.stakes_by_round[round_no] = stakes
        # Rounds before this one will not be accepted into any more (a round that failed before
        # its record named it, a voided one): their stakes per round are let go.
        self._round_stakes = {r: v for r, v in self._round_stakes.items()
                              if isinstance(r, int) and isinstance(round_no, int) and r > round_no}
        self._write(lambda wire, plants, verdicts: self.journal.write_round(
            round_no, wire=wire, plants=plants, verdicts=verdicts, **fields))

    def on_session_end(self, *, judge: bool = True, **fields: Any) -> None:
        """The closing record, with whatever crossed the link after the last round."""
        self.catch_up(judge=judge)
        fields.update(self.budget.close_round())
        self._write(lambda wire, plants, verdicts: self.journal.append(
            "session-end", wire=wire, plants=plants, verdicts=verdicts, **fields))
        self.journal.sync()

    def let_go(self) -> dict[str, int]:
        """Drop what is kept for the next record (it did not fit on a full
        disk); how much of it there was, for the record written without it."""
        lost = {"frames": len(self._wire) + len(self._pending), "readings": len(self._plants) + len(self._readings),
                "verdicts": len(self._verdicts)}
        self._wire, self._plants, self._verdicts = [], [], []
        self._pending.clear()
        self._readings.clear()
        return lost

    def _write(self, write: Callable[[list, list, list], Any]) -> None:
        """Hand what is kept to ``write`` (one record) and start afresh; if
        the record did not make it into the journal, keep it all for another
        attempt, and never write it twice. SIGINT and SIGTERM wait for the
        record and this bookkeeping together (``JournalWriter.append``)."""
        with signals_held():
            self._write_held(write)

    def _write_held(self, write: Callable[[list, list, list], Any]) -> None:
        kept = self._wire, self._plants, self._verdicts
        self._wire, self._plants, self._verdicts = [], [], []
        records = self.journal.seq
        try:
            write(*kept)
        except BaseException:
            if self.journal.seq == records:
                wire, plants, verdicts = kept
                self._wire, self._plants, self._verdicts = (wire + self._wire, plants + self._plants,
                                                             verdicts + self._verdicts)
            raise
        self._places_from += len(self.frame_places)      # their record is written: no verdict names them now
        self.frame_places = []
        self._offered.clear()           # a wager never answered in its round is not counted later


def _json_numbers(value):
    """``value`` with every NaN or infinity (a physics run gone wrong) as the
    string "nan", "inf" or "-inf": JSON has no such numbers, and the journal's
    encoder would write them as null, losing what the plant reported."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {key: _json_numbers(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_numbers(item) for item in value]
    return value
