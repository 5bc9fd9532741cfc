"""twin validate: a campaign's records depend on its seeds only (not on the
workers), an interrupted campaign resumes from its file, and the verdicts
name what a test lab would flag: the straight chute keeps the loaded face,
the tilted wheel never lets the ball leave from part of its track."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from twin.validate import validate
from twin.pvalue import format_p
from tablebench_io.report_page import checked_images, tablebench_version
from twin.validate.campaign import CampaignError
from tests.json_schemas import json_record, json_records

ROOT = Path(__file__).resolve().parents[2]
STANDARD = str(ROOT / "fixtures/towers/standard.yaml")
CHUTE = str(ROOT / "fixtures/towers/straight-chute.yaml")
LEVEL = str(ROOT / "fixtures/wheels/standard.yaml")
TILTED = str(ROOT / "fixtures/wheels/tilted.yaml")


def test_records_do_not_depend_on_the_number_of_workers(tmp_path):
    one = validate(STANDARD, 30, workers=1, seed=100, results=tmp_path / "one.jsonl")
    two = validate(STANDARD, 30, workers=2, seed=100, results=tmp_path / "two.jsonl")
    assert one.records == two.records
    assert [r["seed"] for r in one.records] == list(range(100, 130))
    assert [c.to_json() for c in one.checks] == [c.to_json() for c in two.checks]


def test_an_interrupted_campaign_resumes_where_it_stopped(tmp_path):
    path = tmp_path / "runs.jsonl"
    validate(CHUTE, 12, workers=1, results=path)
    with path.open("a", encoding="utf-8") as f:
        f.write('{"seed": 12, "faces": [1, ')            # the writer was killed mid-line
    resumed = validate(CHUTE, 20, workers=1, results=path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + 20                          # header, 12 kept, 8 new: none run twice
    fresh = validate(CHUTE, 20, workers=1, results=tmp_path / "fresh.jsonl")
    assert resumed.records == fresh.records


def test_a_results_file_of_another_campaign_is_refused(tmp_path):
    path = tmp_path / "runs.jsonl"
    validate(CHUTE, 3, workers=1, results=path)
    with pytest.raises(CampaignError, match="another campaign"):
        validate(STANDARD, 3, workers=1, results=path)
    with pytest.raises(CampaignError, match="another campaign"):
        validate(CHUTE, 3, workers=1, seed=7, results=path)


def test_a_campaign_started_by_another_twin_is_read_but_not_continued(tmp_path):
    path = tmp_path / "runs.jsonl"
    first = validate(CHUTE, 3, workers=1, results=path)
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["twin"] == first.twin and first.to_json()["twin"] == first.twin
    header["twin"]["canaries"]["tower"] = "0" * 16          # drawn by a twin whose tower draws otherwise
    path.write_text("\n".join([json.dumps(header, sort_keys=True)] + lines[1:]) + "\n", encoding="utf-8")
    with pytest.raises(CampaignError, match="another twin .*the tower's canary"):
        validate(CHUTE, 5, workers=1, results=path)
    again = validate(CHUTE, 3, workers=1, results=path)      # nothing to run: its records, its twin
    assert again.records == first.records and again.twin == header["twin"]


def test_straight_chute_fails_on_the_loaded_face_and_standard_tower_passes(tmp_path):
    chute = validate(CHUTE, 40, workers=1, results=tmp_path / "chute.jsonl")
    assert chute.failed == ["loaded_face_dependence"]
    standard = validate(STANDARD, 120, workers=2, results=tmp_path / "standard.jsonl")
    assert standard.passed, standard.to_json()


def test_tilted_wheel_fails_on_the_leaving_angle_and_level_wheel_passes(tmp_path):
    tilted = validate(TILTED, 16, workers=2, results=tmp_path / "tilted.jsonl", report=tmp_path / "report")
    assert "leaving_angle_empty_arc" in tilted.failed
    assert set(tilted.failed) <= {"leaving_angle_empty_arc", "leaving_angle_uniformity"}
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert "no ball left the track between" in page and "A rose of the leaving angles" in page
    images = checked_images(page)
    charts = {data for mime, data in images if mime == "image/svg+xml"}    # (a failing check's chart shows twice)
    assert len(charts) == 5 and {"image/png", "image/gif"} <= {mime for mime, _ in images}
    assert "The descent&#x27;s scatter by the rotor&#x27;s period" in page
    level = validate(LEVEL, 16, workers=2, results=tmp_path / "level.jsonl")
    assert level.passed, level.to_json()


def _twin(*args, cwd):
    return subprocess.run([sys.executable, "-m", "twin.cli", "validate", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=240)


def test_cli_prints_only_json_and_writes_a_report_that_says_why(tmp_path):
    done = _twin(CHUTE, "--drops", "30", "--workers", "2", "--json", "--report", str(tmp_path / "report"),
                 "--results", str(tmp_path / "runs.jsonl"), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    result = json_record(done.stdout, "validate", "verdict")     # nothing but the JSON lines on stdout
    assert result["failed"] == ["loaded_face_dependence"] and result["passed"] is False and result["status"] == 1
    checks = json_records(done.stdout, "validate", "check")
    loaded = next(c for c in checks if c["key"] == "loaded_face_dependence")
    assert loaded["passed"] is False and loaded["adjusted_p_value"] < 0.01
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert "Why it fails" in page and "stayed on top" in page and "Holm" in page
    assert 'data-verdict="fail"' in page                  # the verdict box says what the exit status says
    assert result["report"] == str(tmp_path / "report" / "index.html")
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == ["index.html", "validation.json"]
    digest = hashlib.sha256(Path(CHUTE).read_bytes()).hexdigest()
    for needed in (digest, f"tablebench {tablebench_version()}", "PyBullet", "seeds", "0–29", "30 drops",
                   "engine", "local"):
        assert needed in page, needed
    images = checked_images(page)
    charts = {data for mime, data in images if mime == "image/svg+xml"}
    assert len(charts) == 5 and {"image/png", "image/gif"} <= {mime for mime, _ in images}
    # the twin that drew the drops, in the JSON, the records' header and the provenance
    from twin.fingerprint import fingerprint
    assert result["twin"] == fingerprint()
    assert json.loads((tmp_path / "runs.jsonl").read_text().splitlines()[0])["twin"] == result["twin"]
    assert f"canary {result['twin']['canary']}" in page
    # one p-value, written one way in the JSON's words and on the page
    assert loaded["adjusted_p_value_text"] == format_p(loaded["adjusted_p_value"])
    assert f"<td class=num>{loaded['adjusted_p_value_text']}</td>" in page


def test_cli_refuses_spins_for_a_tower_and_names_a_bad_design(tmp_path):
    done = _twin(STANDARD, "--spins", "10", cwd=tmp_path)
    assert done.returncode == 2 and "--drops" in done.stderr
    bad = ROOT / "fixtures/towers/invalid/restitution-above-one.yaml"
    done = _twin(str(bad), "--drops", "10", cwd=tmp_path)
    assert done.returncode == 2 and "restitution-above-one.yaml" in done.stderr


def test_a_second_run_on_a_campaign_file_being_written_is_refused_and_the_file_kept(tmp_path):
    """Two runs appending to one campaign's file would interleave their records;
    the second is refused at once (exit 2, one line naming the file), and the
    first one's file is left as it was."""
    from twin.validate.campaign import appending
    results = tmp_path / "campaign.jsonl"
    with appending(results) as out:             # a first run, still writing
        out.write('{"a first run": "still writing"}\n')
        out.flush()
        before = results.read_bytes()
        proc = _twin(STANDARD, "--drops", "20", "--results", results, "--no-progress", cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and str(results) in proc.stderr
        assert "another twin run is writing this file" in proc.stderr
        assert results.read_bytes() == before
    proc = _twin(STANDARD, "--drops", "20", "--results", tmp_path / "own.jsonl", "--no-progress", "--json",
                 cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr          # a file of its own: the campaign runs
