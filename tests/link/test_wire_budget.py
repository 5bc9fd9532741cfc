"""A flooded link costs bounded memory and journal: noise is kept up to a
budget and counted past it; past a ceiling the round is a link fault; an
over-long line is reported as too long."""

import json

import pytest

from bench.journal.chain import JournalWriter
from bench.protocol import FrameEvent, Message
from bench.protocol.codec import Codec, StreamDecoder
from bench.journal.recorder import Recorder
from bench.journal.wire_budget import CEILING_BYTES, KEPT_BYTES, KEPT_FRAMES, LinkFlooded


class Oracle:
    def observe(self, direction, message, mono):
        return []


def junk(n: int) -> FrameEvent:
    return FrameEvent("rx", "rejected", b"JUNK " + b"x" * 195, None, f"garbage: line {n}", 1.0, 2.0)


def message(seq: int) -> FrameEvent:
    return FrameEvent("rx", "message", b"$0001 NOMORE round=1*00\r\n", Message("NOMORE", {"round": 1}, seq),
                      None, 1.0, 2.0)


def test_a_round_of_junk_keeps_a_bounded_sample_and_counts_the_rest(tmp_path):
    with JournalWriter(tmp_path / "j.jsonl") as journal:
        recorder = Recorder(journal, Oracle())
        for n in range(20_000):
            recorder.on_frame(junk(n))
            if n == 10_000:
                recorder.on_frame(message(1))       # a message amid the flood is always kept
        recorder.on_round_end(1, None)
    record = json.loads((tmp_path / "j.jsonl").read_text())
    kept = [row for row in record["wire"] if row[1] == "rejected"]
    assert 0 < len(kept) <= KEPT_FRAMES and sum(len(row[5]) for row in kept) <= KEPT_BYTES
    assert any(row[1] == "message" for row in record["wire"])
    assert record["left_out"]["frames"] == 20_000 - len(kept)
    assert record["left_out"]["bytes"] == 200 * (20_000 - len(kept))
    assert (tmp_path / "j.jsonl").stat().st_size < 3 * KEPT_BYTES


def test_past_the_ceiling_the_round_is_a_link_fault(tmp_path):
    with JournalWriter(tmp_path / "j.jsonl") as journal:
        recorder = Recorder(journal, Oracle())
        with pytest.raises(LinkFlooded, match="link flooded"):
            for n in range(CEILING_BYTES // 200 + 10):
                recorder.on_frame(junk(n))
        recorder.on_round_end(1, "flooded")
        for n in range(100):              # the next round starts afresh
            recorder.on_frame(junk(n))


def decoder():
    return StreamDecoder(Codec("lightning-dice"), sender="controller", byte_timeout=0.1, frame_timeout=1.0)


@pytest.mark.parametrize("ending", ["silence", "new-frame"])
def test_an_over_long_line_is_reported_as_too_long(ending):
    d = decoder()
    items = d.feed(b"$" + b"9" * 50_000, 0.0)
    items += d.expire(0.5) if ending == "silence" else d.feed(b"$", 0.01)
    assert [item.reason for item in items] == ["too-long"]
    assert len(items[0].raw) <= 256


@pytest.mark.parametrize("megabytes", [1, 50])
def test_bytes_with_neither_a_frame_start_nor_a_line_end_are_counted(tmp_path, megabytes):
    """A controller that sends only bytes that are neither '$' nor a line end:
    the journal keeps a sample and counts every byte (``left_out``), and past
    the ceiling the round is a link fault, as for any other noise."""
    import socket
    import threading
    from bench.protocol import BENCH, ResponseTimeout, Session, Timeouts
    from bench.protocol.link import Link
    ours, theirs = socket.socketpair()
    sent = megabytes * 1024 * 1024

    def flood():
        chunk = b"x" * 65536
        try:
            for _ in range(sent // len(chunk)):
                theirs.sendall(chunk)
        except OSError:
            pass                  # the bench stopped reading (a flooded link) and closed its end
    flooding = threading.Thread(target=flood, daemon=True)
    flooding.start()
    with JournalWriter(tmp_path / "j.jsonl") as journal:
        recorder = Recorder(journal, Oracle())
        session = Session(Link.from_socket(ours, "socketpair"), "lightning-dice", role=BENCH,
                          timeouts=Timeouts(byte=0.05, frame=0.5, response=0.25, retries=2),
                          observer=recorder.on_frame)
        flooded = False
        try:
            session.receive(2.0 if megabytes < 10 else 30.0)
        except LinkFlooded:
            flooded = True
        except ResponseTimeout:
            pass
        recorder.on_round_end(1, "flooded" if flooded else None)
    ours.close()
    flooding.join(timeout=30)
    theirs.close()
    record = json.loads((tmp_path / "j.jsonl").read_text())
    kept = sum(len(row[5]) for row in record["wire"] if row[1] == "rejected")
    counted = kept + record.get("left_out", {}).get("bytes", 0)
    assert flooded == (sent > CEILING_BYTES)
    assert counted == session.stats["rx_bytes"], (kept, record.get("left_out"))   # every byte taken in
    if flooded:
        assert CEILING_BYTES * 0.9 < counted <= sent
    else:
        assert counted == sent
    assert (tmp_path / "j.jsonl").stat().st_size < 3 * KEPT_BYTES
