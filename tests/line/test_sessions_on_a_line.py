"""Sessions over a serial line (bench.emulator.line) as a QA engineer meets
one: a line with a speed, and a device that goes away in the middle of a
session. Each runs ``bench run`` as a user would, in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from bench.emulator.line import SerialLine
from bench.emulator.process import emulator_process
from tests.json_schemas import json_record

REALTIME = ("--realtime", "--phase", "betting=0.4", "--phase", "lucky=0.1", "--phase", "result=0.3",
            "--phase", "clear=0.3")


def bench(*args, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.cli", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def test_at_9600_baud_covering_play_is_sized_to_the_line_and_the_round_passes(tmp_path):
    """Lightning Roulette covers the layout with 108 wagers a round: at 9,600
    baud the bench keeps fewer in flight (the ACKs it owes would queue behind
    them past the response timeout: the link gave up) and places as many as
    the phases carry; the emulated controller is behind a 9,600-baud line."""
    run = bench("run", "--game", "lightning-roulette", "--baud", "9600", "--rounds", "1", "--plant", "dice",
                "--no-probes", "--out", "S", "--json", "--no-progress", cwd=tmp_path)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    summary = json_record(run.stdout, "run", "summary")
    line = summary["line"]
    assert line["baud"] == 9600 and line["window"] < 16
    assert 0 < line["wagers_per_round"] < line["wagers_wanted"] == 108
    assert summary["rounds"] == 1 and summary["violations_by_clause"] == {}
    wire = [json.loads(r) for r in (tmp_path / "S" / "session.jsonl").read_text().splitlines()]
    kinds = [frame[1] for record in wire for frame in record.get("wire") or ()]
    # Before the budget the link collapsed: the whole window sent again and again until given up. A
    # loaded machine may still delay a reply past the response timeout now and then.
    assert kinds.count("send") > line["wagers_per_round"] and kinds.count("retransmit") < kinds.count("send") / 4


def test_a_line_too_slow_is_refused_at_once_in_one_line(tmp_path):
    run = bench("run", "--game", "lightning-roulette", "--baud", "2400", "--rounds", "1", "--out", "S",
                cwd=tmp_path, timeout=60)
    assert run.returncode == 2 and run.stderr.count("\n") == 1
    assert "line budget: at 2400 baud" in run.stderr and "bench docs protocol 17" in run.stderr
    assert not (tmp_path / "S").exists()


def played_rounds(journal: Path) -> int:
    try:
        return sum(1 for line in journal.read_text().splitlines() if '"kind":"round"' in line.replace(" ", ""))
    except OSError:
        return 0


def session_on_a_line(tmp_path: Path, *extra: str, replug_after_s: float | None):
    """bench run over a line whose device is unplugged after the first round."""
    out = tmp_path / "S"
    with SerialLine(tmp_path / "ttyUSB0", baud=115200) as line:
        with emulator_process(["--game", "lightning-dice", "--seed", "7"], listen=line.controller_path):
            proc = subprocess.Popen([sys.executable, "-m", "bench.cli", "run", "--controller", str(line.device),
                                     "--rounds", "6", "--plant", "dice", *REALTIME, "--out", str(out),
                                     "--no-progress", *extra], cwd=tmp_path, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            deadline = time.monotonic() + 60
            while played_rounds(out / "session.jsonl") < 1 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            line.unplug()
            before = played_rounds(out / "session.jsonl")      # the rounds journalled by the time it went away
            if replug_after_s is not None:
                time.sleep(replug_after_s)
                line.replug()
            stdout, stderr = proc.communicate(timeout=120)    # the hang guard
            return proc.returncode, before, stdout, stderr, out


def test_a_device_that_goes_away_ends_the_session_link_lost_with_every_file(tmp_path):
    status, before, stdout, stderr, out = session_on_a_line(tmp_path, replug_after_s=None)
    assert status == 3, stdout[-2000:] + stderr[-2000:]
    assert "link-lost" in stderr and "closed by the other end" in stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ending"] == "link-lost" and summary["status"] == 3
    # docs/bench-run.md: the bench notices at its next read or write; it ends in the round it was
    # playing when the device went away (journalled, at most, as that round), not rounds or timeouts later.
    assert before >= 1 and played_rounds(out / "session.jsonl") <= before + 1 and summary["rounds"] < 6
    for name in ("session.jsonl", "session.head", "junit.xml", "report.html"):
        assert (out / name).stat().st_size > 0
    replay = bench("replay", out / "session.jsonl", "--head", (out / "session.head").read_text().strip(),
                   cwd=tmp_path)
    assert replay.returncode == 3 and "hash chain" in replay.stdout and "intact" in replay.stdout


def test_with_reconnect_the_device_that_comes_back_is_greeted_again_and_play_goes_on(tmp_path):
    status, _, stdout, stderr, out = session_on_a_line(tmp_path, "--reconnect", "15", replug_after_s=1.0)
    summary = json.loads((out / "summary.json").read_text())
    # The round in flight is void (a failed round: exit status 1); every other round is played and judged.
    assert status == 1 and summary["ending"] == "failed-rounds", stdout[-2000:] + stderr[-2000:]
    assert summary["violations_by_clause"] == {}
    [(void_round, why)] = summary["failed_rounds"].items()
    assert "void: the link was lost" in why and "came back after" in why
    assert summary["rounds"] == 5
    records = [json.loads(r) for r in (out / "session.jsonl").read_text().splitlines()]
    voided = [r for r in records if r.get("kind") == "round" and r.get("reconnected")]
    assert [r["round"] for r in voided] == [int(void_round)] and voided[0]["void"] is True
    hellos = [f for r in records for f in r.get("wire") or () if f[1] == "send" and " HELLO " in f[5]]
    assert len(hellos) == 2                   # the session's, and the one over the new link
