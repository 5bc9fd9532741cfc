"""Version 2, after a LinkTimeout (docs/protocol.md, section 9, "Go-back-N"):
the messages given up keep their spent numbers, so the peer, still waiting
for the first of them, NAKs the next message as out of order. The sender
then numbers what is outstanding again from the number the peer waits for,
so the link recovers instead of stalling: the later messages arrive once
each and in order, and the given-up ones are simply lost."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from bench.protocol.link import Link
from bench.protocol import BENCH, CONTROLLER, Codec, LinkTimeout, Session, Timeouts, make

GAME = "lightning-dice"
TIMEOUTS = Timeouts(byte=0.05, frame=0.2, response=0.1, retries=2)


class Filter:
    """A port that loses the frames ``drop(frame)`` picks, splitting coalesced
    writes at their line ends (a line cut, or a lossy one)."""

    def __init__(self, port):
        self.port, self.drop = port, (lambda frame: False)

    def read_some(self, timeout):
        return self.port.read_some(timeout)

    def write(self, data):
        kept = b"".join(f for f in data.splitlines(keepends=True) if not self.drop(f))
        if kept:
            self.port.write(kept)


def wager(name: str):
    return make("WAGER", round=1, id=name, bet="low", stake=100)


class Link2:
    """A bench (sender) and a controller (receiver, served by a thread) in
    version 2 on a socket pair, each behind a Filter."""

    def __init__(self):
        a, b = socket.socketpair()
        self.sockets = (a, b)
        self.controller_port, self.bench_port = Filter(Link.from_socket(a, "c")), Filter(Link.from_socket(b, "b"))
        self.events, self.bench_events = [], []
        self.controller = Session(self.controller_port, GAME, role=CONTROLLER, timeouts=TIMEOUTS,
                                  observer=self.events.append)
        self.bench = Session(self.bench_port, GAME, role=BENCH, timeouts=TIMEOUTS, observer=self.bench_events.append)
        self.controller.use_protocol(2, peer_window=16)
        self.bench.use_protocol(2, peer_window=16)
        self.got = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while not self._stop.is_set():
            m = self.controller.poll(0.02)
            if m is not None:
                self.got.append((m["id"], m.seq))

    def close(self):
        self._stop.set()
        self._thread.join(2)
        for s in self.sockets:
            s.close()


@pytest.fixture
def link():
    link = Link2()
    yield link
    link.close()


def give_up(link: Link2, names) -> None:
    """Send ``names`` and let them go unacknowledged until the LinkTimeout
    (after its attempts: how soon on the wall clock is benchmarks/wall_clock_bench.py's)."""
    for name in names:
        link.bench.send(wager(name))
    with pytest.raises(LinkTimeout, match=r"WAGER \(seq \d{4}\) not acknowledged after 3 attempts"):
        link.bench.flush()
    assert link.bench.in_flight == 0


@pytest.mark.parametrize("give_ups", [1, 2])
def test_after_a_link_timeout_the_peers_nak_renumbers_the_later_messages(link, give_ups):
    # The controller has taken w1 (a receiver in version 2 has always taken
    # the HELLO first: with nothing taken yet, any number would do as the first).
    link.bench.send(wager("w1"))
    link.bench.flush(1.0)
    expected = [("w1", 0)]
    link.bench_port.drop = lambda frame: True            # the line goes dead: the controller hears nothing
    give_up(link, ["w2", "w3", "w4"])
    if give_ups == 2:
        give_up(link, ["w5"])                           # still dead: given up too
    link.bench_port.drop = lambda frame: False          # the line is back
    back = len(link.bench_events)
    link.bench.send(wager("w6"))                        # numbered after the given-up ones: the controller NAKs it
    link.bench.send(wager("w7"))
    link.bench.flush(1.0)                               # recovered by the NAK, not by a resend's timeout
    link.bench.send(wager("w8"))                        # and the numbering goes on from there
    link.bench.flush(1.0)
    time.sleep(0.05)

    expected += [("w6", 1), ("w7", 2), ("w8", 3)]
    assert link.got == expected                         # once each, in order, no number skipped
    # Recovered at the NAK: w6 and w7 sent again once, right after it (a resend's timer would
    # have sent them before any NAK came, or once more).
    since = [(e.direction, e.kind, e.message.get("id")) for e in link.bench_events[back:] if e.kind != "ack"]
    assert since == [("tx", "send", "w6"), ("tx", "send", "w7"), ("rx", "nak", None),
                     ("tx", "retransmit", "w6"), ("tx", "retransmit", "w7"), ("tx", "send", "w8")], since
    assert link.bench.stats["renumbered"] == 1 and link.bench.stats["link_timeouts"] == give_ups
    assert link.bench.stats["naks_received"] == 1
    # What the controller recorded: one NAK naming the last message it took
    # (w1), the frames past the gap discarded, never delivered; no duplicate
    # and no sequence gap among what it delivered.
    c = link.controller.stats
    naks = [e for e in link.events if e.kind == "nak"]
    assert [e.message.seq for e in naks] == [0]
    assert naks[0].message["reason"] == "out-of-order"
    assert c["tx_nak"] == 1 and c["out_of_order"] == 2 and c["duplicates"] == 0
    assert c["received"] == len(expected)
    delivered = [e for e in link.events if e.kind == "message"]
    assert [e.message["id"] for e in delivered] == [name for name, _ in expected]
    assert all(e.note is None for e in delivered)


def test_the_peer_had_some_of_the_given_up_messages(link):
    """The controller took w2 but its ACK was lost, and w3, w4 never came:
    its NAK names w2, and the sender numbers from w3's number on."""
    link.bench.send(wager("w1"))
    link.bench.flush(1.0)
    link.bench_port.drop = lambda frame: b"id=w3 " in frame or b"id=w4 " in frame
    link.controller_port.drop = lambda frame: b" ACK*" in frame
    give_up(link, ["w2", "w3", "w4"])
    link.bench_port.drop = link.controller_port.drop = lambda frame: False
    link.bench.send(wager("w5"))
    link.bench.flush(1.0)
    time.sleep(0.05)
    assert link.got == [("w1", 0), ("w2", 1), ("w5", 2)]
    assert link.bench.stats["renumbered"] == 1
    assert [e.message.seq for e in link.events if e.kind == "nak"] == [1]
    assert link.controller.stats["duplicates"] == 2          # w2 resent twice by go-back-N, delivered once


def test_no_renumbering_when_the_peer_had_them_all(link):
    """Only the ACKs were lost: the controller took w2..w4, so the next
    message follows on and nothing is numbered again."""
    link.controller_port.drop = lambda frame: b" ACK*" in frame
    give_up(link, ["w2", "w3", "w4"])
    link.controller_port.drop = lambda frame: False
    link.bench.send(wager("w5"))
    link.bench.flush(1.0)
    time.sleep(0.05)
    assert link.got == [("w2", 0), ("w3", 1), ("w4", 2), ("w5", 3)]
    assert link.bench.stats["renumbered"] == 0 and link.controller.stats["tx_nak"] == 0


def test_a_stale_nak_naming_no_given_up_number_does_not_renumber(link):
    """After the give-up, a NAK that arrives late (it names 9999, from before
    anything was taken) is not the peer waiting for a given-up number: what
    is outstanding keeps its numbers, and the link goes on."""
    link.bench.send(wager("w1"))
    link.bench.flush(1.0)
    link.controller_port.drop = lambda frame: b" ACK*" in frame
    give_up(link, ["w2", "w3", "w4"])                   # the controller took them; only the ACKs were lost
    link.controller_port.drop = lambda frame: False
    link.bench.send(wager("w5"))
    link.sockets[0].sendall(Codec(GAME).encode(make("NAK", reason="bad-crc"), 9999))
    link.bench.flush(1.0)
    time.sleep(0.05)
    assert link.got == [("w1", 0), ("w2", 1), ("w3", 2), ("w4", 3), ("w5", 4)]
    assert link.bench.stats["renumbered"] == 0 and link.bench.stats["naks_received"] == 1


def test_a_late_nak_from_before_the_last_acknowledgement_does_not_renumber(link):
    """Numbers given up that the peer has since shown it took (an ACK of a
    later message) are not waited for any more: a NAK naming them arrives
    late, and only the NAK for the numbers given up since counts."""
    link.bench.send(wager("w1"))
    link.bench.flush(1.0)
    link.controller_port.drop = lambda frame: b" ACK*" in frame
    give_up(link, ["w2", "w3", "w4"])                   # the controller took them (seq 1-3); ACKs lost
    link.controller_port.drop = lambda frame: False
    link.bench.send(wager("w5"))                        # seq 4, taken and acknowledged
    link.bench.flush(1.0)
    link.bench_port.drop = lambda frame: True
    give_up(link, ["w6"])                               # seq 5 given up: the controller waits for 5
    link.bench_port.drop = lambda frame: False
    link.bench.send(wager("w7"))
    link.sockets[0].sendall(Codec(GAME).encode(make("NAK", reason="bad-crc"), 1))   # late, from long ago
    link.bench.flush(1.0)
    time.sleep(0.05)
    assert link.got == [("w1", 0), ("w2", 1), ("w3", 2), ("w4", 3), ("w5", 4), ("w7", 5)]
    assert link.bench.stats["renumbered"] == 1          # once, for the controller's own NAK (naming 4)
