"""benchmarks/floors.py --json (issue 42): a line a metric, valid against
schemas/floors-1.schema.json, with the replay's floor above its figure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.json_schemas import assert_json_lines

ROOT = Path(__file__).resolve().parents[2]


def test_floors_replay_line_is_a_measured_metric():
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks/floors.py"), "--only", "replay", "--rounds", "3",
                           "--repeats", "1", "--json"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = assert_json_lines(done.stdout, "floors")
    (metric,) = [line for line in lines if line["record"] == "metric"]
    assert metric["metric"] == "replay" and metric["checkout"] == "now" and metric["rounds"] == 3
    # raw parsing and hashing is what replay cannot beat: the floor is the faster
    assert metric["floor_rounds_per_cpu_s"] > metric["figure_rounds_per_cpu_s"] > 0
    assert lines[-1]["passed"] is True and lines[-1]["status"] == 0
