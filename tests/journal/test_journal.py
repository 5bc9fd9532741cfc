"""The journal proves what happened: any changed byte, removed or reordered
record is found and named; a crash loses at most the round in flight."""

import json

import pytest

from bench.journal.chain import (JournalError, JournalWriter, raw_bytes, raw_text,
                           verify_journal)


def write_session(path, rounds=3, frames_per_round=4):
    with JournalWriter(path) as journal:
        journal.append("session", schema=1, seeds={"lucky": 7})
        for round_no in range(1, rounds + 1):
            for i in range(frames_per_round):
                journal.append("frame", round=round_no, dir="rx" if i % 2 else "tx",
                               raw=raw_text(b"$12|BET|w%d\xff\r\n" % i))
            journal.append("round-end", round=round_no)
            journal.sync()
    return path


def lines_of(path):
    return path.read_bytes().splitlines(keepends=True)


def test_untouched_journal_verifies_and_keeps_raw_bytes(tmp_path):
    path = write_session(tmp_path / "s.jsonl")
    report = verify_journal(path)
    assert report.ok, report.problems
    assert report.records == 1 + 3 * 5
    assert report.incomplete_rounds == []
    frame = json.loads(lines_of(path)[1])
    assert raw_bytes(frame["raw"]) == b"$12|BET|w0\xff\r\n"


@pytest.mark.parametrize("line_index", [0, 5, 15])
def test_one_changed_byte_is_found_and_named(tmp_path, line_index):
    path = write_session(tmp_path / "s.jsonl")
    lines = lines_of(path)
    target = bytearray(lines[line_index])
    at = target.index(b'"kind"') + 8           # a byte inside the value of "kind"
    target[at] = ord("X") if target[at] != ord("X") else ord("Y")
    lines[line_index] = bytes(target)
    path.write_bytes(b"".join(lines))
    report = verify_journal(path)
    assert not report.ok
    assert report.problems[0].line == line_index + 1


def test_removed_line_is_found_at_the_record_after_it(tmp_path):
    path = write_session(tmp_path / "s.jsonl")
    lines = lines_of(path)
    del lines[4]
    path.write_bytes(b"".join(lines))
    report = verify_journal(path)
    assert not report.ok
    assert report.problems[0].line == 5
    assert "removed" in report.problems[0].what


def test_swapped_records_are_found(tmp_path):
    path = write_session(tmp_path / "s.jsonl")
    lines = lines_of(path)
    lines[2], lines[3] = lines[3], lines[2]
    path.write_bytes(b"".join(lines))
    assert {p.line for p in verify_journal(path).problems} >= {3}


def test_recomputed_chain_is_caught_by_the_anchored_head(tmp_path):
    path = write_session(tmp_path / "s.jsonl")
    honest_head = verify_journal(path).head
    # A forger rewrites round 3's last frame and recomputes every hash after it.
    lines = lines_of(path)
    forged = tmp_path / "forged.jsonl"
    with JournalWriter(forged) as journal:
        for line in lines[:-2]:
            record = json.loads(line)
            data = {k: v for k, v in record.items() if k not in ("kind", "seq", "prev", "hash")}
            journal.append(record["kind"], **data)
        journal.append("frame", round=3, dir="rx", raw="forged")
        journal.append("round-end", round=3)
        journal.sync()
    assert verify_journal(forged).ok
    assert not verify_journal(forged, expected_head=honest_head).ok


def test_crash_mid_write_loses_only_the_round_in_flight(tmp_path):
    path = write_session(tmp_path / "s.jsonl", rounds=2)
    with JournalWriter(path) as journal:
        journal.append("frame", round=3, dir="tx", raw="BET")
        journal.sync()
    with open(path, "ab") as handle:            # the process dies mid-line
        handle.write(b'{"kind":"frame","prev":"ab')
    report = verify_journal(path)
    assert report.ok
    assert report.torn_tail
    assert report.incomplete_rounds == [3]
    assert report.records == 1 + 2 * 5 + 1


def test_writer_continues_a_good_journal_and_refuses_a_torn_one(tmp_path):
    path = write_session(tmp_path / "s.jsonl", rounds=1)
    with JournalWriter(path) as journal:
        journal.append("frame", round=2, dir="tx", raw="x")
        journal.append("round-end", round=2)
        journal.sync()
    assert verify_journal(path).ok
    size = path.stat().st_size
    with open(path, "ab") as handle:
        handle.write(b'{"kind":')
    with pytest.raises(JournalError):
        JournalWriter(path)
    assert path.stat().st_size == size + len(b'{"kind":')   # nothing recorded was lost


def write_rounds(path, rounds=3):
    """A schema-2 journal: one record a round, every frame in its wire."""
    with JournalWriter(path) as journal:
        journal.append("session", schema=2)
        for round_no in range(1, rounds + 1):
            wire = [["tx", "send", 1.0 + i, 2.0 + i, 0.0, raw_text(b"$0001 OPEN round=%d*ABCD\r\n" % round_no),
                     {"type": "OPEN", "seq": 1, "round": round_no}, None] for i in range(3)]
            journal.write_round(round_no, wire=wire, plants=[{"round": round_no, "seed": 7, "detail": {}}],
                                verdicts=[])
        journal.append("session-end", wire=[], plants=[], verdicts=[])
    return path


def test_round_records_verify_and_a_finished_session_says_so(tmp_path):
    report = verify_journal(write_rounds(tmp_path / "s.jsonl"))
    assert report.ok and report.ended
    assert report.records == 1 + 3 + 1 and report.incomplete_rounds == []


def test_a_round_record_torn_by_a_crash_names_its_round(tmp_path):
    path = write_rounds(tmp_path / "s.jsonl")
    lines = lines_of(path)
    cut = lines[3].index(b'"wire"') + 20                       # round 3's record, cut early in its frames
    path.write_bytes(b"".join(lines[:3]) + lines[3][:cut])
    report = verify_journal(path)
    assert report.ok and report.torn_tail and not report.ended
    assert report.incomplete_rounds == [3]
    assert report.records == 3


def test_a_changed_frame_inside_a_round_record_names_its_line(tmp_path):
    path = write_rounds(tmp_path / "s.jsonl")
    lines = lines_of(path)
    lines[2] = lines[2].replace(b"round=2", b"round=9", 1)
    path.write_bytes(b"".join(lines))
    report = verify_journal(path)
    assert [p.line for p in report.problems] == [3]


def test_a_deferred_fsync_is_done_before_the_next_record_or_when_asked(tmp_path, monkeypatch):
    import os
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    with JournalWriter(tmp_path / "s.jsonl", defer_fsync=True) as journal:
        journal.append("session", schema=2)
        journal.write_round(1, wire=[], plants=[], verdicts=[])
        assert synced == []                       # handed to the OS, its fsync left for later
        assert verify_journal(tmp_path / "s.jsonl").records == 2
        journal.fsync_deferred()
        assert len(synced) == 1
        journal.fsync_deferred()
        assert len(synced) == 1                   # nothing left to do
        journal.write_round(2, wire=[], plants=[], verdicts=[])
        journal.write_round(3, wire=[], plants=[], verdicts=[])
        assert len(synced) == 2                   # round 2's, before round 3's record
    assert len(synced) == 3                       # close: round 3's


def test_a_power_cut_anywhere_in_a_round_record_names_the_round(tmp_path):
    """A power cut keeps any prefix of the round being written: cut at 100
    seeded offsets and at every early one, replay names the round each time:
    by its number once the record has shown it (a few dozen bytes in), else
    as the round after the one before it."""
    import random
    from bench.journal.replay import replay
    from bench.journal.replay_text import describe
    from bench.session.runner import SessionConfig, run_session
    outcome = run_session(SessionConfig(rounds=3, seed=5, out=str(tmp_path / "s"), progress=False, probes=False))
    lines = lines_of(outcome.journal)
    at = next(i for i, line in enumerate(lines) if b'"kind":"round"' in line and json.loads(line)["round"] == 3)
    record = lines[at]
    rng = random.Random(26)
    cuts = sorted(set(range(1, 130)) | {rng.randrange(1, len(record) - 1) for _ in range(100)})
    unnamed = []
    for cut in cuts:
        path = tmp_path / "cut.jsonl"
        path.write_bytes(b"".join(lines[:at]) + record[:cut])
        replayed = replay(path)
        told = describe(replayed)
        if replayed.chain.incomplete_rounds == [3]:
            assert "incomplete rounds: 3" in told
        elif "the round after round 2" not in told:
            unnamed.append(cut)
    assert not unnamed, f"cuts at these bytes of a {len(record)}-byte record name no round: {unnamed[:20]}"
    named_by_number = [cut for cut in cuts if cut >= 100]
    for cut in named_by_number[:3] + named_by_number[-3:]:
        path.write_bytes(b"".join(lines[:at]) + record[:cut])
        assert verify_journal(path).incomplete_rounds == [3], cut


def test_sigterm_just_after_a_record_reaches_the_file_leaves_a_chain_the_next_record_continues(tmp_path,
                                                                                                monkeypatch):
    """A fresh clone's suite once stopped a session with SIGTERM in the instant
    after a round's line was written and before the writer moved its chain
    on: the session-end record chained to the record before, and the journal
    the bench wrote did not verify."""
    import signal

    from tablebench_io.commandline import terminate_as_interrupt
    path = tmp_path / "s.jsonl"
    write = JournalWriter._write

    def written_then_terminated(self, line):
        write(self, line)
        signal.raise_signal(signal.SIGTERM)     # its handler runs before the next line of Python
    with terminate_as_interrupt(), JournalWriter(path) as journal:
        journal.append("session", schema=2)
        monkeypatch.setattr(JournalWriter, "_write", written_then_terminated)
        with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
            journal.append("round", round=1, wire=[], plants=[], verdicts=[])
        monkeypatch.setattr(JournalWriter, "_write", write)
        journal.append("session-end", ending="interrupted")
    report = verify_journal(path)
    assert report.ok, [p.what for p in report.problems]
    assert report.records == 3
