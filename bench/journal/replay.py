"""Replay a session journal: verify its hash chain and put the recorded frames
past a fresh oracle exactly as the live link did (``bench.oracle.feed``: the one rule
of which frames the oracle judges).
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

The outcome in words, for a person, is ``bench.journal.replay_text``.
"""

from __future__ import annotations

import gc
import hashlib
from collections import Counter
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench.journal.ending import STOPPED_STATUS, verdict
from tablebench_io.commandline import Exit
from bench.errors import BenchError
from bench.journal.chain import Problems, VerifyReport, iter_records, raw_bytes, verify_journal
from bench.oracle import Oracle
from bench.play.plant import file_digest
from bench.adapters.registry import AdapterBroken, AdapterError, get_adapter
from bench.protocol import BENCH, Codec, FrameError, Message
from bench.protocol.messages import SPECS
from bench.oracle.feed import judged_camera, judged_record, judged_rows
from bench.protocol.timeouts import DEFAULT_REPLY_S
from bench.rules.registry import game_names
from bench.rules.submission import default_rules, load_submission
from bench.journal.seal import SealCheck, SealReport
# The outcome in words, in a module of its own; named here too, where bench replay finds it.
from bench.journal.replay_text import describe, describe_seals  # noqa: F401


CUT_OFF = "cut-off"     # no session-end record: the bench was killed, or the machine stopped
KEPT_PER_CLAUSE = 100    # violations of a clause kept for the report (every one is counted)
SCHEMA1_INDEX = -1       # the wire index of a schema-1 frame (a record a frame) in ``ReplayOutcome.undecoded``


@dataclass
class ReplayOutcome:
    chain: VerifyReport
    header: dict
    oracle: Oracle | None
    decode_problems: list[str] = field(default_factory=Problems)
    notes: list[str] = field(default_factory=list)
    redecoded: int = 0            # frames decoded again from their raw bytes
    seals: SealReport = field(default_factory=lambda: SealReport(checked=False))
    structure_problems: list[str] = field(default_factory=Problems)   # records out of place
    failed_rounds: dict[int, str] = field(default_factory=dict)   # failed, voided or interrupted rounds
    ending: str = CUT_OFF          # how the session ended, as the journal shows it (``bench.journal.ending``)
    status: int = Exit.VIOLATION   # the exit status the run had, worked out again from the journal
    expected_head: str | None = None   # the head hash kept apart, if one was given
    # (line, wire index) of every frame decoded again from its raw bytes that did not decode: the
    # oracle never saw them. Every one, not the first hundred ``decode_problems`` names, so that a
    # page numbering the oracle's frames (bench.report.session_facts) places each frame after them.
    undecoded: set[tuple[int, int]] = field(default_factory=set)

    @property
    def intact(self) -> bool:
        """The journal is what the bench wrote: chain, seals, bytes and structure."""
        return self.chain.ok and self.seals.ok and not self.decode_problems and not self.structure_problems

    @property
    def exit_status(self) -> int:
        """The run's status for an intact journal; 1 for one that is not."""
        return self.status if self.intact else Exit.VIOLATION

    @property
    def passed(self) -> bool:
        return self.intact and self.oracle is not None and self.exit_status == Exit.OK

    @property
    def anchors(self) -> list[str]:
        """What, kept apart from the journal, vouches for it: its head hash
        ("head", matched), or seals checked with the bench key to the end
        ("seal"). Without either, a journal rewritten and its chain computed
        again reads the same: a pass then stands on the journal's word alone."""
        found = ["head"] if self.expected_head and self.chain.ok else []
        s = self.seals
        # A seal signs the chain's recorded hashes: with a record that does not
        # match its hash, the seals vouch for what was there, not for these bytes.
        if self.chain.ok and s.checked and s.sealed and s.ok and s.final and not s.unsealed_records:
            found.append("seal")
        return found

    @property
    def verdict(self) -> str:
        """pass, fail, or caution: a pass nothing kept apart vouches for (``anchors``)."""
        if not self.passed:
            return "fail"
        return "pass" if self.anchors else "caution"

    def to_json(self) -> dict:
        """What ``bench replay --json`` says of the journal (the session's summary is added beside it)."""
        chain, oracle = self.chain, self.oracle
        return {
            "journal": chain.path, "head": chain.head, "expected_head": self.expected_head,
            "chain": {"records": chain.records, "ok": chain.ok, "ended": chain.ended, "torn_tail": chain.torn_tail,
                      "problems": [{"line": p.line, "what": p.what} for p in chain.problems]},
            "seals": self.seals.to_json(), "anchors": self.anchors,
            "decode_problems": list(self.decode_problems), "structure_problems": list(self.structure_problems),
            "notes": list(self.notes), "redecoded": self.redecoded,
            "rounds_judged": len(oracle.rounds) if oracle is not None else 0,
            "violation_count": oracle.violation_count if oracle is not None else 0,
            "violations_by_clause": dict(oracle.violations_by_clause) if oracle is not None else {},
            # the first KEPT_PER_CLAUSE of each clause; the journal has every one
            "violations": [{"round": v.round, "clause": v.clause, "frame": v.frame, "message": v.message}
                           for v in (oracle.violations if oracle is not None else ())],
            "failed_rounds": {str(k): v for k, v in sorted(self.failed_rounds.items())},
            "ending": self.ending, "status": int(self.exit_status), "passed": self.passed, "verdict": self.verdict,
        }


def readable_records(path):
    """(line number, record) of every record of the journal that reads as one."""
    for number, record, _ in iter_records(path):
        if record is not None:
            yield number, record


@contextmanager
def session_file(header: dict, kind: str, given: str | Path | None = None):
    """A path to the file (``kind``: "design" or "submission") the session ran
    with, as its journal recorded it: ``given`` if the user names one (it must
    be the same file: its SHA-256 is checked), else the full text the header
    carries, written to a temporary folder under its original name (so that
    replay runs on any machine, from any directory), else the recorded path
    for a journal too old to carry the text. Yields None when the session had
    no such file. Raises ``BenchError`` when a file is missing or differs."""
    recorded, digest, text = header.get(kind), header.get(f"{kind}_sha256"), header.get(f"{kind}_text")
    if given is not None:
        if not Path(given).is_file():
            raise BenchError(f"{given}: no such file")
        if digest and file_digest(given) != digest:
            raise BenchError(f"{given}: not the {kind} the session ran with (SHA-256 {file_digest(given)[:16]}…, "
                             f"recorded {str(digest)[:16]}…)")
        yield Path(given)
        return
    if not recorded:
        yield None
        return
    if isinstance(text, str):
        data = text.encode("utf-8")
        if digest and hashlib.sha256(data).hexdigest() != digest:
            raise BenchError(f"journal header: {kind}_text does not match {kind}_sha256: the copy was altered")
        with tempfile.TemporaryDirectory(prefix="tablebench-replay-") as folder:
            path = Path(folder) / (Path(str(recorded)).name or kind)
            path.write_bytes(data)
            yield path
        return
    if not Path(recorded).is_file():
        raise BenchError(f"{kind} file {recorded!r} is not here and the journal carries no copy of it; "
                         f"name it with --{kind} FILE")
    if digest and file_digest(recorded) != digest:
        raise BenchError(f"{kind} file {recorded} changed since the session (SHA-256 differs)")
    yield Path(recorded)


def rules_from_header(header: dict, notes: list[str], submission: str | Path | None = None):
    try:
        with session_file(header, "submission", submission) as path:
            if path is not None:
                return load_submission(path)
    except BenchError as err:
        if submission is not None:
            raise
        notes.append(f"{err}: judged by the regulation's defaults")
    return default_rules(header["game"], header.get("paytable"))


class _Recorded(dict):
    """A message as the journal records it (``Message.as_dict``: its type,
    sequence number and fields in one mapping), read by the oracle through
    the attributes it reads of a ``Message`` (``type``, ``seq``, ``fields``,
    ``get``, ``[]``). Replay judges some forty a round; making a ``Message``
    of each cost a tenth of replay."""

    __slots__ = ("type", "seq")
    type: str
    seq: int | None

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


def _codec_from(header: dict, game: str, notes: list[str], where: str):
    """What decodes the session's raw bytes again: the codec of the adapter
    the header names (``bench.adapters``), or the bench's own protocol for a
    journal that names none. An adapter that is not installed here stops the
    replay: the evidence of a verdict must stand on the bytes, and only the
    adapter can read them."""
    name = header.get("adapter")
    if name is None:
        return Codec(game)
    recorded = header.get("adapter_version")
    if not isinstance(name, str):
        raise BenchError(f"{where}: adapter: {name!r} is not an adapter's name")
    try:
        adapter = get_adapter(name)
    except AdapterBroken as err:    # installed but unusable: the replay verifies nothing, and says why
        raise BenchError(f"{where}: adapter: the session spoke {name} {recorded or ''}, and the adapter from "
                         f"{err.package} cannot be used here: {err.problem}") from None
    except AdapterError:
        raise BenchError(f"{where}: adapter: the session spoke {name} {recorded or ''}, which is not installed "
                         "here; install it to replay this journal (bench adapters lists those installed)") from None
    if recorded is not None and str(recorded) != str(adapter.version):
        notes.append(f"the session spoke {name} {recorded}; its frames are decoded again with {name} "
                     f"{adapter.version}, the version installed here")
    return adapter.codec(game, BENCH)


class _Judge:
    """Takes the journal's records one by one (a ``verify_journal`` visitor):
    the header sets up the oracle; each frame the oracle judged live is
    judged again."""

    def __init__(self, path, redecode: bool = False, submission: str | Path | None = None):
        self.path = path
        self.redecode = redecode
        self.submission = submission
        self.header: dict | None = None
        self.oracle: Oracle | None = None
        self.codec: Codec | None = None
        self.decode_problems: list[str] = Problems()
        self.undecoded: set[tuple[int, int]] = set()
        self.notes: list[str] = []
        self.last_mono = None
        self.redecoded = 0
        self.structure_problems: list[str] = Problems()
        self.failed_rounds: dict[int, str] = {}
        self.end: dict | None = None           # the session-end record
        self.last_round: int | None = None
        self.live_clauses: Counter[str] = Counter()   # the verdicts the bench journalled as it judged

    def _start(self, number: int, header: dict) -> None:
        """The header sets up the oracle as the session's was."""
        if header.get("game_file_text") is not None:     # a game file's variant, as the journal keeps it
            from bench.rules.variant import game_from_text
            try:
                game_from_text(str(header["game_file_text"]), str(header.get("game_file") or "<journal game file>"))
            except BenchError as err:
                raise BenchError(f"{self.path}: line {number}: game_file_text: {err}") from None
        game = header.get("game")
        known = game_names()
        if not isinstance(game, str) or game not in known:
            raise BenchError(f"{self.path}: line {number}: game: {game!r} is not a game the bench knows "
                             f"({', '.join(known)}); the session header must name one")
        phases = header.get("phases")
        if phases is not None and not isinstance(phases, dict):
            raise BenchError(f"{self.path}: line {number}: phases: {str(phases)[:40]!r} is not the session's "
                             "phase lengths (a mapping such as {\"reply_s\": 3.0})")
        reply_s = phases.get("reply_s", DEFAULT_REPLY_S) if isinstance(phases, dict) else DEFAULT_REPLY_S
        if isinstance(reply_s, bool) or not isinstance(reply_s, (int, float)) or not 0 < reply_s <= 3600:
            raise BenchError(f"{self.path}: line {number}: phases.reply_s: {reply_s!r} is not a number of "
                             "seconds from 0 to 3600")
        try:
            rules = rules_from_header(header, self.notes, self.submission)
        except (BenchError, LookupError, TypeError, ValueError) as err:
            raise BenchError(f"{self.path}: line {number}: the session's rules: {err}") from None
        self.codec = _codec_from(header, game, self.notes, f"{self.path}: line {number}")
        self.header = header
        self.oracle = Oracle(game, rules, response_timeout=reply_s, keep_per_clause=KEPT_PER_CLAUSE)

    def _place(self, number: int, record: dict) -> None:
        """The structure a bench writes, checked without the head: one
        header first, round numbers never going back, one session-end record
        and nothing after it but its seal."""
        kind = record.get("kind")
        where = f"line {number}"
        if self.end is not None and kind != "seal":       # the final seal follows the session-end record
            self.structure_problems.append(f"{where}: a {kind!r} record after the session-end record")
        if kind == "session":
            self.structure_problems.append(f"{where}: a second session header")
        elif kind == "session-end":
            if self.end is None:
                self.end = record
        elif kind in ("round", "round-end"):
            round_no = record.get("round")
            if isinstance(round_no, bool) or not isinstance(round_no, int) or round_no < 0:
                self.structure_problems.append(f"{where}: round {round_no!r} is not a round number")
                return
            # Round 0: a round that failed before the controller opened one. A
            # number may repeat (the pytest table writes a record a scenario,
            # and several scenarios may end in one round) but never go back.
            if round_no and self.last_round is not None and round_no < self.last_round:
                self.structure_problems.append(f"{where}: round {round_no} recorded after round {self.last_round}")
            if round_no:
                self.last_round = round_no
            failure = record.get("failure")
            if failure:
                self.failed_rounds[round_no] = str(failure)
        verdicts = record.get("verdicts")
        if isinstance(verdicts, list):
            self.live_clauses.update(str(v.get("clause")) for v in verdicts if isinstance(v, dict))

    def __call__(self, number: int, record: dict) -> None:
        if self.header is None:
            if record.get("kind") != "session":
                raise BenchError(f"{self.path}: line {number}: not a session header (kind {record.get('kind')!r})")
            self._start(number, record)
            return
        self._place(number, record)
        plants = record.get("plants")
        for plant in plants if isinstance(plants, list) else ():
            camera = judged_camera(plant)
            if camera is not None and self.oracle is not None:   # before the record's frames, as live
                self.oracle.recognised(camera)
        wire = record.get("wire")
        if wire is not None:
            self._wire(number, wire)
        elif record.get("kind") == "frame":
            self._schema1_frame(number, record)

    def _judging(self) -> tuple[Oracle, Codec]:
        """The oracle and codec the header set up (``_start``): every record after it is judged by them."""
        if self.oracle is None or self.codec is None:
            raise RuntimeError("a journal's frames judged before its session header")
        return self.oracle, self.codec

    def _wire(self, number: int, wire) -> None:
        observe = self._judging()[0].observe
        if not isinstance(wire, list):
            self.decode_problems.append(f"line {number}: wire is {type(wire).__name__}, not a list of frames")
            return
        redecode = self.redecode
        # Per judged frame only what judging needs: the frame's place in words
        # is made where a problem or a decoding names it (it was a tenth of replay).
        for index, direction, mono, _, raw, recorded, problem in judged_rows(wire):
            if problem is not None:
                self.decode_problems.append(f"line {number}, frame {index}: {problem}")
                continue
            message: Message | _Recorded | None
            if redecode or recorded.get("type") not in SPECS:
                message = self._decode(number, index, raw, recorded)
            else:
                try:
                    message = _message(recorded)
                except (KeyError, TypeError, AttributeError):
                    message = self._decode(number, index, raw, None)
            if message is None:
                continue
            self.last_mono = mono
            if observe(direction, message, mono) and not redecode:
                # a verdict: check it stands on the raw bytes
                self._decode(number, index, raw, message.as_dict())

    def _decode(self, number: int, index: int, raw, recorded) -> Message | None:
        """The message decoded again from the raw bytes, compared with the recorded one."""
        self.redecoded += 1
        where = f"line {number}" if index == SCHEMA1_INDEX else f"line {number}, frame {index}"
        try:
            message, _ = self._judging()[1].decode_line(raw_bytes(raw).rstrip(b"\r\n"))
        except FrameError as err:
            self.decode_problems.append(f"{where}: recorded frame does not decode: {err}")
            self.undecoded.add((number, index))
            return None
        except Exception as err:   # never let one record stop the replay
            self.decode_problems.append(f"{where}: recorded frame does not decode: {err!r}")
            self.undecoded.add((number, index))
            return None
        if recorded is not None and message.as_dict() != recorded:
            self.decode_problems.append(f"{where}: the decoded message differs from the recorded one")
        return message

    def _schema1_frame(self, number: int, record: dict) -> None:
        frame = judged_record(record)
        if frame is None:
            return
        if frame.problem is not None:
            self.decode_problems.append(f"line {number}: {frame.problem}")
            return
        message = self._decode(number, SCHEMA1_INDEX, frame.raw, frame.recorded)
        if message is None:
            return
        self.last_mono = frame.mono
        self._judging()[0].observe(frame.direction, message, frame.mono)


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


def replay(path: str | Path, expected_head: str | None = None, *, redecode: bool = False,
           submission: str | Path | None = None, pubkey: str | None = None) -> ReplayOutcome:
    """Verify the chain and judge every frame again, reading the file once;
    by the rules the journal carries, or ``submission`` (the same file); with
    ``pubkey`` (the bench key's fingerprint, ``bench.journal.keys.trusted_fingerprint``)
    verify every seal too."""
    judge = _Judge(path, redecode, submission)
    seals = SealCheck(pubkey)

    def visit(number: int, record: dict) -> None:
        seals(number, record)
        judge(number, record)
    with _cycle_collector_paused():
        chain = verify_journal(path, expected_head=expected_head, visit=visit)
    seals.finish()
    if not chain.ok and not redecode and chain.problems and judge.header is not None:
        # A record that does not match its hash may carry bytes changed under an
        # unchanged decoded message: judging the recorded message would read a
        # changed payout as compliant. So a broken chain is judged again on
        # the raw bytes of every frame (``--redecode``), and says so.
        judge = _Judge(path, True, submission)
        seals = SealCheck(pubkey)
        with _cycle_collector_paused():
            chain = verify_journal(path, expected_head=expected_head, visit=visit)
        seals.finish()
        judge.notes.append("the hash chain is broken: every frame was decoded again from its raw bytes and "
                           "judged on them (as --redecode does), not on the message recorded beside them")
    if judge.header is None or judge.oracle is None:     # the header sets the oracle up
        raise BenchError(f"{path}: the journal is empty")
    end = judge.end
    # The bench judged overdue replies at the moment it finished; so does replay.
    finished = end.get("finish_mono") if end is not None else None
    judge.oracle.finish(finished if isinstance(finished, (int, float)) and not isinstance(finished, bool)
                        else judge.last_mono)
    notes = judge.notes
    outcome = ReplayOutcome(chain, judge.header, judge.oracle, judge.decode_problems, notes, judge.redecoded,
                            seals.report, judge.structure_problems, judge.failed_rounds,
                            expected_head=expected_head, undecoded=judge.undecoded)
    _verdict(outcome, judge)
    return outcome


def _verdict(outcome: ReplayOutcome, judge: _Judge) -> None:
    """The session's ending and exit status, worked out from the journal as
    the bench worked them out live (``bench.journal.ending.verdict``), and checked
    against what the bench wrote."""
    end, oracle = judge.end, outcome.oracle
    if end is None:
        if not outcome.chain.torn_tail:
            outcome.notes.append("the journal ends without its session-end record: the session was cut off "
                                 "(the round in flight, if any, is lost)")
        outcome.ending, outcome.status = CUT_OFF, Exit.VIOLATION
        return
    if oracle is None:      # replay, and a live session's report, judge a journal that has an end with one
        raise RuntimeError("a session's ending worked out without its oracle")
    stopped = end.get("ending") if end.get("ending") in STOPPED_STATUS else None
    outcome.ending, outcome.status = verdict(stopped, oracle.violation_count, len(outcome.failed_rounds))
    if end.get("reason"):
        outcome.notes.append(f"the session ended early ({end.get('ending')}): {end.get('reason')}")
    if "status" in end and end.get("status") != outcome.status:
        outcome.structure_problems.append(
            f"the session-end record says exit status {end.get('status')!r} ({end.get('ending')}); "
            f"the journal's rounds and verdicts give {int(outcome.status)} ({outcome.ending})")
    if isinstance(end.get("lost"), dict):
        outcome.notes.append(f"the disk was full at the session's end: {end['lost']} of the last frames, "
                             "readings and verdicts could not be written")
    elif "ending" in end and stopped != "crashed":
        live, replayed = +judge.live_clauses, +oracle.violations_by_clause
        if live != replayed:
            outcome.structure_problems.append(
                f"the bench journalled verdicts {_by_clause(live)}; replay finds {_by_clause(replayed)}")


def _by_clause(counts: Counter) -> str:
    return "{" + ", ".join(f"{clause}: {count}" for clause, count in sorted(counts.items())) + "}"
