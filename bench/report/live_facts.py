"""The session report's facts gathered as ``bench run`` writes its journal,
so that writing the report costs about the same after 20 rounds or 20,000.

``bench replay --report`` reads the report's facts from the journal
(``bench.report.session_facts.read_session``): it replays every frame and
reads the file twice. ``bench run`` did the same once the session was over,
which took about a millisecond a round (4,750 rounds: 51 s on a loaded
machine, after SIGTERM, past a service manager's patience). Here the same
reader (``_Reader``) takes each record as it is written, at the bench's idle
moments; the oracle is the session's own, which judged the same frames
through the same feed (``bench.oracle.feed``); and the few records whose
frames or plant readings the page shows (its violations, failed, voided and
no-roll rounds: a bounded number, ``Wanted``) are read again from the
journal at the end, by their offsets. The page is the one ``bench replay
--report`` writes from the journal and the head: the same bytes
(tests/bench/test_stop_quickly.py holds the two to it).

A session whose journal is not what its oracle saw (the bench crashed and
judged no more, a full disk dropped frames) is left to ``read_session``.
"""

from __future__ import annotations

import json
from array import array
from bisect import bisect_right
from collections import Counter, deque
from pathlib import Path
from typing import Any, Callable, cast

import orjson

from bench.journal.chain import JournalWriter, VerifyReport, canonical_bytes
from bench.journal.replay import ReplayOutcome, _verdict
from bench.journal.seal import SealCheck
from bench.report.session_facts import SessionFacts, Wanted, _Reader, facts_of, scheduled_ordinals
from tablebench_io.commandline import signals_held

NO_ROUND = -1          # ``rounds``: the record is not a round's


def _as_journalled(value: Any) -> Any:
    """``value`` as replay reads it back from the journal: the canonical JSON
    the writer wrote (sorted keys, lists for tuples), parsed again."""
    return orjson.loads(canonical_bytes(value)) if isinstance(value, dict) else value


def _parse(line: bytes) -> dict | None:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:       # what the writer left to the standard library (bench.journal.chain)
        record = json.loads(line)
    return record if isinstance(record, dict) else None


class LiveFacts:
    """Takes every record the journal writes (``written``: queued; ``catch_up``:
    read, when the bench has nothing better to do) and, once the journal is
    closed, gives the report's facts (``facts``)."""

    def __init__(self, journal: str | Path):
        self.journal = Path(journal)
        self._queue: deque[tuple[int, dict]] = deque()
        self.reader: _Reader | None = None            # made from the header
        self.header: dict | None = None
        self.seals = SealCheck(None)                  # as replay without --pubkey reads them
        self.records = 0
        # Per record, by seq: where its line starts, the oracle's index of its first judged
        # frame and its round (NO_ROUND): 24 bytes a record, for reading a few again at the end.
        self.offsets, self.first_frames, self.rounds = array("q"), array("q"), array("q")
        self.other_rounds: dict[int, set] = {}        # seq -> rounds of readings it holds beside its own
        self.failed_rounds: dict[int, str] = {}       # as replay finds them (bench.journal.replay)
        self.live_clauses: Counter[str] = Counter()   # the verdicts journalled, by clause
        self.end: dict | None = None                   # the session-end record
        self.torn = False                              # a record was not read whole: these facts are wrong

    # -- as the journal is written ------------------------------------------
    def written(self, offset: int, record: dict) -> None:
        """A record the journal has just written, its line starting at byte ``offset``.
        It waits for ``catch_up``; one written before it that still waits is read now
        (a controller that is always ahead leaves the bench no idle moment), so that
        at most one record is ever held here."""
        self._queue.append((offset, record))
        if len(self._queue) > 1:
            self.catch_up(leave=1)

    def catch_up(self, leave: int = 0) -> None:
        """Read the records written since the last call (the bench's ``on_idle``),
        all but the last ``leave`` of them. SIGINT and SIGTERM wait until the
        records are read whole: one read half would leave the tallies wrong (the
        report is then read from the journal, as ``torn`` says)."""
        queue = self._queue
        if self.torn:               # these facts are lost: the report reads the journal
            queue.clear()
            return
        if len(queue) <= leave:
            return
        with signals_held():
            while len(queue) > leave:
                self.torn = True
                self._read(*queue[0])
                queue.popleft()
                self.torn = False

    def _read(self, offset: int, record: dict) -> None:
        if record.get("seq") != self.records:
            raise ValueError(f"record {record.get('seq')} came where record {self.records} was due")
        self.records += 1
        self.seals(self.records, record)
        kind, round_no = record.get("kind"), record.get("round")
        if self.reader is None:          # the header: the reader is made as read_session makes it
            self.header = _as_journalled(record)
            self.reader = _Reader(set(), set(), set(), scheduled_ordinals(self.header))
        self.offsets.append(offset)
        self.first_frames.append(self.reader.index)
        self.rounds.append(round_no if kind == "round" and isinstance(round_no, int) else NO_ROUND)
        others = {r.get("round") for r in record.get("plants") or () if isinstance(r, dict)} - {round_no}
        if others:
            self.other_rounds[record["seq"]] = others
        if kind == "session-end" and self.end is None:
            self.end = record
        elif kind in ("round", "round-end") and isinstance(round_no, int) and record.get("failure"):
            self.failed_rounds[round_no] = str(record["failure"])
        self.live_clauses.update(str(v.get("clause")) for v in record.get("verdicts") or () if isinstance(v, dict))
        self.reader.record(record)

    # -- once the journal is closed -----------------------------------------
    def facts(self, oracle, head: str, records: int) -> SessionFacts:
        """The report's facts: those tallied as the journal was written (its
        ``records``, every one), the session's oracle, and the records the page
        shows read again. ValueError if they cannot be had so: the journal is
        then to be read whole (``read_session``)."""
        if self.torn:
            raise ValueError("a record was not read whole (interrupted)")
        self.catch_up()
        if self.records != records:
            raise ValueError(f"{self.records} of the journal's {records} records were read as they were written")
        reader, header, end = self.reader, self.header, self.end
        if reader is None or header is None or end is None:
            raise ValueError("the journal has no header or no session-end record")
        chain = VerifyReport(path=str(self.journal), records=self.records, head=head, ended=True)
        replayed = ReplayOutcome(chain, header, oracle, seals=self.seals.finish(),
                                 failed_rounds=dict(self.failed_rounds), expected_head=head)
        # The ending, the exit status and the notes, worked out as replay works them out
        # (its own function, given what it reads of its judge), so that they cannot drift apart.
        _verdict(replayed, cast(Any, _Ended(_as_journalled(end), self.live_clauses)))
        reader.facts["end"] = _as_journalled(end)
        reader.facts["hello"] = _as_journalled(reader.facts["hello"])
        self._read_again(reader, Wanted.of(oracle, replayed.failed_rounds))
        return facts_of(self.journal, replayed, head, reader)

    def _read_again(self, reader: _Reader, wanted: Wanted) -> None:
        """The frames and plant readings the page shows, from the few records holding them."""
        seqs = set()
        for frame in wanted.frames:
            seqs.add(bisect_right(self.first_frames, frame) - 1)
        rounds = wanted.rounds | wanted.pictured
        for seq, round_no in enumerate(self.rounds):
            if round_no in rounds or (seq in self.other_rounds and self.other_rounds[seq] & wanted.pictured):
                seqs.add(seq)
        keeper = _Reader(wanted.frames, wanted.rounds, wanted.pictured, tally=False)
        with open(self.journal, "rb") as handle:
            for seq in sorted(s for s in seqs if s >= 0):
                handle.seek(self.offsets[seq])
                record = _parse(handle.readline())
                if record is None:
                    raise ValueError(f"record {seq} is not where it was written")
                keeper.index = self.first_frames[seq]
                keeper.record(record)
        for name in ("plants", "frames", "round_frames", "round_frame_counts"):
            reader.facts[name] = keeper.facts[name]


class _Ended:
    """What replay's verdict reads of its judge: the session-end record and the clauses journalled."""

    def __init__(self, end: dict, live_clauses: Counter):
        self.end, self.live_clauses = end, live_clauses


class LiveJournal(JournalWriter):
    """The session's journal, handing each record it writes to ``on_written``
    (its offset and the record) in the order of the file."""

    def __init__(self, path, *, on_written: Callable[[int, dict], None], **options):
        super().__init__(path, **options)
        self._on_written = on_written
        self._nested: list[tuple[int, dict]] = []
        self._depth = 0

    def append(self, kind: str, **data: Any) -> dict[str, Any]:
        # A seal due after a record is appended from inside that record's append:
        # both are handed on once the outer one returns, in the file's order.
        offset = self.size
        self._depth += 1
        try:
            record = super().append(kind, **data)
            self._nested.append((offset, record))
        finally:
            self._depth -= 1
        if self._depth == 0:
            written, self._nested = sorted(self._nested, key=lambda item: item[0]), []
            for offset, record in written:
                self._on_written(offset, record)
        return record
