"""``signals_held``: SIGINT and SIGTERM wait while a record and its
bookkeeping are written, then come as if they came at the end; and a
signal that comes while the handlers are being swapped, either way, never
leaves one of them swallowed for good (a review found that a SIGTERM
between the two swaps left Ctrl-C noted by a lambda for the rest of the
process)."""

from __future__ import annotations

import signal

import pytest

import tablebench_io.commandline as commandline
from tablebench_io.commandline import signals_held, terminate_as_interrupt


def test_a_signal_inside_waits_for_the_end_and_comes_then():
    done = []
    with terminate_as_interrupt():
        with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
            with signals_held():
                signal.raise_signal(signal.SIGTERM)
                done.append("the rest of the record")
    assert done == ["the rest of the record"]


@pytest.mark.parametrize("moment,sent", [("entering", signal.SIGTERM), ("leaving", signal.SIGINT)])
def test_a_signal_while_the_handlers_are_swapped_leaves_both_as_they_were(monkeypatch, moment, sent):
    swap = signal.signal
    calls = []

    def swap_then_terminated(number, handler):
        previous = swap(number, handler)
        calls.append(number)
        # The SIGINT swap done, SIGTERM's not yet (entering: the 1st call), or one handler
        # put back and the other not yet (leaving: the 3rd); the signal goes to a real handler.
        if len(calls) == (1 if moment == "entering" else 3):
            signal.raise_signal(sent)
        return previous
    before = {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)}
    with terminate_as_interrupt():
        terminating = signal.getsignal(signal.SIGTERM)
        monkeypatch.setattr(commandline.signal, "signal", swap_then_terminated)
        try:
            with pytest.raises(KeyboardInterrupt):
                with signals_held():
                    pass
        finally:
            monkeypatch.setattr(commandline.signal, "signal", swap)
        assert signal.getsignal(signal.SIGINT) is before[signal.SIGINT]
        assert signal.getsignal(signal.SIGTERM) is terminating
    assert signal.getsignal(signal.SIGTERM) is before[signal.SIGTERM]


def test_a_section_inside_another_holds_until_the_outer_one_ends():
    done = []
    with terminate_as_interrupt():
        with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
            with signals_held():
                with signals_held():
                    signal.raise_signal(signal.SIGTERM)
                done.append("the outer section's rest")
    assert done == ["the outer section's rest"]
