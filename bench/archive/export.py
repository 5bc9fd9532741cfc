"""``bench archive export``: one table-day in a regulator's format, CSV and
Parquet to start (58 Pa. Code § 811a.7 asks that what recreates play be
exportable in the format the Board requires; its text is not in
../shared/regulations/, docs/archive.md), with a manifest of every file's
SHA-256, signed with the bench key (``bench.journal.keys``: one session key
of the key's signed tree, as a sealed journal takes one), so that whoever
holds the key's fingerprint can check that nothing was changed or left out.

The export holds the table-day's rows of every table, and the journals they
came from, byte for byte (what recreates play is the journal)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from bench.archive.query import connect
from bench.archive.store import Archive
from bench.archive.tables import TABLES
from bench.errors import BenchError

MANIFEST = "manifest.json"
SIGNED = "tablebench-archive-export-1"


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def export_table_day(archive: Archive, table: str, day: str, out: Path, key: str | None) -> tuple[Path, list[dict]]:
    """Write the export into ``out`` (a new or empty folder); returns the manifest's path and its files."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BenchError(f"{out}: --out: the folder holds files already; an export goes to a new or empty folder")
    con = connect(archive)
    try:
        found = con.execute("SELECT count(*) FROM rounds WHERE \"table\" = ? AND day = ?", [table, day]).fetchone()
        if not found or not found[0]:
            raise BenchError(f"--table {table} --day {day}: the archive has no round of that table on that day")
        out.mkdir(parents=True, exist_ok=True)
        files: list[dict[str, Any]] = []
        journals: set[str] = set()
        for name in TABLES:
            if name == "journals":
                data = con.execute("SELECT * FROM journals WHERE journal IN (SELECT journal FROM rounds WHERE "
                                   "\"table\" = ? AND day = ?) ORDER BY journal", [table, day])
            else:
                data = con.execute(f"SELECT * FROM {name} WHERE \"table\" = ? AND day = ? ORDER BY journal, line",
                                   [table, day])
            data = _arrow(data)
            if name == "journals":
                journals = set(data.column("journal").to_pylist())
            for suffix in ("csv", "parquet"):
                target = out / f"{name}.{suffix}"
                if suffix == "csv":
                    pacsv.write_csv(_flat(data), target)
                else:
                    pq.write_table(data, target, compression="zstd")
                files.append({"path": target.name, "sha256": _digest(target), "bytes": target.stat().st_size,
                              "rows": data.num_rows})
    finally:
        con.close()
    (out / "journals").mkdir()
    for digest in sorted(journals):
        source = archive.root / "originals" / f"{digest}.jsonl"
        target = out / "journals" / f"{digest}.jsonl"
        target.write_bytes(source.read_bytes())
        files.append({"path": f"journals/{target.name}", "sha256": _digest(target), "bytes": target.stat().st_size})
    body = {"scheme": SIGNED, "table": table, "day": day, "files": files}
    manifest = {**body, "signature": _sign(body, key) if key else None}
    path = out / MANIFEST
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path, files


def _arrow(result: Any) -> Any:
    """A DuckDB result as an Arrow table (the method's name changed between DuckDB releases)."""
    if not hasattr(result, "execute"):
        return result                                     # already a table
    import warnings
    for name in ("to_arrow_table", "fetch_arrow_table", "arrow"):
        if hasattr(result, name):
            with warnings.catch_warnings():     # the rows are a table-day's: the copy costs little
                warnings.simplefilter("ignore")
                return getattr(result, name)()
    raise BenchError("this DuckDB gives no Arrow table")


def _flat(data: Any) -> Any:
    """CSV has no lists: a list column (a round's symbols) as its JSON text."""
    import pyarrow as pa
    columns = []
    for name in data.column_names:
        column = data.column(name)
        if pa.types.is_list(column.type):
            column = pa.array([None if v is None else json.dumps(v) for v in column.to_pylist()], pa.string())
        columns.append(column)
    return pa.table(columns, names=data.column_names)


def _sign(body: dict, key: str) -> dict[str, Any]:
    from bench.journal.keys import fingerprint, raw_public, take_session
    session = take_session(key)
    return {"fingerprint": fingerprint(session.public_key), "key": session.public_key.hex(),
            "tree": {"size": session.size, "root": session.root.hex(), "signature": session.tree_signature.hex()},
            "session": session.index, "session_key": raw_public(session.private.public_key()).hex(),
            "path": [node.hex() for node in session.path],
            "signature": session.private.sign(_canonical(body)).hex()}


def verify_manifest(path: Path, trusted: str | None) -> list[str]:
    """What is wrong with an export (empty: nothing): each file's digest, and
    the signature by the key of fingerprint ``trusted`` (None: not checked)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from bench.journal.keys import fingerprint, path_leads_to, tree_head_signed
    manifest = json.loads(path.read_text(encoding="utf-8"))
    problems = []
    for item in manifest["files"]:
        target = path.parent / item["path"]
        if not target.is_file():
            problems.append(f"{item['path']}: missing")
        elif _digest(target) != item["sha256"]:
            problems.append(f"{item['path']}: SHA-256 differs from the manifest's")
    listed = {item["path"] for item in manifest["files"]} | {MANIFEST}
    for extra in sorted(p.relative_to(path.parent).as_posix() for p in path.parent.rglob("*") if p.is_file()):
        if extra not in listed:
            problems.append(f"{extra}: not in the manifest")
    if trusted is not None:
        seal = manifest.get("signature")
        body = {k: v for k, v in manifest.items() if k != "signature"}
        if not isinstance(seal, dict):
            return problems + ["the manifest is not signed"]
        key = bytes.fromhex(seal["key"])
        tree = seal["tree"]
        size, root = int(tree["size"]), bytes.fromhex(tree["root"])
        session_key = bytes.fromhex(seal["session_key"])
        if fingerprint(key) != trusted:
            problems.append(f"signed with key {fingerprint(key)}, not {trusted}")
        elif not tree_head_signed(key, size, root, bytes.fromhex(tree["signature"])):
            problems.append("the key's tree head signature does not verify")
        elif not path_leads_to(root, size, int(seal["session"]), session_key, [bytes.fromhex(n) for n in seal["path"]]):
            problems.append("the session key is not in the key's signed tree")
        else:
            try:
                Ed25519PublicKey.from_public_bytes(session_key).verify(bytes.fromhex(seal["signature"]),
                                                                        _canonical(body))
            except InvalidSignature:
                problems.append("the manifest's signature does not verify: it was changed after signing")
    return problems


__all__ = ["export_table_day", "verify_manifest"]
