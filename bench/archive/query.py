"""SQL over the archive with DuckDB, in this process: each table a view over
its Parquet files read with Hive partitioning (``table`` and ``day`` from the
folder names), so that a query reads only the partitions it names. The same
files are what Spark, Trino or Ray Data read on a cluster (docs/archive.md)."""

from __future__ import annotations

import csv
import io
from typing import Any

from bench.archive.store import Archive
from bench.archive.tables import TABLES, arrow_schema
from bench.errors import BenchError

MAX_CELL = 200      # a cell's text cut in the text table (the CSV and JSON keep it whole)


def connect(archive: Archive) -> Any:
    """A DuckDB connection with a view for each table (an empty one where no file is yet)."""
    import duckdb
    con = duckdb.connect(":memory:")
    for table in TABLES:
        files = archive.files(table)
        if files:
            listed = ", ".join("'" + str(f).replace("'", "''") + "'" for f in files)
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet([{listed}], hive_partitioning = true, hive_types_autocast = false, "
                        "union_by_name = true)")
        else:
            empty = ", ".join(f"CAST(NULL AS {_duck(kind)}) AS \"{name}\"" for name, kind in _columns(table))
            con.execute(f"CREATE VIEW {table} AS SELECT {empty} WHERE false")
    return con


def _columns(table: str) -> list[tuple[str, str]]:
    from bench.archive.tables import COLUMNS
    return [(name, kind) for name, kind, _ in COLUMNS[table]]


def _duck(kind: str) -> str:
    return {"string": "VARCHAR", "int64": "BIGINT", "double": "DOUBLE", "bool": "BOOLEAN",
            "list<int64>": "BIGINT[]"}[kind]


def run_sql(archive: Archive, sql: str, *, limit: int) -> tuple[list[str], list[tuple], bool]:
    """(column names, at most ``limit`` rows, whether there were more) of one statement."""
    import duckdb
    arrow_schema("rounds")      # pyarrow present: the views read Parquet through DuckDB, not it, but say so early
    con = connect(archive)
    try:
        result = con.execute(sql)
        if result.description is None:
            return [], [], False
        names = [d[0] for d in result.description]
        rows = result.fetchmany(limit + 1)
    except duckdb.Error as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise BenchError(f"SQL: {first}") from None
    finally:
        con.close()
    return names, rows[:limit], len(rows) > limit


def as_text(names: list[str], rows: list[tuple]) -> str:
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(n)] + [len(r[i]) for r in cells]) for i, n in enumerate(names)]
    lines = ["  ".join(n.ljust(w) for n, w in zip(names, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    return "\n".join(lines) + "\n"


def as_csv(names: list[str], rows: list[tuple]) -> str:
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(names)
    writer.writerows(rows)
    return text.getvalue()


def _cell(value: object) -> str:
    text = "NULL" if value is None else str(value)
    return text if len(text) <= MAX_CELL else text[:MAX_CELL - 1] + "…"
