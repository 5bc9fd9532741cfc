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
    sub = p.add_subparsers(dest="archive_command", metavar="ACTION", required=True,
                           help="ingest, query, judge or export")

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

    e = sub.add_parser("export", help="write a table-day as CSV and Parquet with a signed manifest",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Every table's rows of one table on one UTC day, as CSV and as Parquet, the "
                                   "journals they came from byte for byte, and manifest.json: each file's SHA-256, "
                                   "signed with the bench key (--key). --verify checks an export instead.",
                       epilog="Exit status: 0 written (or verified), 1 --verify found a file changed, missing or "
                              "unlisted, or a bad signature, 2 bad input.")
    e.add_argument("--archive", metavar="DIR")
    e.add_argument("--table", metavar="NAME")
    e.add_argument("--day", metavar="YYYY-MM-DD")
    e.add_argument("--out", metavar="DIR", help="a new or empty folder")
    e.add_argument("--key", metavar="FILE", help="the bench key state (bench key new) that signs the manifest")
    e.add_argument("--verify", metavar="MANIFEST", help="check an export's manifest (with --pubkey, its signature)")
    e.add_argument("--pubkey", metavar="FILE|FINGERPRINT", help="with --verify: the key the manifest must be signed by")
    _json_option(e, "archive-export")
    e.set_defaults(func=run_export)

    j = sub.add_parser("judge", help="judge the fleet: every table and period, the false-discovery rate controlled",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Per table (or table and dealer, dice set or wheel) and period, over the rounds "
                                   "not staged: the return against the exact RTP, the no-roll rate against the rest "
                                   "of the fleet, the outcome's fairness, the Lucky draw against the submission, "
                                   "and each table's no-roll trend over the periods; every p-value of the fleet in "
                                   "one Benjamini-Hochberg family at --fdr (docs/archive.md).",
                       epilog="Exit status: 0 no table flagged, 1 a table flagged (a test's q at most --fdr, or a "
                              "round that broke a rule), 2 bad input.")
    j.add_argument("--archive", required=True, metavar="DIR")
    j.add_argument("--by", choices=("table", "dealer", "dice_set", "wheel_id"), default="table",
                   help="group each table's rounds by this too (default: the table alone)")
    j.add_argument("--period", choices=("day", "week", "month", "all"), default="day", help="default day")
    j.add_argument("--fdr", type=float, default=0.05, metavar="Q",
                   help="the false-discovery rate (default 0.05: 58 Pa. Code 810a.5(c)'s 95%%)")
    j.add_argument("--report", metavar="FILE.html", help="write the fleet's report page")
    _json_option(j, "archive-judge")
    j.set_defaults(func=run_judge)


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


def run_export(args: Any) -> int:
    from pathlib import Path

    from tablebench_io.json_lines import JsonLines
    try:
        from bench.archive.export import export_table_day, verify_manifest
        from bench.archive.store import Archive
        from bench.journal.keys import trusted_fingerprint
        if args.verify:
            trusted = trusted_fingerprint(args.pubkey) if args.pubkey else None
            try:
                problems = verify_manifest(Path(args.verify), trusted)
            except (OSError, ValueError, KeyError, TypeError) as err:
                raise BenchError(f"{args.verify}: not an export's manifest: {err}") from None
            for problem in problems:
                print(f"{args.verify}: {problem}")
            if not problems:
                print(f"{args.verify}: every file as listed" + (", signed by " + trusted if trusted else
                                                                "; signature not checked (no --pubkey)"))
            return Exit.VIOLATION if problems else Exit.OK
        missing = [o for o, v in (("--archive", args.archive), ("--table", args.table), ("--day", args.day),
                                  ("--out", args.out)) if not v]
        if missing:
            raise BenchError(f"export needs {', '.join(missing)} (or --verify MANIFEST)")
        archive = Archive(args.archive)
        archive.check(create=False)
        manifest, files = export_table_day(archive, args.table, args.day, Path(args.out), args.key)
    except ImportError as err:
        status = _needs_extra(err)
        if status is None:
            raise
        return status
    except (BenchError, OSError) as err:
        print(f"bench archive export: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    if args.json:
        out = JsonLines("archive-export")
        for item in files:
            out.write("file", **item)
        out.verdict(passed=True, status=Exit.OK, manifest=str(manifest), signed_by=None if not args.key else "key")
    else:
        print(f"{len(files)} files in {args.out}; manifest {manifest}" + ("" if args.key else " (unsigned: no --key)"))
    return Exit.OK


def run_judge(args: Any) -> int:
    import shlex
    import time

    from tablebench_io.json_lines import JsonLines
    if not 0 < args.fdr < 1:
        print("bench archive judge: --fdr must be between 0 and 1", file=sys.stderr)
        return Exit.BAD_INPUT
    try:
        from bench.archive.fleet import CORRECTION, judge_fleet
        from bench.archive.store import Archive
        archive = Archive(args.archive)
        archive.check(create=False)
        fleet = judge_fleet(archive, by=args.by, period=args.period, fdr=args.fdr)
    except ImportError as err:
        status = _needs_extra(err)
        if status is None:
            raise
        return status
    except BenchError as err:
        print(f"bench archive judge: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    flagged = fleet.flagged_tables
    status = Exit.VIOLATION if flagged else Exit.OK
    if args.report:
        from pathlib import Path

        from bench.archive.fleet_page import fleet_page
        command = "bench archive judge " + " ".join(shlex.quote(a) for a in sys.argv[3:]) if len(sys.argv) > 3 \
            else f"bench archive judge --archive {args.archive}"
        try:
            Path(args.report).write_text(fleet_page(fleet, args.archive, command, time.time()), encoding="utf-8")
        except OSError as err:
            print(f"bench archive judge: {args.report}: cannot write the report: {err.strerror}", file=sys.stderr)
            return Exit.BAD_INPUT
    if args.json:
        out = JsonLines("archive-judge")
        for group in fleet.groups + fleet.trends:
            out.write("group", **group.to_json())
        out.verdict(passed=not flagged, status=status, fdr=args.fdr, correction=CORRECTION,
                    groups=len(fleet.groups), tests=fleet.tests, flagged=flagged,
                    violations=sum(g.violations for g in fleet.groups), by=args.by, period=args.period)
        return status
    for group in fleet.groups + fleet.trends:
        if group.flagged:
            why = [f"{t.test} q {t.q:.2g}: {t.detail}" for t in group.tests if t.flagged]
            why += [f"{group.violations} violations"] if group.violations else []
            print(f"FLAGGED {group.table} ({group.group_by} {group.group}, {group.period}): {'; '.join(why)}")
    print(f"fleet: {fleet.tables} tables, {len(fleet.groups)} groups by {args.by} and {args.period}, {fleet.tests} "
          f"tests; {len(flagged)} tables flagged at a false-discovery rate of {args.fdr:g} ({CORRECTION})")
    if args.report:
        print(f"  report: {args.report}")
    return status
