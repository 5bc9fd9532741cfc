"""bench run --camera-variation takes a shipped level or a lab's own variation
file (issue 38.2: a lab sets each factor to its own studio); a bad file is one
line naming the file, exit 2, before any session starts."""

import json
import subprocess
import sys

from twin.camera.variation import SHIPPED


def _run(tmp_path, variation, rounds="1"):
    return subprocess.run([sys.executable, "-m", "bench.cli", "run", "--camera", "--camera-variation", str(variation),
                           "--rounds", rounds, "--seed", "3", "--out", str(tmp_path / "s"), "--no-progress"],
                          capture_output=True, text=True, timeout=600)


def test_a_broken_variation_file_is_one_line_naming_it(tmp_path):
    bad = tmp_path / "studio.yaml"
    bad.write_text("glass: [1\n")
    done = _run(tmp_path, bad)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and str(bad) in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "s" / "session.jsonl").exists()


def test_a_labs_own_variation_file_is_the_camera_of_the_session(tmp_path):
    own = tmp_path / "our-studio.yaml"
    own.write_text((SHIPPED / "studio.yaml").read_text())
    done = _run(tmp_path, own)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((tmp_path / "s" / "summary.json").read_text())
    assert summary["camera"]["level"] == str(own)
    session = json.loads((tmp_path / "s" / "session.jsonl").read_text().splitlines()[0])
    assert session["camera"]["variation_text"] == own.read_text()      # the ranges travel with the journal
    assert len(session["camera"]["variation_sha256"]) == 64
    assert list((tmp_path / "s" / "frames").glob("*.jpg"))
