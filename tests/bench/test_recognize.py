"""bench recognize and the reference recogniser, on a handful of frames;
recognisers that lie, stall, crash or talk nonsense; an HTTP endpoint."""

import json
import os
import subprocess
import sys
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bench.vision.calibration import Calibration
from bench.vision.reference import read_image
from bench.vision.scoring import Score
from twin.camera.frames import Studio, read_labels, write_folder
from twin.tower import drop, load_design
from twin.tower.staging import stage_no_roll
from tests.json_schemas import json_record


def _bench(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "bench.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def frames(tmp_path_factory):
    """Three drops of the narrow tray under default variation: one with a die
    cocked and truly held (staged), two whose dice all lie flat."""
    design = load_design("narrow-tray")
    cocked_seed = stage_no_roll(design, start_seed=0, max_drops=200)[0]
    rolls = [s for s in range(40) if s != cocked_seed and not drop(design, s).no_roll][:2]
    seeds = [cocked_seed] + rolls
    folder = tmp_path_factory.mktemp("frames")
    studio = Studio(design, "tower")
    try:
        write_folder(studio, folder, seeds)
    finally:
        studio.close()
    return folder


def test_reference_reads_flat_faces_and_finds_the_cocked_die(frames):
    cal = Calibration.load(frames / "calibration.json")
    score = Score("tower")
    for label in read_labels(frames):
        score.add(label, read_image((frames / label["image"]).read_bytes(), cal))
    s = score.to_json()
    assert s["cocked_dice"] + s["cocked_hidden"] >= 1
    assert s["cocked_found"] == s["cocked_dice"] and s["frame_no_roll_recall"] == 1.0
    assert s["roll_face_accuracy"] == 1.0 and s["roll_flat_dice"] >= 3


def test_bench_recognize_scores_and_reports(frames, tmp_path):
    report = tmp_path / "r.html"
    done = _bench("recognize", str(frames), "--recognizer", "reference", "--json", "--report", str(report),
                  "--require", "no_roll_recall=0.95", "--require", "frame_no_roll_recall=1")
    assert done.returncode == 0, done.stderr
    scores = json_record(done.stdout, "recognize", "scores")
    assert scores["frames"] == 3 and scores["errors"] == 0
    assert json_record(done.stdout, "recognize", "verdict")["passed"] is True
    assert set(scores["confusion"]) <= {"1", "2", "3", "4", "5", "6"}
    from tablebench_io.report_page import checked_images
    page = report.read_text()
    assert 'data-verdict="pass"' in page and "Confusion of flat dice" in page
    checked_images(page)     # self-contained: every picture inside and decodable


def _script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return f"{sys.executable} {path}"


def test_a_lying_recogniser_fails_the_requirement(frames, tmp_path):
    liar = _script(tmp_path, "liar.py", """
        import json
        print(json.dumps({"dice": [{"face": 1, "flat": True, "centre_px": [320, 240]}], "no_roll": False}))
    """)
    done = _bench("recognize", str(frames), "--recognizer", liar, "--require", "face_accuracy=0.99")
    assert done.returncode == 1
    assert "not met: face_accuracy" in done.stdout


@pytest.mark.parametrize("behaviour, error", [
    ("print('not json at all')", "not JSON"),
    ("import sys; sys.exit(3)", "an empty reply"),
    # It never answers: it would sleep past _bench's timeout (the hang guard) if the bench waited for it.
    ("import os, time; open({pids!r}, 'a').write(f'{{os.getpid()}}\\n'); time.sleep(600)", "no reply within 1 s"),
    ("print('[' * 10)", "not JSON"),
])
def test_a_hostile_recogniser_costs_its_frames_only(frames, tmp_path, behaviour, error):
    pids = tmp_path / "pids"
    bad = _script(tmp_path, "bad.py", behaviour.format(pids=str(pids)) + "\n")
    done = _bench("recognize", str(frames), "--recognizer", bad, "--timeout", "1", "--json",
                  "--readings", str(tmp_path / "readings.jsonl"))
    assert done.returncode == 0 and "Traceback" not in done.stderr
    scores = json_record(done.stdout, "recognize", "scores")
    assert scores["errors"] == 3 and scores["flat_right"] == 0
    readings = [json.loads(line) for line in (tmp_path / "readings.jsonl").read_text().splitlines()]
    assert all(error in r["reading"]["error"] for r in readings), readings
    # Each frame cost its timeout only: the recogniser that never answered was stopped, not waited for.
    # (Each wrote its pid as it started, unless a loaded machine took the whole second to start it.)
    started = [int(pid) for pid in pids.read_text().split()] if pids.exists() else []
    assert len(started) <= 3
    for pid in started:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_stream_recogniser_that_stalls_is_started_again(frames, tmp_path):
    """Answers the first frame, then never again: each later frame waits its
    timeout, the recogniser is started afresh, and the scoring goes on."""
    stalls = _script(tmp_path, "stalls.py", """
        import json, sys, time, pathlib
        marker = pathlib.Path(sys.argv[1])
        for line in sys.stdin:
            if marker.exists():
                time.sleep(60)
            marker.write_text("answered")
            print(json.dumps({"dice": []}), flush=True)
    """) + f" {tmp_path / 'marker'}"
    done = _bench("recognize", str(frames), "--recognizer", stalls, "--stream", "--timeout", "1", "--json")
    assert done.returncode == 0, done.stderr
    assert json_record(done.stdout, "recognize", "scores")["errors"] == 2


def test_an_http_recogniser(frames):
    cal = Calibration.load(frames / "calibration.json")
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            image = self.rfile.read(int(self.headers["Content-Length"]))
            seen.append(self.headers["Content-Type"])
            body = json.dumps(read_image(image, cal)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        done = _bench("recognize", str(frames), "--recognizer", f"http://127.0.0.1:{server.server_address[1]}/read",
                      "--json")
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stderr
    scores = json_record(done.stdout, "recognize", "scores")
    assert scores["errors"] == 0 and scores["frame_no_roll_recall"] == 1.0
    assert seen == ["image/jpeg"] * 3


def test_not_a_frames_folder(tmp_path):
    done = _bench("recognize", str(tmp_path), "--recognizer", "reference")
    assert done.returncode == 2 and "not a frames folder" in done.stderr and "Traceback" not in done.stderr


def test_a_reading_goes_to_the_die_the_camera_sees_not_the_one_hidden_under_it():
    """A die lying on another (true size: it may lie square on it) hides the
    one under it; the reading at that place is the visible die's."""
    from bench.vision.scoring import match_dice
    under = {"die": 3, "flat": True, "box_px": [83, 211, 136, 125], "visible_share": 0.06}
    on_top = {"die": 2, "flat": False, "box_px": [63, 174, 185, 178], "visible_share": 0.94}
    read = [{"centre_px": [150.0, 270.0], "flat": False}]
    assert match_dice([under, on_top], read) == [None, 0]
    assert match_dice([under], read) == [0]            # alone, the hidden die still takes it


def test_dice_cocked_against_others_are_found_as_themselves(tmp_path):
    """At true size a cocked die most often leans on the die beside it (83 of
    94 cocked dice in 600 drops of the narrow tray), its lit face joined to
    that die's top face along a whole edge. The reference recogniser must find
    each as a die of its own, cocked, where the camera sees it: not merge it
    into the die it leans on, which left it "not found" (issue 31: 6 of the 94
    in the seeds it was tuned on, 1000 on; 2 of them in the 120 drops here)."""
    from bench.vision.scoring import match_dice
    design = load_design("narrow-tray")
    # The seeds of 1000-1119 whose drop has a die cocked over 20 deg against another (found once by
    # searching the 120 on the pinned libm, docs/reproducibility.md; each is checked to be one still).
    seeds = [1000, 1006, 1024, 1042, 1044, 1084, 1087, 1090, 1091, 1116]
    assert all(any(not d.flat and d.tilt_deg > 20 and d.reason == "die" for d in drop(design, s).dice)
               for s in seeds), "the drops of these seeds no longer lean a die on another"
    studio = Studio(design, "tower")
    try:
        write_folder(studio, tmp_path, seeds)
    finally:
        studio.close()
    cal = Calibration.load(tmp_path / "calibration.json")
    missed = []
    for label in read_labels(tmp_path):
        reading = read_image((tmp_path / label["image"]).read_bytes(), cal)
        truth = label["truth"]["dice"]
        for die, j in zip(truth, match_dice(truth, reading["dice"])):
            if not die["flat"] and die["holder"] == "die" and (j is None or reading["dice"][j]["flat"]):
                missed.append(label["image"])
        assert reading["no_roll"] is True, label["image"]
    assert missed == [], f"leaning dice not found cocked in {missed} of {len(seeds)} frames"
