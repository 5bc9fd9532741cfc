"""A relaying monitor's own troubles are never the table's (issue 45: a full
disk under a relaying monitor ended it with exit 2, no session end and no
head, and dropped the link, the bench run it relayed ending exit 3; at full
link speed the relay fell behind and what it had not judged was lost without
a trace). A ``bench run`` goes through the relay to the emulated controller
while the monitor's disk fills, its judge fails, or its judge is slower than
the link: the run plays every round; the monitor says what happened, ends
with its own status and, where it can, its session-end record and head; and
every byte the link carried is judged, or counted as not judged."""

from __future__ import annotations

import errno
import json
import os
import queue
import threading
import time

import pytest

import bench.monitor.hourly as hourly_module
import bench.monitor.series as series_module
import bench.monitor.watch as watch_module
from bench.adapters.native import Native
from bench.cli import main
from bench.emulator.process import emulator_process
from bench.journal.chain import JournalWriter
from bench.journal.recorder import adapter_fields, session_header
from bench.journal.replay import replay
from bench.monitor.hourly import Hourly
from bench.monitor.series import Series
from bench.monitor.sources import CONTROLLER, HOST, Handover, Relay
from bench.monitor.watch import Watch
from bench.oracle import Oracle
from bench.rules.submission import default_rules
from bench.session.out_folder import Reserve
from bench.session.runner import SessionConfig, run_session
from tests.monitor.conftest import bytes_each_way, records

GAME = "lightning-dice"
ROUNDS = 12


def no_space(path="") -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))


class FullDisk:
    """The disk under ``folder`` fills once its journals pass ``after``
    bytes; it has room again only once the monitor's reserve is let go."""

    def __init__(self, monkeypatch, folder, after: int):
        self.folder, self.after, self.full, self.room = folder, after, False, False
        write, release = JournalWriter._write, Reserve.release
        disk = self

        def journal_write(writer, line):
            if writer.path.parent == disk.folder and not disk.room:
                if disk.full or writer.size + len(line) > disk.after:
                    disk.full = True
                    raise no_space(writer.path)
            write(writer, line)

        def let_go(reserve):
            if reserve.path is not None and reserve.path.parent == disk.folder and disk.full:
                disk.room = True
            release(reserve)

        def guarded(original):
            def write_file(path, *args, **kwargs):
                if disk.full and not disk.room and os.path.dirname(path) == str(disk.folder):
                    raise no_space(path)
                return original(path, *args, **kwargs)
            return write_file
        monkeypatch.setattr(JournalWriter, "_write", journal_write)
        monkeypatch.setattr(Reserve, "release", let_go)
        monkeypatch.setattr(series_module, "write_durably", guarded(series_module.write_durably))
        if hasattr(hourly_module, "_append_whole"):
            monkeypatch.setattr(hourly_module, "_append_whole", guarded(hourly_module._append_whole))


def relayed_run(monkeypatch, capsys, tmp_path, controller):
    """``bench monitor --relay ... --once`` in this process, and a ``bench
    run`` through it from another thread: (monitor's status, its stdout and
    stderr, the run's outcome)."""
    relays: queue.Queue = queue.Queue()
    start = Relay.start

    def started(relay):
        start(relay)
        relays.put(relay)
    monkeypatch.setattr(Relay, "start", started)
    ran = {}

    def bench_run():
        try:
            address = relays.get(timeout=60).address
            ran["run"] = run_session(SessionConfig(game=GAME, controller=address, rounds=ROUNDS, plant="dice",
                                                   seed=8, out=str(tmp_path / "run"), progress=False))
        except BaseException as err:       # said by the test, not lost in the thread
            ran["error"] = err
    thread = threading.Thread(target=bench_run, daemon=True)
    thread.start()
    status = main(["monitor", "--game", GAME, "--relay", "127.0.0.1:0", "--to", controller, "--once",
                   "--out", str(tmp_path / "m")])
    thread.join(timeout=120)
    captured = capsys.readouterr()
    assert "error" not in ran, ran.get("error")
    return status, captured.out, captured.err, ran["run"]


def test_a_full_disk_under_a_relay_stops_the_judging_not_the_link(monkeypatch, capsys, tmp_path):
    disk = FullDisk(monkeypatch, tmp_path / "m", after=40_000)
    with emulator_process(["--game", GAME, "--seed", "5"], listen="127.0.0.1:0") as controller:
        status, out, err, run = relayed_run(monkeypatch, capsys, tmp_path, controller)
    assert disk.full
    assert (run.status, len(run.oracle.rounds)) == (0, ROUNDS), "the table's link must outlive the monitor's disk"
    assert status == 6 and "Traceback" not in err
    assert "disk-full: the disk holding" in err.strip().splitlines()[-1]
    assert "the relay goes on forwarding" in out
    [journal] = sorted((tmp_path / "m").glob("monitor-*.jsonl"))
    head = journal.with_suffix(".head").read_text().strip()
    again = replay(journal, expected_head=head)
    assert again.intact and (again.ending, again.exit_status) == ("disk-full", 6)
    end = records([journal])[-1]
    assert (end["kind"], end["ending"], end["status"]) == ("session-end", "disk-full", 6)
    assert again.oracle.violations == []           # no verdict for what the judge did not hear


def test_a_crash_in_judging_under_a_relay_stops_the_judging_not_the_link(monkeypatch, capsys, tmp_path):
    class Failing(Oracle):
        def observe(self, direction, message, mono):
            if self.frames == 300:
                raise RuntimeError("a bug of the judge's")
            return super().observe(direction, message, mono)
    monkeypatch.setattr(series_module, "Oracle", Failing)
    with emulator_process(["--game", GAME, "--seed", "5"], listen="127.0.0.1:0") as controller:
        status, out, err, run = relayed_run(monkeypatch, capsys, tmp_path, controller)
    assert (run.status, len(run.oracle.rounds)) == (0, ROUNDS), "the table's link must outlive the monitor's bug"
    assert status == 5 and "Traceback" not in err
    assert "a bug of the judge's" in (tmp_path / "m" / "crash.txt").read_text()
    [journal] = sorted((tmp_path / "m").glob("monitor-*.jsonl"))
    again = replay(journal, expected_head=journal.with_suffix(".head").read_text().strip())
    assert again.intact and (again.ending, again.exit_status) == ("crashed", 5)


class CountingHandover(Handover):
    """The copy's hand-over, counting every byte the relay's threads read."""

    def __init__(self, max_pending: int):
        super().__init__(max_pending)
        self.put = {HOST: 0, CONTROLLER: 0}

    def put_chunk(self, chunk) -> None:
        self.put[chunk.sender] += len(chunk.data)
        super().put_chunk(chunk)


@pytest.mark.parametrize("stop_when", ["after-the-run", "behind"])
def test_a_judge_slower_than_the_link_states_what_it_did_not_judge(monkeypatch, tmp_path, stop_when):
    """The judge made slow (2 ms a frame) and its copy small: the relay drops
    from the copy (never from the link) and says so. Stopped after the run,
    the monitor judges what was still waiting; stopped while it is behind
    (and given no time to catch up), it counts and says what it leaves.
    Every byte the relay read is in the interval reports, judged or not, and
    a gap in the copy is never the controller's violation."""
    if stop_when == "behind":
        monkeypatch.setattr(watch_module, "DRAIN_S", 0.0, raising=False)
    frame = Watch._frame

    def slow(watch, event):
        time.sleep(0.002)
        frame(watch, event)
    monkeypatch.setattr(Watch, "_frame", slow)
    out = tmp_path / "m"
    out.mkdir()
    rules = default_rules(GAME, None)
    header = session_header(game=GAME, rules=rules, controller="relay", emulated=False, misbehave=None,
                            phases={"reply_s": 3.0}, runner="bench monitor", **adapter_fields(Native()))
    series = Series(out, header=header, game=GAME, rules=rules, reply_s=3.0, key=None, seal_every=10,
                    rotate_bytes=32 << 20, rotate_s=86400)
    hourly = Hourly(out / "hourly.jsonl", 3600)
    handover = CountingHandover(16 * 1024)
    ran = threading.Event()

    def stop() -> str | None:
        if stop_when == "behind":
            return "SIGTERM" if sum(handover.dropped.values()) else None
        return "SIGTERM" if ran.is_set() else None
    result = {}
    with emulator_process(["--game", GAME, "--seed", "5"], listen="127.0.0.1:0") as controller:
        relay = Relay("127.0.0.1:0", controller, handover=handover)
        watch = Watch(relay, series, Native(), GAME, hourly, out=out, echo=lambda text: None, stop_requested=stop)
        thread = threading.Thread(target=lambda: result.update(outcome=watch.run()), daemon=True)
        thread.start()
        run = run_session(SessionConfig(game=GAME, controller=relay.address, rounds=ROUNDS, plant="dice", seed=8,
                                        out=str(tmp_path / "run"), progress=False))
        ran.set()
        thread.join(timeout=120)
    outcome = result["outcome"]
    dropped = handover.dropped
    assert sum(dropped.values()) > 0, "the judge must fall behind for this test to mean anything"
    reports = [json.loads(line) for line in (out / "hourly.jsonl").read_text().splitlines()]
    for side in (HOST, CONTROLLER):
        assert sum(r["dropped_bytes"][side] for r in reports) == dropped[side]
        assert sum(r["bytes"][side] + r["dropped_bytes"][side] + r.get("unjudged_bytes", {}).get(side, 0)
                   for r in reports) == handover.put[side]
    assert outcome.faults.get("copy-dropped", 0) >= 1
    if stop_when == "behind":
        assert outcome.faults.get("stopped-behind") == 1
        assert sum(r["unjudged_bytes"][HOST] + r["unjudged_bytes"][CONTROLLER] for r in reports) > 0
    else:
        assert (run.status, len(run.oracle.rounds)) == (0, ROUNDS)
        said = bytes_each_way([run.journal])
        # (the controller opens the next round as the bench hangs up: the relay may carry that OPEN too)
        assert 0 <= handover.put[HOST] - len(said["tx"]) <= 64 and 0 <= handover.put[CONTROLLER] - len(said["rx"]) <= 64
    for path, head in outcome.journals:
        again = replay(path, expected_head=head)
        assert again.intact and again.oracle.violations == [], path
    assert outcome.violations == {}
