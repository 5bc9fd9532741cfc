"""The archive's folder (docs/archive.md, "Layout"): what an ingest writes and
how, so that a crash, a full disk or a second ingest never loses or doubles
what is there.

- ``index/<digest>.json``: one per journal ingested, written last: a journal is
  in the archive when its index is (a second ingest of the same bytes finds it
  and skips them);
- ``originals/<digest>.jsonl`` (and ``.head``): the journal itself, byte for
  byte: what is needed to recreate play is the journal, the Parquet files are
  derived from it and can be made again;
- ``<table>/table=T/day=D/<digest>.parquet``: a journal's rows of each table
  for each of its days (``journals/table=T/<digest>.parquet`` for its catalog
  row); each file written under a temporary name and renamed into place;
- ``quarantine/<digest>.jsonl`` and ``<digest>.reason.json``: a journal that
  did not verify, kept with why.

One ingest at a time: ``.lock`` (tablebench_io.locking), waited on for at most
``LOCK_WAIT_S``."""

from __future__ import annotations

import json
import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from bench.archive.examine import Examined
from bench.archive.tables import TABLES, arrow_schema
from bench.errors import BenchError
from tablebench_io.locking import try_lock

FORMAT = "tablebench.archive/1"
LOCK_WAIT_S = 30.0


class Archive:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    # -- opening -----------------------------------------------------------
    def check(self, *, create: bool) -> None:
        """The folder is an archive (made one if ``create`` and it is new or empty)."""
        marker = self.root / "archive.json"
        if marker.is_file():
            try:
                said = json.loads(marker.read_text(encoding="utf-8"))
            except (OSError, ValueError) as err:
                raise BenchError(f"{marker}: not an archive's marker: {err}") from None
            if not isinstance(said, dict) or said.get("format") != FORMAT:
                raise BenchError(f"{marker}: format: {str(said)[:60]!r} is not {FORMAT}")
            return
        if not create:
            raise BenchError(f"{self.root}: --archive: not an archive (no archive.json; bench archive ingest makes one)")
        if self.root.exists() and (not self.root.is_dir() or any(self.root.iterdir())):
            raise BenchError(f"{self.root}: --archive: the folder holds other files; an archive starts in a new "
                             "or empty folder")
        self.root.mkdir(parents=True, exist_ok=True)
        _write_atomic(marker, json.dumps({"format": FORMAT}) + "\n")

    @contextmanager
    def locked(self) -> Iterator[None]:
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = time.monotonic() + LOCK_WAIT_S
            while not try_lock(fd):
                if time.monotonic() > deadline:
                    raise BenchError(f"{self.root}: another ingest holds the archive's lock ({LOCK_WAIT_S:.0f} s "
                                     "waited)")
                time.sleep(0.1)
            yield
        finally:
            os.close(fd)        # releases the lock

    # -- what is in it -------------------------------------------------------
    def has(self, digest: str) -> bool:
        return (self.root / "index" / f"{digest}.json").is_file()

    def index(self) -> list[dict[str, Any]]:
        """Every journal ingested, as its index says."""
        found = []
        for path in sorted((self.root / "index").glob("*.json")):
            try:
                found.append(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                continue
        return found

    def files(self, table: str) -> list[Path]:
        return sorted((self.root / table).glob("table=*/**/*.parquet"))

    # -- writing -------------------------------------------------------------
    def add(self, examined: Examined) -> None:
        """The journal's rows, its original bytes, then its index (last)."""
        import pyarrow as pa
        import pyarrow.parquet as pq
        digest, table = examined.digest, examined.table
        assert digest is not None and table is not None
        originals = self.root / "originals"
        originals.mkdir(exist_ok=True)
        _copy_atomic(Path(examined.path), originals / f"{digest}.jsonl")
        head = Path(examined.path).with_suffix(".head")
        if head.is_file():
            _copy_atomic(head, originals / f"{digest}.head")
        written: list[str] = []
        parts: dict[tuple[str, str | None], list[dict[str, Any]]] = {("journals", None): [examined.journal]}
        for name in TABLES[1:]:
            for row in examined.rows.get(name, ()):
                parts.setdefault((name, row["day"]), []).append(row)
        for (name, day), rows in sorted(parts.items(), key=lambda item: (item[0][0], item[0][1] or "")):
            schema = arrow_schema(name)
            folder = self.root / name / f"table={table}" / (f"day={day}" if day is not None else "")
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / f"{digest}.parquet"
            data = pa.Table.from_pylist([{c: row.get(c) for c in schema.names} for row in rows], schema=schema)
            temporary = target.with_name(target.name + ".part")
            pq.write_table(data, temporary, compression="zstd")
            os.replace(temporary, target)
            written.append(str(target.relative_to(self.root)))
        index = dict(journal=digest, table=table, file=examined.journal.get("file"), days=examined.days,
                     rounds=examined.rounds, ingested_at=examined.journal.get("ingested_at"), files=written)
        (self.root / "index").mkdir(exist_ok=True)
        _write_atomic(self.root / "index" / f"{digest}.json", json.dumps(index, sort_keys=True) + "\n")

    def quarantine(self, examined: Examined) -> Path:
        """The journal's bytes kept aside with the reason; returns where."""
        folder = self.root / "quarantine"
        folder.mkdir(exist_ok=True)
        target = folder / f"{examined.digest}.jsonl"
        _copy_atomic(Path(examined.path), target)
        _write_atomic(folder / f"{examined.digest}.reason.json",
                      json.dumps({"journal": examined.digest, "file": Path(examined.path).name,
                                  "table": examined.table, "reason": examined.reason}, sort_keys=True) + "\n")
        return target


def _write_atomic(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".part")
    with temporary.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def _copy_atomic(source: Path, target: Path) -> None:
    temporary = target.with_name(target.name + ".part")
    shutil.copyfile(source, temporary)
    os.replace(temporary, target)
