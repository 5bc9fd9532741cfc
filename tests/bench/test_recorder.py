"""The recorder keeps every frame until its round's record is written: an
interruption or a failed write loses nothing and writes nothing twice."""

from __future__ import annotations

import json
import math
import os
import signal

import pytest

from bench.journal.chain import JournalWriter, verify_journal
from bench.play.plant import Reading
from bench.protocol import FrameEvent, make
from bench.journal.recorder import Recorder


class Oracle:
    """Judges nothing; can be told to fail on the n-th frame it sees."""

    def __init__(self, fail_at=None):
        self.seen, self.fail_at = 0, fail_at

    def observe(self, direction, message, mono):
        self.seen += 1
        if self.seen == self.fail_at:
            raise KeyboardInterrupt
        return []


def frames(recorder, count):
    for i in range(count):
        message = make("WAGER", round=1, id=f"w{i}", bet="low", stake=10)
        recorder.on_frame(FrameEvent("tx", "send", b"$000%d WAGER ...\r\n" % i, message, None, float(i), 100.0 + i))


def records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_frame_the_oracle_chokes_on_is_still_journalled_with_all_after_it(tmp_path):
    path = tmp_path / "s.jsonl"
    with JournalWriter(path) as journal:
        recorder = Recorder(journal, Oracle(fail_at=3))
        frames(recorder, 5)
        with pytest.raises(KeyboardInterrupt):
            recorder.catch_up()
        recorder.on_round_end(1, "interrupted", judge=False)
    (record,) = records(path)
    assert [row[6]["id"] for row in record["wire"]] == ["w0", "w1", "w2", "w3", "w4"]


class SignalledOracle:
    """Gets SIGTERM half way through its handling of the third frame, as a
    service manager's may come at any moment."""

    def __init__(self):
        self.taken_in = []

    def observe(self, direction, message, mono):
        if message["id"] == "w2":
            os.kill(os.getpid(), signal.SIGTERM)
            sum(range(10_000))                 # bytecode after the signal: where its handler would run
        self.taken_in.append(message["id"])
        return []


def test_sigterm_while_the_oracle_takes_in_a_frame_waits_for_the_batch_to_be_judged(tmp_path):
    # A SIGTERM raised inside the oracle's handling of a RESULT tore its state:
    # the round's SETTLEs then read as settled before the outcome (false
    # 625b.2(d)(6) violations the replay of the same journal did not find).
    from tablebench_io.commandline import terminate_as_interrupt
    path = tmp_path / "s.jsonl"
    oracle = SignalledOracle()
    with JournalWriter(path) as journal, terminate_as_interrupt():
        recorder = Recorder(journal, oracle)
        frames(recorder, 5)
        with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
            recorder.catch_up()
        assert oracle.taken_in == ["w0", "w1", "w2", "w3", "w4"]     # every frame judged whole
        recorder.on_round_end(1, "interrupted", judge=False)
    (record,) = records(path)
    assert [row[6]["id"] for row in record["wire"]] == ["w0", "w1", "w2", "w3", "w4"]


def test_a_record_that_failed_to_be_written_is_kept_and_written_once(tmp_path, monkeypatch):
    path = tmp_path / "s.jsonl"
    with JournalWriter(path) as journal:
        recorder = Recorder(journal, Oracle())
        frames(recorder, 2)
        real_write_round = journal.write_round

        def full_disk(*args, **kwargs):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(journal, "write_round", full_disk)
        with pytest.raises(OSError):
            recorder.on_round_end(1, None)
        assert recorder.unwritten                  # nothing recorded was dropped
        monkeypatch.setattr(journal, "write_round", real_write_round)
        frames(recorder, 1)
        recorder.on_round_end(1, None)
        assert not recorder.unwritten
    (record,) = records(path)
    assert [row[6]["id"] for row in record["wire"]] == ["w0", "w1", "w0"]
    assert verify_journal(path).ok


def test_a_record_in_the_journal_is_not_written_again_when_its_fsync_fails(tmp_path, monkeypatch):
    import os
    path = tmp_path / "s.jsonl"
    with JournalWriter(path) as journal:
        recorder = Recorder(journal, Oracle())
        frames(recorder, 2)
        monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "I/O error")))
        with pytest.raises(OSError):
            recorder.on_round_end(1, None)
        monkeypatch.undo()
        assert not recorder.unwritten
    assert len(records(path)) == 1


def test_a_plant_reading_that_is_not_a_number_is_kept_as_such(tmp_path):
    path = tmp_path / "s.jsonl"
    with JournalWriter(path) as journal:
        recorder = Recorder(journal, Oracle())
        recorder.on_plant(1, 0, Reading(dice=(1, 2, 3), flat=(True, True, True), seed=5, duration_s=math.inf,
                                        detail={"tilt_deg": [0.1, math.nan], "speed": -math.inf}))
        recorder.on_round_end(1, None)
    (plant,) = records(path)[0]["plants"]
    assert plant["duration_s"] == "inf" and plant["detail"] == {"tilt_deg": [0.1, "nan"], "speed": "-inf"}
