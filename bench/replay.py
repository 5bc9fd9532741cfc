"""Replay a session journal: verify its hash chain and put the recorded frames
past a fresh oracle exactly as the live link did (``bench.recorder.oracle_input``).
A disputed round's drop or spin is simulated again from its recorded seed and
checked against the recorded outcome.

Which message is judged: a schema-2 journal records each frame's raw bytes and
the message the bench decoded from them, both under the hash chain. Replay
judges the recorded message and decodes the raw bytes again only where it
matters, for every frame the oracle finds fault with (the evidence of a
verdict must stand on the bytes that crossed the wire), or for every frame
with ``redecode=True`` (``bench replay --redecode``: slower, and it also
catches a decoder that has changed since the session). Schema-1 journals are
always decoded again frame by frame.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench.errors import BenchError
from bench.journal import VerifyReport, iter_records, raw_bytes, verify_journal
from bench.oracle import Oracle
from bench.plant import file_digest
from bench.protocol import Codec, FrameError, Message
from bench.recorder import ORACLE_FRAMES, oracle_input
from bench.rules.submission import default_rules, load_submission


@dataclass
class ReplayOutcome:
    chain: VerifyReport
    header: dict
    oracle: Oracle | None
    decode_problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    redecoded: int = 0            # frames decoded again from their raw bytes
    failed_rounds: dict[int, str] = field(default_factory=dict)   # round -> why the bench recorded it failed

    @property
    def passed(self) -> bool:
        """As ``bench run`` judged the session: an intact chain, every frame
        decodes, no violation, no round that failed."""
        return (self.chain.ok and not self.decode_problems and self.oracle is not None
                and not self.oracle.violations and not self.failed_rounds)


def _records(path):
    for number, record, _ in iter_records(path):
        if record is not None:
            yield number, record


def _rules_from(header: dict, notes: list[str]):
    submission = header.get("submission")
    if submission:
        if Path(submission).exists() and file_digest(submission) == header.get("submission_sha256"):
            return load_submission(submission)
        notes.append(f"submission {submission} is missing or changed since the session "
                     f"(SHA-256 {str(header.get('submission_sha256'))[:16]}…): judged by the regulation's defaults")
    return default_rules(header["game"], header.get("paytable"))


class _Recorded(dict):
    """A message as the journal records it (``Message.as_dict``: its type,
    sequence number and fields in one mapping), read by the oracle through
    the attributes it reads of a ``Message`` (``type``, ``seq``, ``fields``,
    ``get``, ``[]``). Replay judges some forty a round; making a ``Message``
    of each cost a tenth of replay."""

    __slots__ = ("type", "seq")

    @property
    def fields(self) -> dict:
        return self          # type and seq too: no field has either name

    @property
    def round(self):
        return self.get("round")

    def as_dict(self) -> dict:
        return dict(self)


def _message(data: dict) -> _Recorded:
    message = _Recorded(data)
    message.type = data["type"]
    message.seq = data.get("seq")
    return message


class _Judge:
    """Takes the journal's records one by one (a ``verify_journal`` visitor):
    the header sets up the oracle; each frame the oracle judged live is
    judged again."""

    def __init__(self, path, redecode: bool = False):
        self.path = path
        self.redecode = redecode
        self.header: dict | None = None
        self.oracle: Oracle | None = None
        self.codec: Codec | None = None
        self.decode_problems: list[str] = []
        self.notes: list[str] = []
        self.last_mono = None
        self.redecoded = 0
        self.failed_rounds: dict[int, str] = {}

    def __call__(self, number: int, record: dict) -> None:
        if self.header is None:
            if record.get("kind") != "session":
                raise BenchError(f"{self.path}: line {number}: not a session header (kind {record.get('kind')!r})")
            self.header = record
            self.codec = Codec(record["game"])
            self.oracle = Oracle(record["game"], _rules_from(record, self.notes),
                                 response_timeout=record.get("phases", {}).get("reply_s", 3.0))
            return
        if record.get("failure") and isinstance(record.get("round"), int):
            self.failed_rounds[record["round"]] = str(record["failure"])
        wire = record.get("wire")
        if wire is not None:
            self._wire(number, wire)
        elif record.get("kind") == "frame":
            self._schema1_frame(number, record)

    def _wire(self, number: int, wire) -> None:
        observe = self.oracle.observe
        for index, row in enumerate(wire):
            try:
                direction, frame_kind, mono, _, _, raw, recorded, _ = row      # WIRE_COLUMNS
            except (TypeError, ValueError):
                self.decode_problems.append(f"line {number}, frame {index}: not a frame of 8 columns")
                continue
            if recorded is None or (frame_kind != "message" and frame_kind != "send") \
                    or (direction, frame_kind) not in ORACLE_FRAMES:
                continue            # (ACKs, the commonest frames, are passed over without a tuple made)
            where = f"line {number}, frame {index}"
            if self.redecode:
                message = self._decode(where, raw, recorded)
            else:
                try:
                    message = _message(recorded)
                except (KeyError, TypeError, AttributeError):
                    message = self._decode(where, raw, None)
            if message is None:
                continue
            self.last_mono = mono
            if observe(direction, message, mono) and not self.redecode:
                # a verdict: check it stands on the raw bytes
                self._decode(where, raw, message.as_dict())

    def _decode(self, where: str, raw, recorded) -> Message | None:
        """The message decoded again from the raw bytes, compared with the recorded one."""
        self.redecoded += 1
        try:
            message, _ = self.codec.decode_line(raw_bytes(raw).rstrip(b"\r\n"))
        except FrameError as err:
            self.decode_problems.append(f"{where}: recorded frame does not decode: {err}")
            return None
        except Exception as err:   # never let one record stop the replay
            self.decode_problems.append(f"{where}: recorded frame does not decode: {err!r}")
            return None
        if recorded is not None and message.as_dict() != recorded:
            self.decode_problems.append(f"{where}: the decoded message differs from the recorded one")
        return message

    def _schema1_frame(self, number: int, record: dict) -> None:
        if not oracle_input(record.get("dir"), record.get("frame"), record.get("message")):
            return
        message = self._decode(f"line {number}", record.get("raw", ""), record.get("message"))
        if message is None:
            return
        self.last_mono = record.get("mono")
        self.oracle.observe(record["dir"], message, self.last_mono)


@contextmanager
def _cycle_collector_paused():
    """Replay makes a few hundred short-lived containers a round (the parsed
    record) and no reference cycles worth collecting: the cyclic collector's
    passes over them cost about 4% of replay. It is paused while the journal
    is read; whatever cycles did form are collected when it resumes."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def replay(path: str | Path, expected_head: str | None = None, *, redecode: bool = False) -> ReplayOutcome:
    """Verify the chain and judge every frame again, reading the file once."""
    judge = _Judge(path, redecode)
    with _cycle_collector_paused():
        chain = verify_journal(path, expected_head=expected_head, visit=judge)
    if judge.header is None:
        raise BenchError(f"{path}: the journal is empty")
    judge.oracle.finish(judge.last_mono)
    notes = judge.notes
    if not chain.ended and not chain.torn_tail:
        notes.append("the journal ends without its session-end record: the session was cut off "
                     "(the round in flight, if any, is lost)")
    return ReplayOutcome(chain, judge.header, judge.oracle, judge.decode_problems, notes, judge.redecoded,
                         judge.failed_rounds)


def plant_records(path: str | Path, round_no: int) -> list[dict]:
    """The plant's readings in round ``round_no``, in order (schema 2: inside
    the round records; schema 1: ``plant`` records)."""
    found = []
    for _, record in _records(path):
        if record.get("kind") == "plant" and record.get("round") == round_no:
            found.append(record)
        for reading in record.get("plants") or ():
            if isinstance(reading, dict) and reading.get("round") == round_no:
                found.append(reading)
    return found


def resimulate(path: str | Path, round_no: int, gif: str | None = None) -> tuple[bool, str]:
    """Simulate round ``round_no``'s last drop or spin again from its recorded
    seed; True if the physics gives the recorded outcome. Draws a GIF if asked."""
    records = _records(path)
    _, header = next(records)
    plants = plant_records(path, round_no)
    if not plants:
        return False, f"round {round_no}: no plant record in the journal"
    record = plants[-1]
    design_path = header.get("design")
    if header.get("plant") not in ("tower", "wheel"):
        return False, f"round {round_no}: plant {header.get('plant')!r} has no physics to simulate again"
    if not design_path or not Path(design_path).exists():
        return False, f"round {round_no}: design file {design_path!r} is not here"
    if file_digest(design_path) != header.get("design_sha256"):
        return False, f"round {round_no}: design file {design_path} changed since the session (SHA-256 differs)"
    seed = record["seed"]
    if header["plant"] == "tower":
        from twin.tower import drop_traced, load_design
        design = load_design(design_path)
        loaded = record.get("detail", {}).get("loaded")
        result, trace = drop_traced(design, seed, loaded=loaded)
        same = list(result.faces) == record["dice"] and [d.flat for d in result.dice] == record["flat"]
        told = (f"round {round_no}: seed {seed}, loaded {loaded}: simulated faces {list(result.faces)} "
                f"flat {[d.flat for d in result.dice]}; recorded {record['dice']} flat {record['flat']}")
        if gif:
            from twin.tower.picture import drop_gif
            drop_gif(design, result, trace, gif)
    else:
        from twin.wheel import load_design, trace as spin_trace
        design = load_design(design_path)
        traced = spin_trace(design, seed)
        same = traced.result.number == record["pocket"]
        told = f"round {round_no}: seed {seed}: simulated pocket {traced.result.number}; recorded {record['pocket']}"
        if gif:
            from twin.wheel.picture import save_gif
            save_gif(design, traced, gif)
    return same, told + (" — the same" if same else " — DIFFERENT")


def describe(outcome: ReplayOutcome) -> str:
    lines = []
    chain = outcome.chain
    lines.append(f"hash chain: {chain.records} records, " + ("intact" if chain.ok else "BROKEN"))
    for problem in chain.problems:
        lines.append(f"  line {problem.line}: {problem.what}")
    if chain.torn_tail:
        lines.append("  the last line was cut off mid-write (a crash): that round is lost")
    if chain.incomplete_rounds:
        lines.append(f"  incomplete rounds: {', '.join(map(str, chain.incomplete_rounds))}")
    for problem in outcome.decode_problems:
        lines.append(f"  {problem}")
    for note in outcome.notes:
        lines.append(f"  note: {note}")
    oracle = outcome.oracle
    if oracle is not None:
        lines.append(f"oracle: {len(oracle.rounds)} rounds re-verified, {len(oracle.violations)} violations")
        lines.append(f"  frames decoded again from their raw bytes: {outcome.redecoded}")
        for violation in oracle.violations[:20]:
            lines.append(f"  round {violation.round}, frame {violation.frame}: {violation.clause}: {violation.message}")
    for round_no, failure in sorted(outcome.failed_rounds.items()):
        lines.append(f"  round {round_no} failed: {failure}")
    lines.append("PASS" if outcome.passed else "FAIL")
    return "\n".join(lines)
