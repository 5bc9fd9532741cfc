"""One journal examined for the archive, writing nothing: its digest, its
labels, its verification (``bench.journal.replay.replay``, the verifier
``bench replay`` uses: the hash chain, the seals with the keys given, the
head kept beside it, every frame judged again, the twin's fingerprint) and,
if it holds, its rows (``bench.archive.extract``).

What comes out says what the archive should do with it (``action``):
``ingest`` it, ``quarantine`` it (it is a journal's bytes but does not verify:
kept aside with the reason, never lost), or ``refuse`` it (it cannot be read,
or it names no table and none was given). A local process and a Ray worker
run the same function, so that both engines give the same archive."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.archive.extract import Rows, journal_rows
from bench.archive.labels import LABELS, check_label
from bench.errors import BenchError

HEAD = re.compile(r"[0-9a-f]{64}")
INGEST, QUARANTINE, REFUSE = "ingest", "quarantine", "refuse"
HEADER_LIMIT = 64 << 20  # a header holds the submission's and the design's text: a few kB, never this
CHUNK = 1 << 20


@dataclass
class Examined:
    path: str
    action: str
    reason: str = ""
    digest: str | None = None
    table: str | None = None
    journal: dict[str, Any] = field(default_factory=dict)    # its row of the journals table
    rows: Rows = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def rounds(self) -> int:
        return len(self.rows.get("rounds", ()))

    @property
    def days(self) -> list[str]:
        return sorted({row["day"] for row in self.rows.get("rounds", ())})


def _read(file: Path) -> tuple[int, str, bytes]:
    """(size, SHA-256, first line) of a file, read once in chunks: memory stays
    bounded whatever its size."""
    digest, size = hashlib.sha256(), 0
    with file.open("rb") as handle:
        first_line = handle.readline(HEADER_LIMIT)
        handle.seek(0)
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest(), first_line


def _first_record(line: bytes) -> dict[str, Any] | None:
    try:
        first = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return first if isinstance(first, dict) else None


def _head_beside(path: Path) -> str | None:
    """The head hash kept beside a journal (session.head, monitor-0001.head), if there is one."""
    try:
        text = path.with_suffix(".head").read_text(encoding="ascii", errors="replace").strip().lower()
    except OSError:
        return None
    return text if HEAD.fullmatch(text) else None


def _seal_fingerprint(header: dict[str, Any]) -> str | None:
    from bench.journal.keys import fingerprint
    seal = header.get("seal")
    if not isinstance(seal, dict):
        return None
    try:
        return fingerprint(bytes.fromhex(str(seal["key"])))
    except (KeyError, ValueError):
        return "unreadable"


def examine(path: str, given: dict[str, str], trusted: tuple[str, ...] = (), *,
            require_anchor: bool = False) -> Examined:
    """What to do with the journal at ``path``. ``given``: labels from ``ingest
    --table`` and the rest, for journals whose header has none; ``trusted``: the
    fingerprints of the bench keys whose seals are accepted."""
    file = Path(path)
    try:
        size, digest, first_line = _read(file)
    except OSError as err:
        return Examined(path, REFUSE, f"cannot be read: {err.strerror or err}")
    header = _first_record(first_line)
    if header is None or header.get("kind") != "session":
        return Examined(path, QUARANTINE, "line 1: not a session header (not a tablebench journal, or its first "
                                          "line is damaged)", digest)
    labels: dict[str, str] = {}
    for name in LABELS:
        recorded, told = header.get(name), given.get(name)
        if recorded is not None and not isinstance(recorded, str):
            return Examined(path, QUARANTINE, f"line 1: {name}: {str(recorded)[:40]!r} is not a name", digest)
        if recorded is not None and told is not None and recorded != told:
            return Examined(path, REFUSE, f"its header names {name} {recorded!r}, not {LABELS[name]} {told!r}: "
                                          "a journal's own label is not overridden", digest)
        if recorded is not None:
            try:
                check_label(name, recorded)
            except BenchError as err:
                return Examined(path, QUARANTINE, f"line 1: {name}: {err}", digest)
        if (recorded or told) is not None:
            labels[name] = str(recorded or told)
    if "table" not in labels:
        return Examined(path, REFUSE, "its header names no table (written before journals did): "
                                      "give it with ingest --table NAME", digest)
    fingerprint = _seal_fingerprint(header)
    if fingerprint is not None and trusted and fingerprint not in trusted:
        return Examined(path, QUARANTINE, f"sealed with key {fingerprint}, which is not among the --pubkey keys "
                                          "given", digest, labels["table"])
    head = _head_beside(file)
    from bench.journal.replay import replay
    try:
        replayed = replay(path, expected_head=head, pubkey=fingerprint if fingerprint in trusted else None)
    except BenchError as err:
        return Examined(path, QUARANTINE, str(err), digest, labels["table"])
    except (LookupError, TypeError, ValueError, RecursionError) as err:   # a record no bench writes
        return Examined(path, QUARANTINE, f"does not replay: {type(err).__name__}: {err}", digest, labels["table"])
    if not replayed.intact:
        return Examined(path, QUARANTINE, _why_not_intact(replayed), digest, labels["table"])
    if require_anchor and not replayed.anchors:
        return Examined(path, QUARANTINE, "nothing kept apart vouches for it (no .head beside it, no seal checked "
                                          "with a --pubkey key) and --require-anchor was given", digest,
                        labels["table"])
    rows = journal_rows(path, replayed, digest, labels)
    days = sorted({row["day"] for row in rows["rounds"]})
    twin_same, notes = None, list(replayed.notes)
    if isinstance(header.get("twin"), dict):
        from bench.journal.disputed_round import compare_twin
        twin = compare_twin(header["twin"])
        twin_same = twin.same
        if not twin.same:
            notes.append(twin.told)
    oracle, chain = replayed.oracle, replayed.chain
    assert oracle is not None          # an intact journal has its header, hence its oracle
    journal = dict(journal=digest, file=file.name, bytes=size, records=chain.records, head=chain.head,
                   anchors=",".join(replayed.anchors), sealed=fingerprint is not None, seal_fingerprint=fingerprint,
                   runner=str(header.get("runner") or "bench run"), game=str(header["game"]),
                   paytable=None if header.get("paytable") is None else str(header["paytable"]),
                   submission_sha256=header.get("submission_sha256"),
                   dealer=labels.get("dealer"), dice_set=labels.get("dice_set"), wheel_id=labels.get("wheel_id"),
                   labelled_by="header" if header.get("table") else "ingest",
                   controller=None if header.get("controller") is None else str(header["controller"]),
                   software=None if header.get("software") is None else str(header["software"]),
                   seed=header["seed"] if isinstance(header.get("seed"), int) else None, twin_same=twin_same,
                   ending=replayed.ending, status=int(replayed.exit_status), rounds=len(oracle.rounds),
                   violations=int(oracle.violation_count), first_day=days[0] if days else None,
                   last_day=days[-1] if days else None,
                   ingested_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
    return Examined(path, INGEST, "", digest, labels["table"], journal, rows, notes)


def _why_not_intact(replayed: Any) -> str:
    """The first thing that failed, in the words replay uses."""
    chain, seals = replayed.chain, replayed.seals
    if not chain.ok:
        first = chain.problems[0] if chain.problems else None
        more = f" (and {len(chain.problems) - 1} more)" if len(chain.problems) > 1 else ""
        return (f"hash chain broken: line {first.line}: {first.what}{more}" if first is not None
                else "hash chain broken")
    if not seals.ok:
        return f"seal: {seals.problems[0] if seals.problems else 'does not verify'}"
    if replayed.decode_problems:
        return f"recorded frames: {replayed.decode_problems[0]}"
    return f"structure: {replayed.structure_problems[0]}"
