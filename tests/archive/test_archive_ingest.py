"""bench archive ingest and query (issue 44, items 2 and 3): journals verified
on arrival, kept once, a changed byte quarantined with its reason and
nothing else lost, every row pointing back to its journal and line, SQL over
the Parquet files."""

import json
from pathlib import Path

from tests.archive.conftest import ROOT, bench
from tests.json_schemas import assert_json_lines


def _query(archive, sql):
    ran = bench("archive", "query", "--archive", archive, sql, "--json")
    assert ran.returncode == 0, ran.stderr
    return [line["values"] for line in assert_json_lines(ran.stdout, "archive-query")[:-1]]


def test_journals_are_ingested_once_and_every_row_points_to_its_journal_and_line(journals, tmp_path):
    archive = tmp_path / "archive"
    ran = bench("archive", "ingest", "--archive", archive, *journals, "--json")
    assert ran.returncode == 0, ran.stderr
    lines = assert_json_lines(ran.stdout, "archive-ingest")
    assert [line["action"] for line in lines[:-1]] == ["ingest"] * 3
    assert all(line["rounds"] == 4 for line in lines[:-1])
    per_table = _query(archive, 'SELECT "table", count(*) AS n, min(dealer) AS dealer FROM rounds '
                                'GROUP BY "table" ORDER BY 1')
    assert per_table == [{"table": "T1", "n": 4, "dealer": "ann"}, {"table": "T2", "n": 4, "dealer": None},
                         {"table": "T3", "n": 4, "dealer": None}]
    # Every row's (journal, line) is the record that holds it, in the journal kept byte for byte.
    kept = {row["journal"]: (archive / "originals" / f"{row['journal']}.jsonl").read_text().splitlines()
            for row in _query(archive, "SELECT journal FROM journals")}
    for row in _query(archive, "SELECT journal, line, round FROM rounds"):
        assert json.loads(kept[row["journal"]][row["line"] - 1])["round"] == row["round"]
    for row in _query(archive, "SELECT journal, line, round, wager_id FROM settlements"):
        assert f"id={row['wager_id']} " in kept[row["journal"]][row["line"] - 1]
    # The same journals again: nothing doubled.
    again = bench("archive", "ingest", "--archive", archive, *journals)
    assert again.returncode == 0 and again.stdout.count("already in the archive") == 3, again.stdout
    assert _query(archive, "SELECT count(*) AS n FROM rounds") == [{"n": 12}]


def test_a_changed_byte_is_quarantined_with_its_reason_and_nothing_else_is_lost(journals, tmp_path):
    archive = tmp_path / "archive"
    damaged = journals[1]
    data = bytearray(damaged.read_bytes())
    at = data.index(b"returned=", data.index(b"SETTLE")) + len(b"returned=")
    data[at] = ord("9") if data[at] != ord("9") else ord("8")       # one settlement's amount changed
    damaged.write_bytes(bytes(data))
    ran = bench("archive", "ingest", "--archive", archive, *journals)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    said = [line for line in ran.stdout.splitlines() if str(damaged) in line]
    assert len(said) == 1 and "QUARANTINED: hash chain broken: line 2:" in said[0], said
    (reason,) = (archive / "quarantine").glob("*.reason.json")
    assert "hash chain broken" in json.loads(reason.read_text())["reason"]
    assert (archive / "quarantine" / reason.name.replace(".reason.json", ".jsonl")).read_bytes() == bytes(data)
    assert _query(archive, 'SELECT "table", count(*) AS n FROM rounds GROUP BY 1 ORDER BY 1') == [
        {"table": "T1", "n": 4}, {"table": "T3", "n": 4}]


def test_an_older_journal_without_a_table_is_refused_until_labelled(tmp_path):
    archive, old = tmp_path / "archive", ROOT / "fixtures/journals/schema1-lightning-dice.jsonl"
    refused = bench("archive", "ingest", "--archive", archive, old)
    assert refused.returncode == 2 and "names no table" in refused.stdout and "--table" in refused.stdout
    labelled = bench("archive", "ingest", "--archive", archive, old, "--table", "OLD-1")
    assert labelled.returncode == 0, labelled.stdout + labelled.stderr
    assert _query(archive, "SELECT \"table\", labelled_by, rounds FROM journals") == [
        {"table": "OLD-1", "labelled_by": "ingest", "rounds": 3}]


def test_hostile_bytes_and_a_missing_file_are_said_in_one_line_each_and_the_rest_ingested(journals, tmp_path):
    archive = tmp_path / "archive"
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_bytes(bytes(range(256)) * 40)
    ran = bench("archive", "ingest", "--archive", archive, hostile, tmp_path / "missing.jsonl", journals[0])
    assert ran.returncode == 2
    lines = ran.stdout.splitlines()
    assert "QUARANTINED: line 1: not a session header" in lines[0]
    assert "REFUSED: cannot be read" in lines[1] and "ingested: table T1" in lines[2]
    assert "Traceback" not in ran.stderr


def test_a_query_that_fails_is_one_line_and_exit_2_and_columns_are_documented(journals, tmp_path):
    archive = tmp_path / "archive"
    assert bench("archive", "ingest", "--archive", archive, journals[0]).returncode == 0
    bad = bench("archive", "query", "--archive", archive, "SELECT nope FROM rounds")
    assert bad.returncode == 2 and bad.stderr.startswith("bench archive query: SQL:") and bad.stderr.count("\n") == 1
    columns = bench("archive", "query", "--archive", archive, "--columns")
    assert columns.returncode == 0 and "exact_return" in columns.stdout
    documented = (ROOT / "docs/archive.md").read_text()
    from bench.archive.tables import COLUMNS
    assert all(f"`{name}`" in documented for columns in COLUMNS.values() for name, _, _ in columns)


def test_ray_ingest_gives_the_same_rows_as_local_ingest(journals, tmp_path):
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    assert bench("archive", "ingest", "--archive", local, *journals[:2]).returncode == 0
    ran = bench("archive", "ingest", "--archive", on_ray, *journals[:2], "--engine", "ray", "--workers", 1,
                timeout=240)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    for table in ("rounds", "wagers", "settlements", "readings", "lucky"):
        files = sorted(p.relative_to(local) for p in (local / table).rglob("*.parquet"))
        assert files == sorted(p.relative_to(on_ray) for p in (on_ray / table).rglob("*.parquet"))
        assert all((local / f).read_bytes() == (on_ray / f).read_bytes() for f in files), table
    sql = "SELECT * EXCLUDE (ingested_at) FROM journals ORDER BY journal"
    assert _query(local, sql) == _query(on_ray, sql)
    assert Path(local / "originals").exists()
