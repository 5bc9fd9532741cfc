"""bench archive judge and export (issue 44, items 3, 4 and 6): a fleet whose
one table's controller skews its Lucky draw (lucky-favours-a-number, which
passes every per-round rule) has that table flagged and no other at the
stated false-discovery rate; the report page and --json say the same; a
table-day exports with a signed manifest that finds a changed byte."""

import json

import pytest

from bench.archive.emulated_fleet import play_table_day
from tests.archive.conftest import bench
from tests.json_schemas import assert_json_lines

TABLES, SKEWED, ROUNDS, SEED = ("F1", "F2", "F3", "F4"), "F3", 100, 7


@pytest.fixture(scope="module")
def fleet_archive(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet")
    journals = [play_table_day(root / table, table, 1, ROUNDS, SEED,
                               misbehave="lucky-favours-a-number" if table == SKEWED else None)
                for table in TABLES]
    ingested = bench("archive", "ingest", "--archive", root / "archive", *journals)
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    return root / "archive"


def test_the_table_whose_lucky_draw_is_skewed_is_flagged_and_no_other(fleet_archive, tmp_path):
    page = tmp_path / "fleet.html"
    ran = bench("archive", "judge", "--archive", fleet_archive, "--json", "--report", page)
    assert ran.returncode == 1, ran.stderr
    lines = assert_json_lines(ran.stdout, "archive-judge")
    verdict, groups = lines[-1], lines[:-1]
    assert verdict["flagged"] == [SKEWED] and verdict["fdr"] == 0.05 and "Benjamini-Hochberg" in verdict["correction"]
    assert {g["table"] for g in groups} == set(TABLES)
    (skewed,) = [g for g in groups if g["flagged"]]
    (lucky,) = [t for t in skewed["tests"] if t["flagged"]]
    assert lucky["test"] == "lucky" and lucky["q"] <= 0.05 and lucky["clause"]
    assert all(g["rounds"] == ROUNDS for g in groups)
    html = page.read_text()
    assert f'data-table="{SKEWED}" data-flagged="true"' in html
    assert all(f'data-table="{t}" data-flagged="false"' in html for t in TABLES if t != SKEWED)


def test_a_stricter_rate_and_the_text_output_say_the_same(fleet_archive):
    ran = bench("archive", "judge", "--archive", fleet_archive, "--fdr", "0.01", "--period", "all")
    assert ran.returncode == 1
    flagged = [line for line in ran.stdout.splitlines() if line.startswith("FLAGGED")]
    assert len(flagged) == 1 and flagged[0].startswith(f"FLAGGED {SKEWED} ") and "lucky q" in flagged[0]
    bad = bench("archive", "judge", "--archive", fleet_archive, "--fdr", "2")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_a_table_day_exports_with_a_signed_manifest_that_finds_a_changed_byte(fleet_archive, tmp_path):
    key = tmp_path / "key"
    assert bench("key", "new", key).returncode == 0
    day = json.loads(bench("archive", "query", "--archive", fleet_archive, "SELECT min(day) AS d FROM rounds",
                           "--json").stdout.splitlines()[0])["values"]["d"]
    out = tmp_path / "export"
    ran = bench("archive", "export", "--archive", fleet_archive, "--table", "F1", "--day", day, "--out", out,
                "--key", key / "bench.key", "--json")
    assert ran.returncode == 0, ran.stderr
    files = [line["path"] for line in assert_json_lines(ran.stdout, "archive-export")[:-1]]
    assert {"rounds.csv", "rounds.parquet", "lucky.csv", "journals.parquet"} <= set(files)
    assert sum(1 for f in files if f.startswith("journals/")) == 1          # the journal itself, byte for byte
    assert len((out / "rounds.csv").read_text().splitlines()) == ROUNDS + 1
    manifest = out / "manifest.json"
    good = bench("archive", "export", "--verify", manifest, "--pubkey", key / "bench.pub")
    assert good.returncode == 0 and "signed by sha256:" in good.stdout
    data = bytearray((out / "lucky.csv").read_bytes())
    data[-3] = ord("7") if data[-3] != ord("7") else ord("8")
    (out / "lucky.csv").write_bytes(bytes(data))
    changed = bench("archive", "export", "--verify", manifest, "--pubkey", key / "bench.pub")
    assert changed.returncode == 1 and "lucky.csv: SHA-256 differs" in changed.stdout
    listing = json.loads(manifest.read_text())
    listing["files"] = [f for f in listing["files"] if f["path"] != "lucky.csv"]      # a file struck from the list
    manifest.write_text(json.dumps(listing))
    forged = bench("archive", "export", "--verify", manifest, "--pubkey", key / "bench.pub")
    assert forged.returncode == 1 and "lucky.csv: not in the manifest" in forged.stdout
    assert "signature does not verify" in forged.stdout


def test_a_table_over_two_days_gets_a_line_a_day_and_its_trend(journals, tmp_path):
    from tests.archive.conftest import ROOT
    archive = tmp_path / "archive"
    older = ROOT / "fixtures/journals/schema1-lightning-dice.jsonl"      # 2026-11-29, one no roll in 3 rounds
    assert bench("archive", "ingest", "--archive", archive, journals[0], older, "--table", "T1").returncode == 0
    ran = bench("archive", "judge", "--archive", archive, "--json")
    lines = assert_json_lines(ran.stdout, "archive-judge")
    days = sorted(g["period"] for g in lines[:-1] if g["period"] != "trend")
    assert days[0] == "2026-11-29" and len(days) == 2
    (trend,) = [g for g in lines[:-1] if g["period"] == "trend"]
    assert trend["table"] == "T1" and trend["rounds"] == 7 and trend["tests"][0]["test"] == "trend"
    by_month = assert_json_lines(bench("archive", "judge", "--archive", archive, "--json", "--period", "month").stdout,
                                "archive-judge")
    assert {g["period"] for g in by_month[:-1]} == {"2026-11", "2026-12", "trend"}
