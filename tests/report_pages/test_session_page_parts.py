"""A session page's outcome classes and return say what the data shows
(issue 41), on a 6-round Lightning Roulette session with the fair-dice
plant (seconds): 37 of its 44 classes are not covered, 34 of them for one
reason, and only one round is ordinary (the others staged probes), so its
return has no interval."""

from __future__ import annotations

import re
import subprocess
import sys
from html import unescape

import pytest


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("roulette") / "S"
    done = subprocess.run([sys.executable, "-m", "bench.cli", "run", "--game", "lightning-roulette", "--rounds", "6",
                           "--plant", "dice", "--seed", "5", "--out", str(out)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return (out / "report.html").read_text(encoding="utf-8")


def _section(page: str, heading: str) -> str:
    start = page.index(f"<h2>{heading}</h2>")
    end = page.find("<h2>", start + 1)
    return unescape(page[start:end])


def test_the_classes_not_covered_are_counted_and_each_reason_said_once(page):
    classes = _section(page, "Outcome classes and the Lucky draw")
    headline = re.search(r"<p>Outcome classes covered: (\d+) of (\d+); (\d+) not covered, by why:</p>", classes)
    assert headline, classes[:600]
    covered, total, missing = map(int, headline.groups())
    assert covered + missing == total and ", ." not in classes and "..." not in classes
    items = re.findall(r"<li>(.*?)</li>", classes)
    reasons = [item.rsplit(": ", 1)[1] for item in items]
    assert len(reasons) == len(set(reasons))                       # each reason once
    assert sum(item.rsplit(": ", 1)[0].count(", ") + 1 for item in items) == missing
    too_few = next(item for item in items if "too few to stage" in item)
    assert too_few.startswith("pocket 1, pocket 2, ")


def test_the_return_says_there_is_no_interval_where_the_chart_draws_none(page):
    returned = _section(page, "Return to player")
    assert re.search(r"Over the 1 ordinary round: staked [\d,]+ and returned [\d,]+ \(minor units\)", returned)
    assert "no interval: it needs at least two ordinary rounds" in returned
    caption = re.search(r"<figcaption>(.*?)</figcaption>", returned)
    assert caption and "with its" not in caption.group(1) and "a dot alone: no interval" in caption.group(1)
