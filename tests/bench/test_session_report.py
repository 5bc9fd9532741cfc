"""The session report: bench run leaves DIR/report.html, one self-contained
page (every picture inside it and decodable, nothing fetched) whose verdict
is the exit status, with its provenance; bench replay --report writes the
same page from the journal alone; a violation is shown with the
regulation's words, its frame decoded and the round's outcome drawn. (How
every report page looks in a browser: tests/report_pages.)"""

import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from tablebench_io.report_page import checked_images, tablebench_version


def bench(*args):
    return subprocess.run([sys.executable, "-m", "bench.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def checked_page(path: Path) -> tuple[str, list[tuple[str, bytes]]]:
    """The page's text and its images, each checked to be inside the page and to decode."""
    page = path.read_text(encoding="utf-8")
    return page, checked_images(page)


def verdict_of(page: str) -> str:
    return re.search(r'id="verdict" data-verdict="(\w+)"', page).group(1)


@pytest.fixture(scope="module")
def compliant(tmp_path_factory):
    out = tmp_path_factory.mktemp("session") / "S"
    done = bench("run", "--rounds", "3", "--seed", "5", "--no-probes", "--out", out)
    return out, done


@pytest.fixture(scope="module")
def misbehaving(tmp_path_factory):
    out = tmp_path_factory.mktemp("session") / "B"
    done = bench("run", "--rounds", "2", "--seed", "7", "--no-probes", "--misbehave", "five-lucky-numbers",
                 "--out", out)
    return out, done


def test_bench_run_leaves_a_self_contained_report_with_its_provenance(compliant):
    out, done = compliant
    assert done.returncode == 0, done.stderr
    assert f"report: {out / 'report.html'}" in done.stdout
    page, images = checked_page(out / "report.html")
    assert verdict_of(page) == "pass"
    header = json.loads((out / "session.jsonl").read_text().splitlines()[0])
    head = (out / "session.head").read_text().strip()
    for needed in (head, header["design_sha256"], f"tablebench {tablebench_version()}", "PyBullet", "Python",
                   f"<code>{header['seed']}</code>", "role=controller", "matches the head hash kept apart"):
        assert needed in page, needed
    kinds = {mime for mime, _ in images}
    assert "image/svg+xml" in kinds          # the charts: return to player, reply latencies
    assert "WAGER → ACCEPT" in page            # the reply latencies, by kind of request
    # the outcome classes (none staged: --no-probes) and the Lucky draw, judged over too few rounds
    assert "staged no outcomes (--no-probes)" in page and "Lucky draw: too few rounds to detect" in page


def test_bench_replay_writes_the_same_report_from_the_journal_alone(compliant, tmp_path):
    out, _ = compliant
    head = (out / "session.head").read_text().strip()
    done = bench("replay", out / "session.jsonl", "--head", head, "--report", tmp_path / "R.html")
    assert done.returncode == 0, done.stdout + done.stderr
    replayed, recorded = (tmp_path / "R.html").read_text(encoding="utf-8"), (out / "report.html").read_text(encoding="utf-8")
    assert "Replay of a session" in replayed and "Replay of" not in recorded     # a replay says it is one
    assert _sections(replayed) == _sections(recorded)                          # and finds what the run found


def _sections(page: str) -> str:
    """A report's own sections, past the verdict box and the provenance (which say who made the page, and when)."""
    return page[page.index("<h2"):page.index("<footer")]


def test_a_violation_is_shown_with_the_regulations_words_its_frame_and_the_round_drawn(misbehaving):
    out, done = misbehaving
    assert done.returncode == 1, done.stderr
    page, images = checked_page(out / "report.html")
    assert verdict_of(page) == "fail"
    assert re.search(r"625b\.2\(d\)\(2\): \d+ violations", page)
    # the clause in its own words, with where the words come from
    assert "reveal between two and four Lucky Numbers" in page and "55 Pa.B. 4794" in page
    assert "LUCKY round=1" in page                   # the frame concerned, decoded
    assert re.search(r"<code>\$\d{4} LUCKY round=1 ", page)   # and its bytes on the wire
    trays = [data for mime, data in images if mime == "image/png"]
    assert len(trays) == 2 and all(Image.open(io.BytesIO(t)).size[0] > 300 for t in trays)  # each round's tray
    assert "the tray from above" in page


def test_a_changed_journal_gives_a_failing_report(misbehaving, tmp_path):
    out, _ = misbehaving
    journal = tmp_path / "session.jsonl"
    shutil.copy(out / "session.jsonl", journal)
    lines = journal.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b"ACCEPT", b"ACCEPU", 1)
    journal.write_bytes(b"".join(lines))
    done = bench("replay", journal, "--report", tmp_path / "R.html")
    assert done.returncode == 1
    page, _ = checked_page(tmp_path / "R.html")
    assert verdict_of(page) == "fail" and "BROKEN" in page


def test_a_bet_the_game_does_not_offer_accepted_still_gives_a_report(tmp_path):
    """The controller accepts a bet the game does not offer: the violation is
    in the report, and the stakes table says the bet has no return to expect."""
    out = tmp_path / "S"
    done = bench("run", "--rounds", "2", "--seed", "5", "--no-probes", "--plant", "dice",
                 "--misbehave", "accept-unknown-bet", "--out", out)
    assert done.returncode == 1, done.stderr
    assert "warning" not in done.stderr and f"report: {out / 'report.html'}" in done.stdout
    page, _ = checked_page(out / "report.html")
    assert verdict_of(page) == "fail" and "total:19" in page and "not offered" in page
    replayed = bench("replay", out / "session.jsonl", "--head", (out / "session.head").read_text().strip(),
                     "--report", tmp_path / "again.html")
    assert replayed.returncode == 1, replayed.stderr
    assert _sections((tmp_path / "again.html").read_text(encoding="utf-8")) == _sections(page)


def test_a_report_that_cannot_be_built_whole_is_written_short_with_the_verdict(tmp_path, monkeypatch, capsys):
    """Whatever the page's builder trips on, bench run leaves a report.html
    with the run's verdict and why the rest is missing, and says so."""
    import bench.report.page as report_page
    from bench.cli import main as bench_main

    def broken(facts):
        raise RuntimeError("a chart that cannot be drawn")
    monkeypatch.setattr(report_page, "render", broken)
    out = tmp_path / "S"
    status = bench_main(["run", "--rounds", "1", "--seed", "5", "--no-probes", "--plant", "dice", "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 0
    page, _ = checked_page(out / "report.html")
    assert verdict_of(page) == "pass" and "a chart that cannot be drawn" in page
    assert "bench replay" in page and "--report" in page
    assert f"report: {out / 'report.html'} (short" in captured.out
