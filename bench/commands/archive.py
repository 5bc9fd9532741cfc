"""``bench archive``: a regulator's archive of many tables' journals
(docs/archive.md): ``ingest`` verifies and keeps them as Parquet, ``query``
runs SQL over them, ``export`` writes a table-day with a signed manifest,
``judge`` judges the fleet."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bench.archive.labels import add_label_options
from bench.errors import BenchError
from tablebench_io.commandline import Exit

NEEDS = "needs the 'archive' extra ({name} is not installed): pip install 'tablebench[archive]'"


def _json_option(parser: argparse.ArgumentParser, kind: str) -> None:
    parser.add_argument("--json", action="store_true",
                        help=f"write JSON Lines on stdout instead of the text (schema tablebench.{kind}/1, the last "
                             "line the verdict)")
    parser.set_defaults(json_kind=kind)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "archive", help="a regulator's archive: journals verified and kept as Parquet, SQL, export, fleet judgement",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Every table's journals kept for years and judged together (docs/archive.md). Journals are "
                    "verified on arrival as bench replay verifies them and kept byte for byte beside their rows, "
                    "which are Parquet files partitioned by table and day that any engine reading Parquet reads "
                    "(DuckDB here; Spark, Trino or Ray Data on a cluster).")
    sub = p.add_subparsers(dest="archive_command", metavar="ACTION", required=True)

    ing = sub.add_parser("ingest", help="verify journals and add them to the archive",
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         description="Each journal (a bench run session, a pytest run's, a monitor journal or a "
                                     "rotation of one; sealed or not) is verified: its hash chain, its .head beside "
                                     "it if there is one, its seals with the --pubkey keys, every frame judged "
                                     "again, its twin's fingerprint. One that verifies is added once (by the "
                                     "digest of its bytes); one that does not is kept in DIR/quarantine with the "
                                     "reason; one that cannot be read or names no table is refused.",
                         epilog="Exit status: 0 every journal added or already there, 1 one was quarantined, 2 one "
                                "was refused or the archive cannot be used (the others are still ingested).")
    ing.add_argument("--archive", required=True, metavar="DIR", help="the archive (made if new or empty)")
    ing.add_argument("journals", nargs="+", metavar="JOURNAL", help="journal files (*.jsonl)")
    ing.add_argument("--pubkey", action="append", default=[], metavar="FILE|FINGERPRINT",
                     help="a bench key whose seals are trusted (bench.pub or sha256:...); repeat for several. A "
                          "journal sealed with another key is quarantined")
    ing.add_argument("--require-anchor", action="store_true",
                     help="quarantine a journal nothing kept apart vouches for (no .head beside it, no seal checked)")
    ing.add_argument("--engine", choices=("local", "ray"), default="local",
                     help="examine the journals in this process (default) or as Ray tasks")
    ing.add_argument("--ray-address", metavar="ADDRESS", help="with --engine ray: a running cluster")
    ing.add_argument("--workers", type=int, default=2, metavar="N", help="with --engine ray: CPUs of a local Ray")
    add_label_options(ing.add_argument_group("labels for journals whose header has none (older journals)"))
    _json_option(ing, "archive-ingest")
    ing.set_defaults(func=run_ingest)

    q = sub.add_parser("query", help="run SQL over the archive (DuckDB)",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="The archive's tables are views: journals, rounds, wagers, settlements, "
                                   "readings, lucky, violations (--columns lists their columns). For example:\n"
                                   "  bench archive query --archive A \"SELECT day, count(*) FROM rounds WHERE "
                                   "no_roll AND \\\"table\\\" = 'T12' GROUP BY day\"",
                       epilog="Exit status: 0 the query ran, 2 it did not (the error in one line).")
    q.add_argument("--archive", required=True, metavar="DIR")
    q.add_argument("sql", nargs="?", metavar="SQL", help="one SQL statement")
    q.add_argument("--columns", action="store_true", help="list every table's columns and what they mean")
    q.add_argument("--csv", action="store_true", help="write the result as CSV instead of a text table")
    q.add_argument("--limit", type=int, default=1000, metavar="N", help="rows printed at most (default 1000)")
    _json_option(q, "archive-query")
    q.set_defaults(func=run_query)


def _needs_extra(err: ImportError) -> int | None:
    name = (err.name or "").partition(".")[0]
    if name in ("pyarrow", "duckdb"):
        print(f"bench archive: {NEEDS.format(name=name)}", file=sys.stderr)
        return Exit.BAD_INPUT
    return None


def run_ingest(args: Any) -> int:
    from bench.archive.labels import labels_from
    from tablebench_io import progress
    from tablebench_io.json_lines import JsonLines
    try:
        import pyarrow  # noqa: F401 — the extra checked before any journal is read
        from bench.archive.ingest import ALREADY, ingest
        from bench.archive.store import Archive
        from bench.journal.keys import trusted_fingerprint
    except ImportError as err:
        status = _needs_extra(err)
        if status is None:
            raise
        return status
    out = JsonLines("archive-ingest") if args.json else None
    try:
        given = labels_from(args)
        trusted = tuple(trusted_fingerprint(text) for text in args.pubkey)
        if args.workers < 1:
            raise BenchError("--workers must be at least 1")
        archive = Archive(args.archive)
        archive.check(create=True)
    except (BenchError, OSError) as err:
        print(f"bench archive ingest: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    counts = {"ingest": 0, ALREADY: 0, "quarantine": 0, "refuse": 0}
    bar = progress.bar(total=len(args.journals), unit="journal", desc="ingest", disable=args.json)

    def said(done) -> None:
        counts[done.action] += 1
        bar.update(1)
        if out is not None:
            out.write("journal", **done.to_json())
            return
        what = {"ingest": f"ingested: table {done.table}, {done.rounds} rounds, "
                          f"{', '.join(done.days) or 'no round'}",
                ALREADY: "already in the archive", "quarantine": f"QUARANTINED: {done.reason} (kept in {done.kept})",
                "refuse": f"REFUSED: {done.reason}"}[done.action]
        progress.echo(f"{done.path}: {what}")
        for note in done.notes:
            progress.echo(f"  note: {note}")
    try:
        with archive.locked():
            ingest(archive, args.journals, given, trusted, require_anchor=args.require_anchor, engine=args.engine,
                   ray_address=args.ray_address, workers=args.workers, on_each=said)
    except BenchError as err:
        bar.close()
        print(f"bench archive ingest: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    bar.close()
    status = Exit.BAD_INPUT if counts["refuse"] else Exit.VIOLATION if counts["quarantine"] else Exit.OK
    if out is not None:
        out.verdict(passed=status == Exit.OK, status=status, ingested=counts["ingest"], already=counts[ALREADY],
                    quarantined=counts["quarantine"], refused=counts["refuse"], archive=args.archive)
    else:
        print(f"archive {args.archive}: {counts['ingest']} ingested, {counts[ALREADY]} already there, "
              f"{counts['quarantine']} quarantined, {counts['refuse']} refused")
    return status


def run_query(args: Any) -> int:
    from bench.archive.tables import columns_text
    from tablebench_io.json_lines import JsonLines
    if args.columns:
        print(columns_text())
        return Exit.OK
    if not args.sql:
        print("bench archive query: give the SQL to run (or --columns)", file=sys.stderr)
        return Exit.BAD_INPUT
    try:
        from bench.archive.query import run_sql
        from bench.archive.store import Archive
        archive = Archive(args.archive)
        archive.check(create=False)
        names, rows, more = run_sql(archive, args.sql, limit=max(0, args.limit))
    except ImportError as err:
        status = _needs_extra(err)
        if status is None:
            raise
        return status
    except BenchError as err:
        print(f"bench archive query: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    if args.json:
        out = JsonLines("archive-query")
        for row in rows:
            out.write("row", values=dict(zip(names, row)))
        out.verdict(passed=True, status=Exit.OK, columns=names, rows=len(rows), more=more)
        return Exit.OK
    from bench.archive.query import as_csv, as_text
    print(as_csv(names, rows) if args.csv else as_text(names, rows), end="")
    if more:
        print(f"... and more rows (--limit {args.limit})", file=sys.stderr)
    return Exit.OK
