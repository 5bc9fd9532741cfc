"""The recogniser's plumbing against recognisers nobody here wrote (issue 38.5):
each malformed reading costs its own frame with a named reason; a
desynchronised stream is detected and restarted; deadlines hold for the
whole call and kill the recogniser's process group; size limits apply while
reading; a bad HTTP status or header line is the frame's error."""

import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from bench.vision.reading_calls import dice_call
from bench.vision.recognizer import Recognizer
from bench.vision.reply_check import MAX_REPLY, parse_reading
from bench.vision.scoring import Score

GOOD = {"dice": [{"face": 2, "flat": True, "centre_px": [10, 5]}, {"face": 3, "flat": True, "centre_px": [30, 5]},
                 {"face": 4, "flat": True, "centre_px": [50, 5]}]}


def _script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return f"{sys.executable} {path}"


@pytest.mark.parametrize("reply, reason", [
    ({"dice": [{"face": 2, "centre_px": [10]}]}, "dice[0].centre_px is 1 values, not 2 numbers"),
    ({"dice": [], "no_roll": "false"}, "no_roll is \"false\", not true or false"),
    ({"dice": [{"face": True, "centre_px": [1, 2]}]}, "dice[0].face is true"),
    ({"dice": [{"face": 7, "box_px": [1, 2, 3, 4]}]}, "dice[0].face is 7"),
    ({"dice": [{"face": 2, "flat": 1, "centre_px": [1, 2]}]}, "dice[0].flat is 1"),
    ({"dice": [{"face": 2}]}, "dice[0] has no place"),
    ({"pocket": "17"}, "pocket is \"17\""),
])
def test_a_malformed_reading_is_named(reply, reason):
    reading = parse_reading(json.dumps(reply).encode())
    assert reading["error"].startswith("malformed:") and reason in reading["error"], reading


def test_huge_numbers_deep_nesting_and_nan_are_malformed_not_crashes():
    assert "a number of 400 digits" in parse_reading(b'{"pocket": ' + b"9" * 400 + b"}")["error"]
    assert "malformed" in parse_reading(b'{"dice": ' + b"[" * 100000 + b"]" * 100000 + b"}")["error"]
    assert "nested deeper" in parse_reading(b'{"x": [[[[[[[[[[1]]]]]]]]]]}')["error"]
    assert "NaN" in parse_reading(b'{"dice": [{"face": 1, "centre_px": [NaN, 1]}]}')["error"]
    assert "out of range" in parse_reading(b'{"dice": [{"face": 1, "centre_px": [1e999, 1]}]}')["error"]
    assert parse_reading(json.dumps(GOOD).encode()) == GOOD


def test_a_readings_own_no_roll_is_honoured_and_a_short_reading_is_unread():
    faces, flat, unread = dice_call({**GOOD, "no_roll": True}, 3)
    assert unread is None and faces == (2, 3, 4) and not any(flat)
    faces, flat, unread = dice_call(GOOD, 3)
    assert (faces, flat, unread) == ((2, 3, 4), (True, True, True), None)
    assert dice_call({"dice": GOOD["dice"][:2]}, 3)[2] == "2 dice read, 3 in the tray"
    assert dice_call({"error": "no reply"}, 3)[2] == "no reply"


def test_stream_replies_cost_only_their_own_frame(tmp_path):
    """A stream answering, in turn: a short centre_px, a "face": true, a good
    reading. Each malformed one is that frame's error; the next frame reads."""
    replies = [{"dice": [{"face": 2, "centre_px": [10]}]}, {"dice": [{"face": True, "centre_px": [1, 2]}]}, GOOD]
    cmd = _script(tmp_path, "r.py", f"""
        import json, sys
        replies = {replies!r}
        for i, line in enumerate(sys.stdin):
            print(json.dumps(replies[i % 3]), flush=True)
    """)
    with Recognizer(cmd, tmp_path, stream=True, timeout_s=20) as rec:
        got = [rec.read(tmp_path / f"f{i}.jpg", b"x") for i in range(3)]
        assert rec.restarts == 0
    assert "centre_px" in got[0]["error"] and "face is true" in got[1]["error"] and got[2] == GOOD


def test_a_desynchronised_stream_is_detected_and_restarted(tmp_path):
    """A stream that writes one line too many on its first frame (and names
    its frames): the recogniser is restarted once, at most one frame is lost
    (said desynchronised) and every other frame's reading is its own. Which
    frame, if any, is the machine's timing, all three met in fresh clones:
    the extra line already there when the first reply is read (the first is
    lost); come before the second frame is asked (none is); or come as the
    second frame's reply, naming another frame (the second is lost)."""
    cmd = _script(tmp_path, "r.py", """
        import json, os, sys
        first = not os.path.exists(sys.argv[1])
        open(sys.argv[1], "a").close()
        for i, line in enumerate(sys.stdin):
            name = os.path.basename(line.strip())
            reply = {"pocket": int(name[1:-4]), "frame": name}
            print(json.dumps(reply), flush=True)
            if first and i == 0:
                print(json.dumps({"pocket": 36, "frame": "stray.jpg"}), flush=True)
    """) + f" {tmp_path / 'started-once'}"
    with Recognizer(cmd, tmp_path, stream=True, timeout_s=20) as rec:
        got = [rec.read(tmp_path / f"f{i}.jpg", b"x") for i in range(4)]
        assert rec.restarts == 1
    lost = [i for i, g in enumerate(got) if "desynchronised" in g.get("error", "")]
    assert lost in ([], [0], [1]), got
    assert [g.get("pocket") for i, g in enumerate(got) if i not in lost] == [i for i in range(4) if i not in lost]


def test_a_reply_naming_another_frame_is_not_this_frames(tmp_path):
    cmd = _script(tmp_path, "r.py", """
        import json, sys
        for line in sys.stdin:
            print(json.dumps({"pocket": 5, "frame": "another.jpg"}), flush=True)
    """)
    with Recognizer(cmd, tmp_path, stream=True, timeout_s=20) as rec:
        got = rec.read(tmp_path / "f1.jpg", b"x")
    assert "desynchronised" in got["error"] and "another.jpg" in got["error"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (killed, not yet reaped by its parent, which is gone) is not running
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_a_deadline_kills_the_recognisers_whole_process_group(tmp_path):
    pids = tmp_path / "pids"
    cmd = _script(tmp_path, "r.py", f"""
        import subprocess, sys, time
        child = subprocess.Popen(["sleep", "600"])
        open({str(pids)!r}, "a").write(str(child.pid) + "\\n")
        time.sleep(600)
    """)
    started = time.monotonic()
    with Recognizer(cmd, tmp_path, timeout_s=1.5) as rec:
        got = rec.read(tmp_path / "f.jpg")
    assert time.monotonic() - started < 6 and "no reply within 1.5 s" in got["error"]
    child = int(pids.read_text().split()[0])
    for _ in range(50):
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child), "the recogniser's child outlived its frame"


def test_a_stream_that_closes_its_output_and_lives_on_cannot_hold_the_call(tmp_path):
    """Its stdout ends but the process sleeps: the call's deadline still holds
    (it waited for the process with no timeout: 60 s under --timeout 2), and
    the frame's error says what happened."""
    cmd = _script(tmp_path, "r.py", """
        import os, sys, time
        sys.stdin.readline()
        os.close(1)
        time.sleep(60)
    """)
    started = time.monotonic()
    with Recognizer(cmd, tmp_path, stream=True, timeout_s=2) as rec:
        got = rec.read(tmp_path / "f.jpg", b"x")
    assert time.monotonic() - started < 8, "the call outlived its deadline"
    assert got["error"] == "the recogniser closed its output and did not end"


def test_a_reply_is_taken_though_a_child_of_the_recogniser_holds_its_output(tmp_path):
    """A run-once recogniser that starts a helper (which inherits its stdout),
    answers and exits: the reply is the frame's at once, not "no reply" at
    the deadline, and the helper is killed with the group."""
    cmd = _script(tmp_path, "r.py", """
        import json, subprocess
        subprocess.Popen(["sleep", "30"])
        print(json.dumps({"pocket": 5}), flush=True)
    """)
    started = time.monotonic()
    with Recognizer(cmd, tmp_path, timeout_s=5) as rec:
        got = rec.read(tmp_path / "f.jpg")
    assert got.get("pocket") == 5, got
    assert time.monotonic() - started < 4


def test_a_flood_is_cut_at_the_limit_while_reading(tmp_path):
    cmd = _script(tmp_path, "r.py", """
        import sys
        block = b"x" * (1 << 20)
        while True:
            sys.stdout.buffer.write(block)
    """)
    for stream in (False, True):
        with Recognizer(cmd, tmp_path, stream=stream, timeout_s=20) as rec:
            got = rec.read(tmp_path / "f.jpg", b"x")
        assert f"more than {MAX_REPLY} bytes" in got["error"]


class _Server:
    """A one-shot-per-connection TCP server answering with ``answer(conn)``."""

    def __init__(self, answer):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.answer = answer
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/read"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn):
        try:
            conn.settimeout(10)
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = int([h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")][0].split(b":")[1])
            while len(body) < length:
                body += conn.recv(65536)
            self.answer(conn)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self):
        self.sock.close()


def _http(answer, timeout_s=3.0):
    server = _Server(answer)
    try:
        with Recognizer(server.url, "cal.json", timeout_s=timeout_s) as rec:
            started = time.monotonic()
            got = rec.read("frame-1.png", b"\x89PNG\r\n\x1a\n...")
            return got, time.monotonic() - started
    finally:
        server.close()


def test_http_a_trickling_server_cannot_hold_a_call_past_its_deadline():
    def trickle(conn):
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
        for _ in range(60):
            conn.sendall(b" ")
            time.sleep(0.5)
    got, took = _http(trickle, timeout_s=2.0)
    assert "no reply within 2 s" in got["error"] and took < 4


def test_http_size_limits_apply_while_reading():
    def huge_length(conn):
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 314572800\r\n\r\n{")
    got, _ = _http(huge_length)
    assert "more than 1048576 bytes (Content-Length 314572800)" in got["error"]

    def endless(conn):
        conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
        block = b" " * 65536
        for _ in range(400):                  # 25 MiB, no length: read up to the limit, then refused
            conn.sendall(block)
    got, _ = _http(endless, timeout_s=20)
    assert "more than 1048576 bytes" in got["error"]


@pytest.mark.parametrize("reply, error", [
    (b"HTTX/1.1 200 OK\r\n\r\n{}", "not an HTTP status line"),
    (b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 65536 + b"\r\n\r\n{}", "HTTP header line longer than 8192 bytes"),
    (b"HTTP/1.1 500 Broken\r\nContent-Length: 0\r\n\r\n", "HTTP 500 Broken"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{\"pocke\r\n7\r\nt\": 17}\r\n0\r\n\r\n", None),
])
def test_http_bad_status_and_header_lines_are_the_frames_error(reply, error):
    got, _ = _http(lambda conn: conn.sendall(reply))
    if error is None:
        assert got == {"pocket": 17}
    else:
        assert error in got["error"], got


def _label(faces, flat=(True, True, True)):
    dice = [{"die": i + 1, "face": f, "flat": fl, "tilt_deg": 0.0 if fl else 30.0, "holder": None if fl else "wall",
             "box_px": [100 * i, 0, 40, 40], "visible_share": 1.0} for i, (f, fl) in enumerate(zip(faces, flat))]
    return {"image": f"{''.join(map(str, faces))}.png", "truth": {"game": "dice", "faces": list(faces),
                                                                 "no_roll": not all(flat), "dice": dice}}


def _read(faces, flat=(True, True, True), **more):
    return {"dice": [{"face": f, "flat": fl, "centre_px": [100 * i + 20, 20]}
                     for i, (f, fl) in enumerate(zip(faces, flat))], **more}


def test_recognize_counts_rolls_called_a_no_roll_and_rolls_settled_wrong():
    score = Score("tower")
    score.add(_label((1, 2, 3)), _read((1, 2, 3)))                      # right
    score.add(_label((1, 2, 3)), _read((1, 1, 1)))                      # settled wrong (the 1-2-3 as 1-1-1)
    score.add(_label((4, 1, 4)), _read((4, 1, 4), no_roll=True))        # a roll called a no roll (its own no_roll)
    score.add(_label((4, 1, 4)), _read((4, 1, 4), (True, False, True)))     # a roll called a no roll (a die cocked)
    score.add(_label((5, 5, 6)), {"error": "no reply"})                 # unread
    score.add(_label((2, 2, 6), (True, False, True)), _read((2, 2, 6), (True, False, True)))   # a no roll: not a roll
    s = score.to_json()
    assert (s["roll_frames"], s["roll_frames_called_no_roll"], s["rolls_settled_wrong"], s["roll_frames_unread"]) \
        == (5, 2, 1, 1)


def test_recognize_lists_the_shipped_recognisers():
    done = subprocess.run([sys.executable, "-m", "bench.cli", "recognize", "--list"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    names = [line.split(":")[0] for line in done.stdout.splitlines()]
    assert names == ["reference", "learned"]
    assert "bench.vision.reference" in done.stdout


def test_recognize_needs_no_twin_extra_to_read_labels(tmp_path):
    """Labels and a command recogniser, with PyBullet unimportable (the base install)."""
    folder = tmp_path / "frames"
    folder.mkdir()
    (folder / "calibration.json").write_text(json.dumps({"scene": "tower"}))
    for faces in ((1, 2, 3), (6, 6, 6)):
        label = {**_label(faces), "moment": "rest", "seed": faces[0]}
        (folder / label["image"]).write_bytes(b"not really a png")
        (folder / label["image"].replace(".png", ".json")).write_text(json.dumps(label))
    cmd = _script(tmp_path, "r.py", f"""
        import json
        print(json.dumps({_read((1, 2, 3))!r}))
    """)
    code = ("import sys; sys.modules['pybullet'] = None; from bench.cli import main; "
            f"sys.exit(main(['recognize', {str(folder)!r}, '--recognizer', {cmd!r}, '--json']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    scores = json.loads(done.stdout.splitlines()[0])
    assert scores["roll_frames"] == 2 and scores["rolls_settled_wrong"] == 1
