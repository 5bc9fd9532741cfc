"""What a session report shows, read from the session's journal alone.

``read_session`` replays the journal (``bench.journal.replay``: the hash chain
verified, every frame judged again by a fresh oracle) and reads it once more
for what the oracle does not keep: the plant's readings, the rounds that
failed, the frames each violation names, the controller's HELLO, and the
time the controller took to answer each request. ``bench run`` and
``bench replay --report`` both build their report from this, so the two
reports of one session are the same.
"""

from __future__ import annotations

import random
import time
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import AbstractSet

from bench.journal.chain import WIRE_COLUMNS, iter_records
from bench.journal.replay import SCHEMA1_INDEX, ReplayOutcome, replay
from bench.oracle.feed import JudgedRow, judged_record, judged_rows
from bench.report.summary import Summary, ordinary_stakes, summarise

# A request of the bench, and the controller's replies that answer it
# (docs/protocol.md): the latency of each kind is the time between the two on
# the bench's monotonic clock. A WAGER is answered by the ACCEPT or REFUSE
# naming its id.
WALL = WIRE_COLUMNS.index("wall")
ANSWERS = {"HELLO": ("HELLO",), "WAGER": ("ACCEPT", "REFUSE"), "CLOSE": ("NOMORE",),
           "TRIGGER": ("COMMAND",), "SENSOR": ("RESULT", "NOROLL")}
ASKED_BY = {reply: request for request, replies in ANSWERS.items() for reply in replies}
ROUND_FRAMES_KEPT = 12          # rounds with a violation whose every frame is kept for the report
ROUNDS_SHOWN = 100              # failed, voided and no-roll rounds the report lists one by one (page.ROUNDS_OF_A_KIND)
LATENCIES_KEPT = 5_000          # reply latencies of a kind kept for the report (a uniform sample past that)
FRAMES_OF_A_ROUND = 300         # of a round's frames, at most so many kept (a flooded round has thousands)


@dataclass(frozen=True)
class Frame:
    """One frame the oracle judged, where the journal holds it."""
    index: int                  # the oracle's frame number (a violation's ``frame``)
    record: int                 # seq of the journal record holding it
    place: int                  # its index in that record's wire
    direction: str
    mono: float
    wall: float | None
    raw: str
    message: dict


@dataclass
class SessionFacts:
    journal: str
    replayed: ReplayOutcome
    expected_head: str | None
    summary: Summary
    end: dict | None = None                                    # the session-end record
    abandoned: list[int] = field(default_factory=list)         # opened after the last round, closed unplayed
    plants: dict[int, list[dict]] = field(default_factory=dict)   # round -> the plant's readings
    frames: dict[int, Frame] = field(default_factory=dict)     # the frames violations name, by index
    round_frames: dict[int, list[Frame]] = field(default_factory=dict)  # every judged frame of some faulted rounds
    round_frame_counts: dict[int, int] = field(default_factory=dict)    # how many they were (FRAMES_OF_A_ROUND kept)
    hello: dict | None = None                                  # the controller's HELLO
    latencies: dict[str, list[float]] = field(default_factory=dict)  # "CLOSE → NOMORE" -> seconds (a sample)
    latency_counts: dict[str, int] = field(default_factory=dict)     # replies of each kind, all of them
    latency_longest: dict[str, float] = field(default_factory=dict)  # the longest of each kind
    stakes_by_bet: dict[str, int] = field(default_factory=dict)      # accepted stakes, for the exact RTP
    first_wall: float | None = None
    last_wall: float | None = None
    probes: dict[int, str] = field(default_factory=dict)       # round -> the outcome staged in it
    scenarios: dict[int, str] = field(default_factory=dict)    # a pytest run's journal: record seq -> scenario
    round_scenarios: dict[int, list[str]] = field(default_factory=dict)   # round -> the scenarios played in it
    replayed_at: float | None = None   # when ``bench replay`` judged the journal again (None: the run's own page)

    @property
    def pytest_run(self) -> bool:
        """A journal of ``pytest --controller`` (scenarios, no plant of the bench's own)."""
        return bool(self.scenarios) or str(self.header.get("runner", "")).startswith("pytest")

    def scenario_of(self, frame_index: int | None, round_no: int | None) -> str | None:
        """The scenario a violation belongs to: that of the record holding its
        frame, else the only scenario of its round."""
        frame = self.frames.get(frame_index) if frame_index is not None else None
        if frame is not None and frame.record in self.scenarios:
            return self.scenarios[frame.record]
        played = (self.round_scenarios.get(round_no) if round_no is not None else None) or []
        return played[0] if len(played) == 1 else None

    @property
    def header(self) -> dict:
        return self.replayed.header

    @property
    def oracle(self):
        return self.replayed.oracle

    @property
    def failures(self) -> dict[int, str]:
        return self.replayed.failed_rounds

    @property
    def passed(self) -> bool:
        """As ``bench run`` and ``bench replay`` decide their exit status: an
        intact chain, every frame decodes, no violation, no failed round."""
        return self.replayed.passed


def _listed(value) -> list:
    """A record's list member, or nothing if a hand-made journal put something else there
    (replay names that; the report shows what there is)."""
    return value if isinstance(value, list) else []


class _Reader:
    """Reads the journal's records in order for the report: what it tallies
    over every record (reply latencies, stakes, the HELLO, the probe rounds,
    the first and last wall times) and what it keeps of a few (the frames and
    plant readings of the rounds and violations the page shows). With
    ``tally=False`` it only keeps (``bench.report.live_facts`` reads again the
    few records it wants, having tallied every one as it was written)."""

    def __init__(self, wanted_frames: set[int], wanted_rounds: set[int], pictured: set[int],
                 probe_ordinals: AbstractSet[int] = frozenset(), *, tally: bool = True,
                 undecoded: frozenset[tuple[int, int]] = frozenset()):
        self.wanted_frames, self.wanted_rounds = wanted_frames, wanted_rounds
        self.undecoded = undecoded    # (line, wire index) of frames the replay could not decode: the oracle skipped them
        self.pictured = pictured      # rounds whose plant readings the report may show (not all 20,000)
        self.tally = tally
        self.index = 0                # the oracle's index of the next judged frame
        self.facts: dict = {"abandoned": [], "plants": {}, "frames": {}, "round_frames": {}, "round_frame_counts": {},
                            "hello": None, "latencies": {}, "latency_counts": {}, "latency_longest": {},
                            "end": None, "first_wall": None, "last_wall": None,
                            "probes": {}, "scenarios": {}, "round_scenarios": {}}
        self._sampling = random.Random(0)     # the same journal, the same sample: the same page
        # Accepted stakes by bet: of every round, and of the probe rounds alone (the return is
        # measured without them); a dict a round for every round grew with the session.
        self.stakes: dict[str, int] = {}
        self.probe_stakes: dict[object, dict[str, int]] = {}
        self.probe_ordinals = probe_ordinals   # the header's probe schedule (a journal whose records name none)
        self._probe_rounds: set = set()
        self.ordinals = array("q")                              # the rounds in the order they were recorded
        self._offered: dict[str, tuple[str, int, object]] = {}
        self._asked: dict[str, list[float]] = {}
        self._wagers: dict[str, float] = {}

    def record(self, record: dict, line: int | None = None) -> None:
        kind, round_no = record.get("kind"), record.get("round")
        if self.tally:
            self._tally(record, kind, round_no)
        for reading in _listed(record.get("plants")) or ([record] if kind == "plant" else ()):
            if isinstance(reading, dict) and reading.get("round") in self.pictured:
                self.facts["plants"].setdefault(reading["round"], []).append(reading)
        round_of = round_no if kind == "round" else None
        seq, wire = record.get("seq"), _listed(record.get("wire"))
        if self.tally:
            self._walls(row[WALL] for row in wire if isinstance(row, list) and len(row) == len(WIRE_COLUMNS))
        for frame in judged_rows(wire):       # the oracle's frames, as replay judges them (bench.oracle.feed)
            if frame.problem is None and (line, frame.index) not in self.undecoded:
                self.frame(seq, frame, round_of)
        if kind == "frame":            # schema 1: a record a frame
            if self.tally:
                self._walls((record.get("wall"),))
            row = judged_record(record)
            if row is not None and row.problem is None and (line, SCHEMA1_INDEX) not in self.undecoded:
                self.frame(seq, row, record.get("round"))

    def _tally(self, record: dict, kind, round_no) -> None:
        """What a record adds to the session's figures: its end, the rounds in order, probes and scenarios."""
        if kind == "session-end":
            self.facts["end"] = record
        if kind in ("round", "round-end") and isinstance(round_no, int):
            if record.get("abandoned"):
                self.facts["abandoned"].append(round_no)
            elif kind == "round":
                self.ordinals.append(round_no)
                if len(self.ordinals) in self.probe_ordinals:
                    self._probe_rounds.add(round_no)
            if isinstance(record.get("probe"), str):
                self.facts["probes"][round_no] = record["probe"]
                self._probe_rounds.add(round_no)
            scenario = record.get("scenario")
            if isinstance(scenario, str):
                self.facts["scenarios"][record.get("seq")] = scenario
                played = self.facts["round_scenarios"].setdefault(round_no, [])
                if scenario not in played:
                    played.append(scenario)

    def _walls(self, walls) -> None:
        """The session's first and last wall-clock times, from every frame (judged or not)."""
        facts = self.facts
        for wall in walls:
            if isinstance(wall, (int, float)):
                facts["first_wall"] = facts["first_wall"] or wall
                facts["last_wall"] = wall

    def frame(self, seq, judged: JudgedRow, round_of) -> None:
        """A frame the oracle judged (its frame index is counted here as the oracle counts it)."""
        index = self.index
        self.index += 1
        direction, message, mono, wall = judged.direction, judged.recorded, judged.mono, judged.wall
        type_ = message.get("type")
        if index in self.wanted_frames or (round_of in self.wanted_rounds):
            frame = Frame(index, seq, judged.index, direction, mono, wall, str(judged.raw), message)
            if index in self.wanted_frames:
                self.facts["frames"][index] = frame
            if round_of in self.wanted_rounds:
                counts = self.facts["round_frame_counts"]
                counts[round_of] = counts.get(round_of, 0) + 1
                if counts[round_of] <= FRAMES_OF_A_ROUND:
                    self.facts["round_frames"].setdefault(round_of, []).append(frame)
        if not self.tally:
            return
        if direction == "rx" and type_ == "HELLO" and self.facts["hello"] is None:
            self.facts["hello"] = message
        if not isinstance(mono, (int, float)):
            return
        if direction == "tx":
            if type_ == "WAGER":
                self._wagers[str(message.get("id"))] = mono
                self._offered[str(message.get("id"))] = (message.get("bet"), message.get("stake"),
                                                         message.get("round"))
            elif type_ in ANSWERS:
                self._asked.setdefault(type_, []).append(mono)
            return
        if type_ in ("ACCEPT", "REFUSE"):
            wager = str(message.get("id"))
            sent = self._wagers.pop(wager, None)
            if sent is not None:
                self._latency(f"WAGER → {type_}", mono - sent)
            offered = self._offered.pop(wager, None)
            if type_ == "ACCEPT" and offered and isinstance(offered[0], str) and isinstance(offered[1], int):
                bet, stake, round_no = offered
                self.stakes[bet] = self.stakes.get(bet, 0) + stake
                if round_no in self._probe_rounds:
                    in_round = self.probe_stakes.setdefault(round_no, {})
                    in_round[bet] = in_round.get(bet, 0) + stake
        elif type_ in ASKED_BY:
            request = ASKED_BY[type_]
            waiting = self._asked.get(request)
            if waiting:
                self._latency(f"{request} → {'/'.join(ANSWERS[request])}", mono - waiting.pop(0))
                waiting.clear()         # one answer a request: later ones (a re-throw) answer nothing new

    def _latency(self, kind: str, seconds: float) -> None:
        """Every reply counted, the longest kept, and up to LATENCIES_KEPT of
        each kind kept as a uniform sample (reservoir sampling): a session of
        20,000 rounds has 700,000 wager replies. A sample of 5,000 puts the
        95th percentile within about 0.3 percentile points (its standard error)."""
        if seconds < 0:
            return
        facts = self.facts
        seen = facts["latency_counts"][kind] = facts["latency_counts"].get(kind, 0) + 1
        facts["latency_longest"][kind] = max(seconds, facts["latency_longest"].get(kind, seconds))
        kept = facts["latencies"].setdefault(kind, array("d"))     # 8 bytes a reply
        if len(kept) < LATENCIES_KEPT:
            kept.append(seconds)
        else:
            slot = self._sampling.randrange(seen)
            if slot < LATENCIES_KEPT:
                kept[slot] = seconds


def no_roll_rounds(oracle) -> list[int]:
    return [r.round for r in oracle.rounds if r.no_roll]


def read_session(journal: str | Path, expected_head: str | None = None, *, redecode: bool = False,
                 submission: str | Path | None = None, pubkey: str | None = None,
                 replaying: bool = False) -> SessionFacts:
    """Everything the session report shows, from the journal alone (``replay``'s
    options: the head kept apart, a submission file, the bench key's
    fingerprint to check the seals with). ``replaying``: for ``bench replay``,
    whose page says it is a replay and when it ran (``replayed_at``). Raises
    ``BenchError`` (or ``OSError``) for a journal that cannot be read at all."""
    started = time.time()
    replayed = replay(journal, expected_head=expected_head, redecode=redecode, submission=submission,
                      pubkey=pubkey)
    wanted = Wanted.of(replayed.oracle, replayed.failed_rounds)
    reader = _Reader(wanted.frames, wanted.rounds, wanted.pictured, scheduled_ordinals(replayed.header),
                     undecoded=frozenset(replayed.undecoded))
    for line, record, _ in iter_records(journal):
        if record is not None:
            reader.record(record, line)
    facts = facts_of(journal, replayed, expected_head, reader)
    if replaying:
        facts.replayed_at = started
    return facts


@dataclass(frozen=True)
class Wanted:
    """What the page shows of particular records: the frames its violations
    name, every frame of the first ROUND_FRAMES_KEPT rounds with one, and the
    plant readings of the rounds it may picture. Bounded whatever the
    session's length: the oracle keeps the first violations of each clause."""
    frames: set[int]
    rounds: set[int]
    pictured: set[int]

    @classmethod
    def of(cls, oracle, failed_rounds: dict[int, str]) -> "Wanted":
        faulted = sorted({v.round for v in oracle.violations if v.round is not None})
        shown = ROUNDS_SHOWN
        pictured = (set(faulted) | set(sorted(failed_rounds)[:shown]) | set(oracle.voided_rounds[:shown])
                    | set(no_roll_rounds(oracle)[:shown]))
        return cls({v.frame for v in oracle.violations if v.frame is not None}, set(faulted[:ROUND_FRAMES_KEPT]),
                   pictured)


def facts_of(journal: str | Path, replayed: ReplayOutcome, expected_head: str | None, reader: _Reader) -> SessionFacts:
    """The report's facts from the journal judged (``replayed``) and read (``reader``)."""
    oracle = replayed.oracle
    if oracle is None:      # replay raises on a journal it cannot judge; a live session has its own
        raise ValueError("the journal was judged by no oracle")
    facts = reader.facts
    if not facts["probes"]:
        facts["probes"] = probes_by_header(replayed.header, reader.ordinals)
    game = replayed.header["game"]
    failures = replayed.failed_rounds
    ignore = set(facts["abandoned"]) - set(failures)
    stakes = ordinary_stakes(reader.stakes, reader.probe_stakes, facts["probes"])
    # A journal says whether its session staged outcomes (``staging``; before issue 27, ``probes``).
    staged = bool(replayed.header.get("staging") or replayed.header.get("probes"))
    summary = summarise(game, oracle.rules, oracle, failures, stakes, ignore_incomplete=ignore,
                        probe_rounds=facts["probes"], staged=staged)
    return SessionFacts(journal=str(journal), replayed=replayed, expected_head=expected_head, summary=summary,
                        stakes_by_bet=stakes, **facts)


def scheduled_ordinals(header: dict) -> set[int]:
    """The header's probe schedule, as the 1-based places of round records (``probes_by_header``)."""
    schedule = header.get("probes")
    found = set()
    for key in schedule if isinstance(schedule, dict) else ():
        try:
            found.add(int(key))
        except (TypeError, ValueError):
            pass
    return found


def probes_by_header(header: dict, ordinals) -> dict[int, str]:
    """The probe rounds of a journal whose round records do not name their
    probe (written before they did): the header's schedule is by the
    session's count of rounds (1-based), and each of those wrote one round
    record, in order."""
    schedule = header.get("probes")
    if not isinstance(schedule, dict):
        return {}
    found = {}
    for key, name in schedule.items():
        try:
            index = int(key) - 1
        except (TypeError, ValueError):
            continue
        if 0 <= index < len(ordinals) and isinstance(name, str):
            found[ordinals[index]] = name
    return found
