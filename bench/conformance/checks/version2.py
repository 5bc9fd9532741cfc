"""Version 2's window, cumulative ACK, go-back-N and renumbering (section 9)."""

from __future__ import annotations

import time

from bench.conformance.wire import Arrival, seq_of
from bench.protocol.frame import SEQ_MODULUS
from bench.conformance.checks.core import (REPLY_S, SLACK_S, await_message, check, Context, hello_seq, messages,
                                           of_type, require, show, soon)


@check("window", "§9 Version 2 (window)", "the controller never has more messages unacknowledged than the "
       "window of the bench's HELLO (2, or 1 on a line that carries no more)", versions=(2,))
def _window(ctx: Context) -> str:
    w = ctx.wire
    # 2: below what a controller keeps unless told (8 by default, section 9), so one that
    # ignores the bench's window shows; 1 on a line that drains no more in time.
    window = min(2, ctx.window)
    _, opened = ctx.hello(window=window)
    round_, bet = opened["round"], ctx.good_bet()
    frames = b"".join(w.frame("WAGER", round=round_, id=f"w{i}", bet=bet, stake=100) for i in range(5))
    w.write(frames + w.frame("CLOSE", round=round_))
    got = w.collect(soon(ctx) + ctx.line.drain_s(len(frames)))
    fresh = {seq_of(m) for m in messages(got)}
    require(fresh, f"nothing said after 5 WAGERs and CLOSE (got {show(got)})")
    require(len(fresh) <= window, f"{len(fresh)} messages in flight unacknowledged, the bench's window is "
                                  f"{window}: {show([a for a in got if a.message is not None and a.message.type != 'ACK'])}")
    w.ack(max(fresh, key=lambda s: (s - min(fresh)) % SEQ_MODULUS))
    more = w.collect(soon(ctx))
    new = {seq_of(m) for m in messages(more)} - fresh
    require(new and len(new) <= window, f"after the ACK, {len(new)} new messages (expected 1 to {window})")
    w.settle(0.3)
    return f"window {window}: {len(fresh)} then {len(new)} in flight"


def _wagers_in_one_write(ctx: Context, n: int, prefix: str) -> list[Arrival]:
    """Greet with window ``n``, send ``n`` WAGERs in one write (ids
    ``prefix0``...), answer nothing, and return what arrives until ``n``
    messages have come (or the reply deadline)."""
    w = ctx.wire
    _, opened = ctx.hello(window=n)
    round_, bet = opened["round"], ctx.good_bet()
    w.write(b"".join(w.frame("WAGER", round=round_, id=f"{prefix}{i}", bet=bet, stake=100) for i in range(n)))
    ends, got = time.monotonic() + REPLY_S, list[Arrival]()
    while len(messages(got)) < n and time.monotonic() < ends:
        arrival = w.next(0.05)
        if arrival is not None:
            got.append(arrival)
    return got


@check("cumulative-ack", "§9 Version 2 (cumulative ACK)", "one ACK of the last of several messages "
       "acknowledges them all: none is sent again", versions=(2,))
def _cumulative(ctx: Context) -> str:
    w = ctx.wire
    n = ctx.in_flight(4)               # the controller keeps no more in flight than the bench announces
    got = _wagers_in_one_write(ctx, n, "c")
    said = messages(got)
    require(len(said) >= n, f"{n} WAGERs in one write: {len(said)} replies")
    acks = of_type(got, "ACK")
    require(acks and acks[-1].seq == hello_seq(w), f"the controller's ACKs {show(acks)}; the last "
                                                           f"must name {hello_seq(w):04d}")
    require(len(acks) <= n, f"{len(acks)} ACKs for {n} messages")
    w.ack(seq_of(said[n - 1]))
    again = w.collect(ctx.timeouts.response + SLACK_S)
    resent = [a for a in again if a.message is not None and a.seq in {m.seq for m in said[:n]}]
    require(not resent, f"sent again after a cumulative ACK: {show(resent)}")
    return f"{len(acks)} ACK(s) for {n} messages; one ACK for {n} replies"


@check("go-back-n", "§9 Version 2 (go-back-N)", "a NAK L makes the controller send every message after L "
       "again, in order", versions=(2,))
def _go_back(ctx: Context) -> str:
    w = ctx.wire
    n = ctx.in_flight(3)               # the controller keeps no more in flight than the bench announces
    said = messages(_wagers_in_one_write(ctx, n, "g"))
    require(len(said) >= n, f"{n} WAGERs: {len(said)} replies")
    w.nak(seq_of(said[0]), "out-of-order")
    again = w.collect(soon(ctx))
    resent = [m.seq for m in messages(again)]
    expected = [m.seq for m in said[1:n]]
    require(resent[:n - 1] == expected,
            f"after NAK {said[0].seq:04d}: resent {resent}; expected {expected}")
    w.ack(seq_of(said[n - 1]))
    w.settle(0.05)
    return f"resent {' '.join(f'{s:04d}' for s in resent[:n - 1])}"


@check("renumbers-after-give-up", "§9 Version 2 (go-back-N, renumbering); §14", "after giving up messages, "
       "a NAK naming the one before them makes the controller number what is outstanding again from there",
       versions=(2,))
def _renumber(ctx: Context) -> str:
    w, t = ctx.wire, ctx.timeouts
    _, opened = ctx.hello()
    round_, bet = opened["round"], ctx.good_bet()
    w.send("WAGER", round=round_, id="x1", bet=bet, stake=100)
    lost = await_message(ctx, ("ACCEPT",))
    w.collect(t.give_up_after() + SLACK_S)                 # unacknowledged until the controller gives up
    w.send("WAGER", round=round_, id="x2", bet=bet, stake=100)
    after = await_message(ctx, ("ACCEPT",))
    require(after.seq == (lost.seq + 1) % SEQ_MODULUS,
            f"the next message is numbered {after.seq:04d}, after the given-up {lost.seq:04d}")
    last = (lost.seq - 1) % SEQ_MODULUS
    w.nak(last, "out-of-order")
    again = w.collect(soon(ctx))
    renumbered = [a for a in again if a.message is not None and a.message.type == "ACCEPT"]
    require(renumbered, f"nothing sent again after NAK {last:04d} (got {show(again)})")
    m = renumbered[0].decoded
    require(m.seq == lost.seq and m["id"] == "x2",
            f"after NAK {last:04d} the controller sent {show(renumbered[:1])}; expected ACCEPT id=x2 "
            f"renumbered {lost.seq:04d}")
    w.ack(seq_of(m))
    w.settle(0.05)
    return f"ACCEPT x2 renumbered {after.seq:04d} -> {m.seq:04d}"

