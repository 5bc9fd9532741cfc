"""The session journal: an append-only, hash-chained record of everything that
happened in a session, enough on its own to re-verify and re-simulate it.

Format: JSON lines, one record each. A line is ``{"hash":"H",`` followed by
the rest of the record in canonical form (sorted keys, no spaces, ASCII only),
where H is the SHA-256 of that rest as canonical JSON: the line with its own
``"hash":"H",`` member taken out. Every record also carries

- ``seq``: its index, from 0;
- ``prev``: the ``hash`` of the record before it (64 zeros for the first).

So a changed byte anywhere breaks either the JSON or the record's own hash;
a removed or reordered record breaks ``seq`` and ``prev``. Checking needs no
re-encoding, which keeps replay fast. (Without a secret key anyone can
recompute a whole chain; that is why ``bench run`` also writes the head hash
to ``session.head``, for a regulator to keep apart from the file:
``verify_journal(path, expected_head=...)``; and with a bench key the
journal carries ``seal`` records that a regulator checks with the key's
fingerprint: ``bench.journal.seal``.)

Schema 2 (this writer) keeps one record per round: ``write_round`` writes a
``round`` record holding every frame that crossed the link since the record
before it (``wire``: one array per frame, columns ``WIRE_COLUMNS``), the
plant's readings and the oracle's verdicts, hands it to the operating system
and fsyncs it (``bench run`` defers the fsync to its next wait for the
controller: see ``JournalWriter``). A crash loses at most the round in flight,
never as tampering: a line it tore still names its round (an incomplete
round), and a round it stopped before its record leaves the session without
its ``session-end`` record, which replay reports as a session cut off. One record a round, not one a frame, is what lets replay keep
up with thousands of rounds a second (one parse and one hash a round). Schema
1 journals (a ``frame`` record per frame, ``round-end`` records) still verify
and replay.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import orjson

from tablebench_io.commandline import signals_held

SCHEMA_VERSION = 2
GENESIS = "0" * 64
# One frame in a schema-2 ``round`` record's ``wire`` list: direction (tx/rx),
# frame kind (send, retransmit, ack, nak, message, duplicate, rejected, out-of-order),
# monotonic, wall and simulated time, the raw bytes (``raw_text``), the
# decoded message (``Message.as_dict()``, or null) and a note (or null).
WIRE_COLUMNS = ("dir", "frame", "mono", "wall", "sim", "raw", "message", "note")
# A round record names its round right after its hash (``"kind":"round","round":N``, the
# rest in sorted order), so a line torn by a power cut names its round once 100 bytes or so
# are on disk; the plant readings that sort before ``round`` are tens of kilobytes.
_TORN_ROUND = re.compile(rb'^\{"hash":"[0-9a-f]{64}","kind":"round","round":(\d+)[,}]')
# Journals written before that: the members in sorted order, ``round`` after ``prev``.
_TORN_ROUND_SORTED = re.compile(rb'^\{"hash":"[0-9a-f]{64}",.*?"kind":"round",.*?"prev":"[0-9a-f]{64}","round":(\d+),')
_ROUND_FIRST = b'{"kind":"round","round":'


def canonical_bytes(obj: dict[str, Any]) -> bytes:
    """Sorted keys, no spaces, ASCII only. orjson writes a round record several
    times faster than the standard library; where its output is not pure
    ASCII (raw bytes >= 0x80 from a damaged frame) or it cannot encode a value,
    the standard library's escaped form is used. Either way the hash is over
    the bytes written, so a verifier never needs to encode anything again."""
    try:
        text = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
        if text.isascii():
            return text
    except TypeError:      # orjson.JSONEncodeError is a TypeError
        pass
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def _round_first(body: dict[str, Any]) -> bytes:
    """A round record's canonical bytes with its kind and round first, the
    rest sorted (``_TORN_ROUND``). The hash is over the bytes as written, so
    a verifier needs no particular order."""
    round_no = body["round"]
    if isinstance(round_no, bool) or not isinstance(round_no, int):
        return canonical_bytes(body)
    rest = canonical_bytes({key: value for key, value in body.items() if key not in ("kind", "round")})
    return _ROUND_FIRST + str(round_no).encode("ascii") + b"," + rest[1:]


def raw_text(data: bytes) -> str:
    """Raw wire bytes as a JSON-safe string that maps back byte for byte
    (latin-1: one code point per byte; ``canonical_bytes`` escapes the non-ASCII)."""
    return data.decode("latin-1")


def raw_bytes(text: str) -> bytes:
    return text.encode("latin-1")


class JournalError(Exception):
    """The journal cannot be written (e.g. it does not end where a writer can
    safely continue). Never raised for what a verifier should report."""


class JournalWriter:
    """Appends records to a journal file. Opening an existing journal continues
    its chain after its last intact record; a torn last line (a crash in the
    middle of a write) is kept as it is and the writer refuses to continue,
    rather than silently losing or rewriting recorded data.

    ``defer_fsync``: a round's record is handed to the operating system at
    once (a crash of the bench loses nothing of it) and fsynced when the
    writer's owner next has nothing better to do (``fsync_deferred``: the
    bench calls it while it waits for the controller) or, at the latest,
    before the next record, ``sync`` or ``close``. So at most one finished
    round is ever without its fsync, and only until the bench next waits:
    then a loss of power could take it with the round in flight. Without it,
    every round waits for its own fsync (about 0.3 ms here, a seventh of a
    round at full speed). A background thread was tried and was slower: its
    wake-ups compete for the interpreter with the bench.
    """

    def __init__(self, path: str | os.PathLike[str], *, defer_fsync: bool = False, sealer=None):
        self.path = Path(path)
        self.seq = 0
        self.head = GENESIS
        self.size = 0            # bytes of the journal so far
        # ``sealer`` (a ``bench.journal.seal.Sealer``): a ``seal`` record after the
        # header, after every so many rounds and at ``close``.
        self.sealer = sealer
        if self.path.exists() and self.path.stat().st_size > 0:
            if sealer is not None:
                raise JournalError(f"{self.path}: a sealed journal starts a new file: the keys that "
                                   "sealed an existing one are gone")
            self._resume()
        # Unbuffered: each record goes to the operating system in whole writes of its own, so that
        # a write that fails (a full disk) is undone exactly (``_write``) and nothing of it lingers
        # in a buffer to be written later.
        self._file = open(self.path, "ab", buffering=0)
        self.defer_fsync = defer_fsync
        self._fsync_due = False

    def _resume(self) -> None:
        report = verify_journal(self.path)
        if not report.ok or report.torn_tail:
            raise JournalError(f"{self.path}: cannot append to a journal that does not verify: "
                               + "; ".join(p.what for p in report.problems))
        self.seq = report.records
        self.head = report.head
        self.size = self.path.stat().st_size

    def append(self, kind: str, **data: Any) -> dict[str, Any]:
        body = {"kind": kind, "seq": self.seq, "prev": self.head, **data}
        text = _round_first(body) if kind == "round" else canonical_bytes(body)
        digest = hashlib.sha256(text).hexdigest()
        # The hash goes first, so the rest of the line is exactly what it hashes. SIGINT and SIGTERM
        # wait for the line and the chain's state together: raised between them (a fresh clone's
        # suite, once), the line was on disk while seq and head were not moved on, and the
        # session-end record chained to the record before it, a broken chain of the bench's making.
        with signals_held():
            self._write(b'{"hash":"' + digest.encode("ascii") + b'",' + text[1:] + b"\n")
            self.seq += 1
            self.size += len(text) + 75             # the line: {"hash":"H", the text less its "{", a line end
            self.head = body["hash"] = digest
        if self.sealer is not None and kind != "seal" and self.sealer.due(kind):
            self.seal()
        return body

    def _write(self, line: bytes) -> None:
        """The whole line, or nothing: a write that fails part-way (no space
        left on the device) is cut back to the last whole record, so that the
        journal still verifies and can take the session's end once there is
        room (``bench.session.runner``)."""
        view = memoryview(line)
        try:
            while view:
                view = view[self._file.write(view):]
        except OSError:
            try:
                os.ftruncate(self._file.fileno(), self.size)
            except OSError:
                pass
            raise

    def seal(self, *, final: bool = False) -> dict[str, Any]:
        """A ``seal`` record over the chain head so far (``bench.journal.seal``).
        The epoch's key is let go only once the seal is in the journal: a seal
        that could not be written is signed again by the same key."""
        with signals_held():          # the seal written and its key let go together, as append does
            fields = self.sealer.seal(self.seq, self.head, final=final)
            try:
                record = self.append("seal", **fields)
            except BaseException:
                self.sealer.rollback()
                raise
            self.sealer.commit()
        return record

    def fsync_deferred(self) -> None:
        """The fsync ``write_round`` left for later (``defer_fsync``), if any."""
        if self._fsync_due:
            self._fsync_due = False
            os.fsync(self._file.fileno())

    def sync(self) -> None:
        os.fsync(self._file.fileno())
        self._fsync_due = False

    def write_round(self, round_no: int, *, wire: list, plants: list, verdicts: list,
                    **data: Any) -> dict[str, Any]:
        """One round's record (schema 2), flushed to the operating system and
        fsynced (later, with ``defer_fsync``)."""
        self.fsync_deferred()
        record = self.append("round", round=round_no, wire=wire, plants=plants, verdicts=verdicts, **data)
        if self.defer_fsync:
            self._fsync_due = True
        else:
            os.fsync(self._file.fileno())
        return record

    def close(self) -> None:
        if not self._file.closed:
            try:
                if self.sealer is not None and not self.sealer.finished:
                    self.seal(final=True)
                self.sync()
            finally:
                self._file.close()

    def __enter__(self) -> "JournalWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Problems(list):
    """A list of what is wrong that keeps the first ``LIMIT`` and counts the
    rest (``more``): a file of a million damaged lines is named by its first
    hundred, in bounded memory."""

    LIMIT = 100

    def __init__(self, *args):
        super().__init__(*args)
        self.more = 0

    def append(self, item) -> None:
        if len(self) < self.LIMIT:
            super().append(item)
        else:
            self.more += 1

    # The total, kept and counted: it shadows list.count on purpose (nobody counts one
    # problem's occurrences), which mypy rightly calls an incompatible override.
    @property
    def count(self) -> int:  # type: ignore[override]
        return len(self) + self.more


@dataclass(frozen=True)
class Problem:
    line: int          # 1-based line number in the file
    what: str


@dataclass
class VerifyReport:
    path: str
    records: int = 0
    head: str = GENESIS
    problems: Problems = field(default_factory=Problems)
    torn_tail: bool = False          # the last line was cut off mid-write
    incomplete_rounds: list[int] = field(default_factory=list)
    ended: bool = False              # the session's closing record is there (no crash cut it short)
    torn_after_round: int | None = None   # a torn last line cut before it named its round: the round before it

    @property
    def ok(self) -> bool:
        return not self.problems


def iter_records(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any] | None, bytes]]:
    """(line number, parsed record or None if unparsable, raw line) for each line."""
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            yield number, _parse(line), line


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        # orjson is stricter than JSON as Python writes it (NaN, integers past
        # 64 bits): such a line is judged by the standard library.
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):     # includes UnicodeDecodeError, an integer of thousands of digits
            return None
    return record if isinstance(record, dict) else None


def _line_matches_hash(line: bytes, stored: Any) -> bool:
    """The line, less its own ``"hash":"..."`` member, must hash to the stored
    value. The writer hashed exactly that text (canonical JSON without the
    hash), so any changed byte, including a reformatting that JSON would not
    notice, breaks the match; no re-encoding is needed to check it."""
    if not isinstance(stored, str):
        return False
    # The writer puts the hash first: the line is '{"hash":"H",' + the rest.
    prefix = b'{"hash":"' + stored.encode("ascii", "replace") + b'",'
    if not line.startswith(prefix):
        return False
    digest = hashlib.sha256(b"{")
    digest.update(memoryview(line)[len(prefix):len(line) - 1 if line.endswith(b"\n") else len(line)])
    return digest.hexdigest() == stored


def verify_journal(path: str | os.PathLike[str], expected_head: str | None = None,
                   visit: Callable[[int, dict[str, Any]], None] | None = None) -> VerifyReport:
    """Check the chain record by record in one pass; every problem names the
    line. ``visit(line_number, record)`` is called for each parsed record, so
    a caller (replay) reads the file once."""
    report = VerifyReport(path=str(path))
    expected_prev: str | None = GENESIS
    open_rounds: set[int] = set()
    last_round: int | None = None
    number = 0
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.endswith(b"\n"):
                # Only the last line can lack its newline: a crash in the middle
                # of a write. The round in flight is lost; the rest stands.
                report.torn_tail = True
                torn = _TORN_ROUND.match(line) or _TORN_ROUND_SORTED.match(line)
                if torn:
                    open_rounds.add(int(torn.group(1)))
                else:
                    # Cut before it named its round (or it was not a round): what replay can
                    # say is where it stood, after the last round recorded.
                    report.torn_after_round = last_round
                break
            record = _parse(line)
            if record is None:
                report.problems.append(Problem(number, "not a JSON object (changed or corrupted bytes)"))
                expected_prev = None
                continue
            if not _line_matches_hash(line, record.get("hash")):
                report.problems.append(Problem(number, f"record {record.get('seq')} does not match its hash "
                                                       "(bytes changed)"))
            if expected_prev is not None and record.get("prev") != expected_prev:
                report.problems.append(Problem(number, f"record {record.get('seq')} does not follow the record "
                                                       "before it (a record was removed, inserted or reordered)"))
            if record.get("seq") != report.records:
                report.problems.append(Problem(number, f"sequence number {record.get('seq')} where "
                                                       f"{report.records} was expected"))
            report.records += 1
            expected_prev = record.get("hash")
            report.head = str(expected_prev)
            kind = record.get("kind")
            round_no = record.get("round")
            if kind in ("round", "round-end") and isinstance(round_no, int):
                last_round = round_no
            if kind == "session-end":
                report.ended = True
            elif isinstance(round_no, int) and kind != "round":
                # schema 1: a round's frames come before its round-end record
                if kind == "round-end":
                    open_rounds.discard(round_no)
                else:
                    open_rounds.add(round_no)
            if visit is not None:
                visit(number, record)
    report.incomplete_rounds = sorted(open_rounds)
    if expected_head is not None and report.head != expected_head:
        report.problems.append(Problem(number, f"head hash {report.head[:16]}… is not the expected "
                                               f"{expected_head[:16]}… (records were changed or cut off)"))
    return report
