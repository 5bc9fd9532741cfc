"""bench rng --report: the page on the shared frame says the verdict the
command exits with (pass, fail, too short as a caution), names every file
with its SHA-256 and lists each test; an unwritable page is bad input."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from bench.emulator.threaded import threaded_controller
from bench.rules.submission import default_rules

REPO = Path(__file__).resolve().parents[2]
LD = "lightning-dice"


def bench(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.cli", "rng", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_the_page_says_the_verdict_and_names_each_file_and_test(tmp_path):
    with threaded_controller(LD, default_rules(LD), seed=4, misbehave="modulo-bias") as url:
        assert bench("--collect", 10_000, "--controller", url, "--out", tmp_path).returncode == 0
    journal = tmp_path / "collection.jsonl"
    judged = bench(journal, "--report", tmp_path / "rng.html")
    assert judged.returncode == 1
    page = (tmp_path / "rng.html").read_text(encoding="utf-8")
    assert 'data-verdict="fail"' in page and "chi-square on scaled(collection.jsonl)" in page
    assert hashlib.sha256(journal.read_bytes()).hexdigest() in page
    assert page.count("810a.5(c)(15)") >= 3 and "source code read" in page
    unwritable = bench(journal, "--report", tmp_path / "no" / "such" / "dir" / "x.html")
    assert unwritable.returncode == 2 and "--report" in unwritable.stderr
