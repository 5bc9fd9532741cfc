"""The recognition page gives each count with its numerator and says of each
rate whether it is per die or per frame, as --json names it (issue 41: it
printed "of 12", "of 7", "of 7", and its frame figure, 100%, stood where a
reader looked for --json's no_roll_precision, 0.58, which is per die); the
worst frames' labels are large enough to read, on a dark plate; and the
page is listed in docs/reports.md."""

from __future__ import annotations

import io
from html import unescape
from pathlib import Path

from PIL import Image

from bench.vision.report import LABEL_PX, marked, write

ROOT = Path(__file__).resolve().parents[2]

SCORES = {"scene": "tower", "frames": 20, "errors": 0, "flat_dice": 50, "flat_right": 49, "face_accuracy": 0.98,
          "face_accuracy_per_die": {"1": 1.0, "2": 0.95, "3": 1.0}, "roll_flat_dice": 39, "roll_flat_right": 39,
          "roll_face_accuracy": 1.0, "cocked_hidden": 0, "cocked_hidden_frame_called": 0, "cocked_dice": 10,
          "cocked_found": 7, "no_roll_recall": 0.7, "called_cocked": 12, "no_roll_precision": 7 / 12,
          "flat_called_cocked": 5, "extra_dice": 0, "no_roll_frames": 7, "no_roll_called": 7,
          "frame_no_roll_recall": 1.0, "frame_no_roll_precision": 1.0, "confusion": {}, "worst": []}


def test_every_count_has_its_numerator_and_every_rate_its_unit(tmp_path):
    page = unescape(write(tmp_path / "R.html", SCORES, folder="F", recognizer="ref", calibration_digest="0" * 64,
                          required={}, passed=None, reasons=[], worst=[]).read_text(encoding="utf-8"))
    assert '<td class="num">of ' not in page
    assert ("<td>dice called cocked that are (no_roll_precision, per die)</td><td class=\"num\">7 of 12 dice</td>"
            '<td class="num">58.33%</td>') in page
    assert "<td>no-roll frames found (frame_no_roll_recall, per frame)</td><td class=\"num\">7 of 7 frames</td>" in page
    assert "<td>no rolls called that are (frame_no_roll_precision, per frame)</td><td class=\"num\">7 of 7 frames" in page
    # The verdict box's figures name their unit too: 58.33% per die, beside the frame's 100%.
    assert "<dt>dice called cocked that are (no_roll_precision, per die)</dt><dd>58.33%</dd>" in page
    assert "<dt>no-roll frames found (recall, per frame)</dt><dd>100.00%</dd>" in page


def test_a_worst_frames_labels_are_large_and_on_a_dark_plate():
    white = io.BytesIO()
    Image.new("RGB", (300, 200), (255, 255, 255)).save(white, "PNG")
    label = {"truth": {"dice": []}}
    reading = {"dice": [{"face": 5, "flat": False, "box_px": [100, 60, 80, 80]}]}
    picture = marked(white.getvalue(), label, reading)
    dark_rows = [y for y in range(picture.height) if any(sum(picture.getpixel((x, y))) < 60 for x in range(100, 200))]
    assert len(dark_rows) >= LABEL_PX >= 14           # PIL's default bitmap font is 10 px high, on nothing


def test_the_recognition_page_is_listed_among_the_reports():
    listed = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    assert "| recognition report | `bench recognize " in listed
