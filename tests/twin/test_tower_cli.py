"""``twin drop``: K drops as JSON lines, the same on a rerun; pictures; errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PIL import Image
from tests.json_schemas import json_records

TOWERS = Path(__file__).resolve().parents[2] / "fixtures" / "towers"
TWIN = [sys.executable, "-m", "twin.cli", "drop"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*TWIN, *map(str, args)], capture_output=True, text=True, timeout=180)


def test_count_json_gives_one_object_a_line_and_the_same_lines_when_run_again():
    # The issue asks this of --count 200; 40 drops keep the test short, and
    # the full 200 were checked by hand (docs/tower.md).
    first = run(TOWERS / "standard.yaml", "--count", 40, "--seed", 100, "--json")
    second = run(TOWERS / "standard.yaml", "--count", 40, "--seed", 100, "--json")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    lines = json_records(first.stdout, "drop", "drop")          # tablebench.drop/1 lines, the verdict last
    assert [d["seed"] for d in lines] == list(range(100, 140))
    for d in lines:
        assert len(d["faces"]) == 3 and len(d["dice"]) == 3
        assert d["no_roll"] == (not d["settled"] or not all(die["flat"] for die in d["dice"]))
    assert len({tuple(d["faces"]) for d in lines}) > 10       # drops differ from one another
    assert first.stderr == ""     # no progress bar (nor banner) when stderr is not a terminal


def test_pictures_of_the_first_drop(tmp_path):
    png, gif = tmp_path / "tray.png", tmp_path / "drop.gif"
    result = run(TOWERS / "standard.yaml", "--seed", 5, "--png", png, "--gif", gif)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("seed 5: ")
    assert Image.open(png).format == "PNG"
    animation = Image.open(gif)
    assert animation.format == "GIF" and animation.n_frames > 20


def test_a_bad_design_exits_2_naming_the_file_and_field():
    bad = TOWERS / "invalid" / "zero-edge.yaml"
    result = run(bad)
    assert result.returncode == 2
    assert f"{bad}: dice.edge_m: " in result.stderr
    assert result.stdout == ""


def test_a_bad_load_is_refused_by_the_parser():
    result = run(TOWERS / "standard.yaml", "--loaded", "1,9,3")
    assert result.returncode == 2 and "three faces from 1 to 6" in result.stderr
