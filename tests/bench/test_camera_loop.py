"""bench run --camera: the result as a camera sees it, read by a recogniser,
sent to the controller, journalled beside the truth; the MJPEG stream."""

import hashlib
import json
import socket
import subprocess
import sys
import urllib.request


from bench.vision.mjpeg import BOUNDARY, MjpegServer


def test_a_session_read_through_the_camera(tmp_path):
    out = tmp_path / "s"
    done = subprocess.run([sys.executable, "-m", "bench.cli", "run", "--rounds", "3", "--seed", "3", "--out", str(out),
                           "--camera", "--recognizer", "reference", "--no-progress"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    records = [json.loads(line) for line in (out / "session.jsonl").read_text().splitlines()]
    assert records[0]["camera"]["recognizer"] == "reference"
    plants = [p for r in records for p in (r.get("plants") or [])]
    assert len(plants) >= 2
    for plant in plants:
        camera = plant["detail"]["camera"]
        frame = out / "frames" / camera["frame"]
        assert hashlib.sha256(frame.read_bytes()).hexdigest() == camera["sha256"]
        label = json.loads(frame.with_suffix(".json").read_text())
        assert camera["truth"]["dice"] == label["truth"]["faces"] == plant["detail"]["faces"]
        read = sorted(camera["reading"]["dice"], key=lambda d: d["centre_px"][0])
        # what went to the controller is the recogniser's reading, left to right in the image
        if all(d["face"] for d in read) and len(read) == 3:
            assert plant["dice"] == [d["face"] for d in read] and plant["flat"] == [d["flat"] for d in read]
        else:
            assert plant["flat"] == [False, False, False]
    # seed 3 stages a cocked die in round 2 (bench.play.coverage): the camera calls it a no roll
    cocked = [p for p in plants if p["detail"].get("staged") == "a die cocked"]
    assert cocked and cocked[0]["round"] == 2
    assert not all(cocked[0]["detail"]["camera"]["truth"]["flat"]) and not all(cocked[0]["flat"])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_mjpeg_stream_serves_each_frame_and_drops_a_stalled_client(tmp_path):
    from twin.camera.frames import Studio
    from twin.tower import drop, load_design
    design = load_design("narrow-tray")
    studio = Studio(design, "tower", level="none")      # PNG frames: served as JPEG all the same
    try:
        frames = [studio.rest_of_drop(drop(design, s)) for s in (1, 2)]
    finally:
        studio.close()
    server = MjpegServer(f"127.0.0.1:{_free_port()}", b'{"scene": "tower"}')
    host, port = server.address.rsplit(":", 1)
    stalled = socket.create_connection((host, int(port)))
    stalled.sendall(b"GET /stream.mjpg HTTP/1.1\r\nHost: x\r\n\r\n")     # and never reads
    try:
        stream = urllib.request.urlopen(f"http://{server.address}/stream.mjpg", timeout=10)
        assert stream.headers["Content-Type"] == f"multipart/x-mixed-replace; boundary={BOUNDARY}"
        parts = []
        for frame in frames:
            server.publish(frame.image)
            assert stream.readline().strip() == f"--{BOUNDARY}".encode()
            headers = {}
            while (line := stream.readline().strip()):
                key, _, value = line.decode().partition(": ")
                headers[key] = value
            parts.append(stream.read(int(headers["Content-Length"])))
            stream.readline()
            assert headers["Content-Type"] == "image/jpeg"
        assert all(p[:3] == b"\xff\xd8\xff" for p in parts) and parts[0] != parts[1]
        latest = urllib.request.urlopen(f"http://{server.address}/frame.jpg", timeout=10).read()
        assert latest == parts[1]
        assert json.loads(urllib.request.urlopen(f"http://{server.address}/calibration.json", timeout=10).read()) \
            == {"scene": "tower"}
    finally:
        stalled.close()
        server.close()


def test_camera_options_are_checked(tmp_path):
    done = subprocess.run([sys.executable, "-m", "bench.cli", "run", "--plant", "dice", "--camera",
                           "--out", str(tmp_path / "s")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--camera needs a physics plant" in done.stderr
    assert not (tmp_path / "s" / "session.jsonl").exists()
