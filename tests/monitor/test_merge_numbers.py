"""The causal merge's memory of message numbers (bench.monitor.merge): what
it remembers, for how long, and when a number stops meaning the message it
meant. Frames handed straight to ``CausalMerge``, on a made-up clock.

Found in review of the change that let it remember 4,096 numbers a side
instead of 64: a bench that restarts greets again from 0000 without a
RESET, and the previous session's numbers let the controller's ACK of the
new 0001 pass before 0001 itself; a run of 108 lost messages was named by an
``Unheard`` of only the last 64; and a number declared unheard that came
round again after a wrap was taken for the old message, late by the wrap's
whole time."""

from __future__ import annotations

from bench.adapters.tap import unheard
from bench.monitor.merge import CausalMerge
from bench.protocol import FrameEvent
from bench.protocol.messages import Message


def frame(direction: str, kind: str, type_: str, seq: int, mono: float) -> FrameEvent:
    return FrameEvent(direction, kind, b"", Message(type_, {}, seq), None, mono, mono, 0)


def sent(seq, mono, type_="WAGER"):
    return frame("tx", "send", type_, seq, mono)


def acked_by_controller(seq, mono):
    return frame("rx", "ack", "ACK", seq, mono)


def released(merge, events, now):
    for event in events:
        merge.add(event)
    return [(e.direction, e.kind, e.message.type if e.message else None, e.message.seq if e.message else None)
            for e in merge.release(now)]


def test_after_a_bench_greets_again_the_ack_of_its_new_message_waits_for_it():
    merge = CausalMerge(modulus=10000)
    t = 0.0
    for seq in range(1, 301):                      # a first session: 300 messages, each acknowledged
        released(merge, [sent(seq, t), acked_by_controller(seq, t + 0.001)], t + 0.002)
        t += 0.01
    released(merge, [sent(0, t, "HELLO"), acked_by_controller(0, t + 0.001)], t + 0.002)
    # The new session's message 0001: the controller's line delivers its ACK (and what the
    # controller sent after it) before the host's line delivers the message.
    t += 0.5
    out = released(merge, [acked_by_controller(1, t), frame("rx", "message", "RELEASE", 7, t + 0.001)], t + 0.01)
    assert out == [], "the ACK of the new 0001 passed before 0001: the old session's 0001 stood for it"
    out = released(merge, [sent(1, t + 0.02)], t + 0.03)
    assert out == [("tx", "send", "WAGER", 1), ("rx", "ack", "ACK", 1), ("rx", "message", "RELEASE", 7)]
    assert merge.expired == 0


def test_every_message_of_a_long_lost_run_is_accounted_for_once():
    merge = CausalMerge(modulus=10000)
    released(merge, [sent(1, 0.0), acked_by_controller(1, 0.001)], 0.01)
    lost = list(range(2, 110))                     # 108 messages the tap's copy lost, all taken
    merge.add(unheard("tx", lost, "lost from the copy", 0.02, 0.02))
    out = released(merge, [acked_by_controller(n, 0.03 + n / 1000) for n in lost], 0.2)
    assert len(out) == 1 + len(lost) and merge.expired == 0, "an ACK of a message already accounted waited"


def test_a_number_declared_unheard_that_comes_round_again_is_a_new_message():
    merge = CausalMerge(hold_s=0.5, modulus=1000)
    # The controller acknowledges the host's 0005, which never comes: declared unheard.
    released(merge, [sent(4, 0.0), acked_by_controller(4, 0.001), acked_by_controller(5, 0.01)], 0.02)
    assert released(merge, [], 1.0)[0][1] == "unheard"
    # A full wrap later (1,000 messages, 40 s), a new 0005, then its ACK, in order.
    out = released(merge, [sent(5, 40.0), acked_by_controller(5, 40.001)], 40.01)
    assert [kind for _, kind, _, _ in out] == ["send", "ack"]
    assert merge.offsets == {"tx": 0.0, "rx": 0.0} and merge.late == 0, "the wrap's time was taken as a lag"
