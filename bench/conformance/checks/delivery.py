"""Delivery in version 1 and in both versions (section 3): duplicates, gaps,
out-of-order frames, NAKs, retransmission and giving up."""

from __future__ import annotations

from bench.protocol.frame import SEQ_MODULUS

from bench.conformance.checks.core import (REPLY_S, SLACK_S, await_message, check, Context, distinct, hello_seq,
                                           is_type, messages, of_type, require, show, soon)


@check("duplicate-frame", "§3 Delivery (duplicates)", "the same frame twice (our ACK was lost) is ACKed "
       "twice and delivered once")
def _duplicate(ctx: Context) -> str:
    w = ctx.wire
    _, opened = ctx.hello()
    frame = w.frame("WAGER", round=opened["round"], id="u1", bet=ctx.good_bet(), stake=100)
    seq = int(frame[1:5])
    w.write(frame)
    require(w.wait_ack(seq, ctx.timeouts.response + SLACK_S) is not None, "no ACK of the first copy")
    w.write(frame)
    w.collect_until(lambda a: a.message is not None and a.message.type == "ACK" and a.seq == seq,
                    ctx.timeouts.response)
    acks = [a for a in of_type(w.arrivals[w.mark:], "ACK") if a.seq == seq]
    require(len(acks) >= 2, f"the second copy was not ACKed again (ACKs of {seq:04d}: {len(acks)})")
    # A controller that acts on the second copy answers it like any WAGER, with any reply
    # (a second ACCEPT, REFUSE duplicate-id, an ERROR). In version 1 that reply waits until
    # the ACCEPT before it is acknowledged: each is acknowledged, and the check looks again.
    for _ in range(2):
        for m in messages(w.arrivals[w.mark:]):
            if m.seq is not None:
                w.ack(m.seq)
        w.collect(soon(ctx))
    replies = distinct(m for m in messages(w.arrivals[w.mark:])
                       if m.type == "ERROR" or (m.type in ("ACCEPT", "REFUSE") and m.get("id") == "u1"))
    require(len(replies) == 1 and replies[0].type == "ACCEPT",
            f"delivered {len(replies)} times: "
            f"{' '.join(m.type + ' ' + str(m.get('reason') or m.get('code') or '') for m in replies)}")
    return "ACKed twice, one ACCEPT"


@check("sequence-gap", "§3 Delivery (gaps)", "version 1: a message whose number skips one is still delivered",
       versions=(1,))
def _gap_v1(ctx: Context) -> str:
    w = ctx.wire
    _, opened = ctx.hello()
    w.tx_seq = (w.tx_seq + 1) % SEQ_MODULUS
    reply = ctx.request("WAGER", ("ACCEPT", "REFUSE"), round=opened["round"], id="s1", bet=ctx.good_bet(), stake=100)
    require(reply.type == "ACCEPT", f"answered {reply.type}")
    return "delivered"


@check("out-of-order", "§9 Version 2 (out of order)", "a frame past a gap is not delivered; one NAK "
       "out-of-order names the last accepted; resent from the gap, both are delivered in order", versions=(2,))
def _out_of_order(ctx: Context) -> str:
    w = ctx.wire
    _, opened = ctx.hello()
    round_, bet = opened["round"], ctx.good_bet()
    last = hello_seq(w)
    first = w.frame("WAGER", round=round_, id="o1", bet=bet, stake=100)
    second = w.frame("WAGER", round=round_, id="o2", bet=bet, stake=100)
    third = w.frame("WAGER", round=round_, id="o3", bet=bet, stake=100)
    w.write(second)
    w.write(third)
    got = w.collect_until(is_type("NAK"), ctx.timeouts.response, linger=0.2)
    naks = of_type(got, "NAK")
    require(not [m for m in messages(got) if m.type in ("ACCEPT", "REFUSE")],
            f"a frame past the gap was delivered: {show(got)}")
    require(len(naks) == 1, f"{len(naks)} NAKs for one gap (section 9: one per gap): {show(got)}")
    require(naks[0].decoded["reason"] == "out-of-order" and naks[0].seq == last,
            f"got {show(naks)}; expected NAK reason=out-of-order naming {last:04d}")
    resent_at = len(w.arrivals)
    w.write(first + second + third)
    require(w.wait_ack(int(third[1:5]), ctx.timeouts.response + SLACK_S) is not None, "no ACK after the resend")
    # The replies to o1 and o2 may come before the ACK of o3 (on a slow line
    # they do: each frame is answered as it arrives), and waiting for the
    # ACK has taken, and acknowledged, them: count them from the resend on.
    replies = [m for m in distinct(messages(w.arrivals[resent_at:])) if m.type in ("ACCEPT", "REFUSE")]
    while len(replies) < 3:
        replies.append(w.take(REPLY_S, types=("ACCEPT", "REFUSE")))
    ids = [m["id"] for m in replies]
    require(ids == ["o1", "o2", "o3"], f"delivered {ids}")
    return "one NAK out-of-order; then o1, o2, o3 in order"


@check("resends-on-nak", "§3 Delivery (NAK)", "a NAK naming the message before the outstanding one makes "
       "the controller send it again at once")
def _resend_on_nak(ctx: Context) -> str:
    w = ctx.wire
    _, opened = ctx.hello()
    w.send("WAGER", round=opened["round"], id="n1", bet=ctx.good_bet(), stake=100)
    first = await_message(ctx, ("ACCEPT", "REFUSE"))
    nak_at = w.now()
    w.nak((first.seq - 1) % SEQ_MODULUS)
    again = w.collect(soon(ctx))
    copies = [a for a in again if a.raw == first.raw]
    require(copies, f"not resent within {soon(ctx):.2f} s of the NAK (got {show(again)})")
    w.ack(first.seq)
    w.settle(0.05)
    return f"resent {copies[0].at - nak_at:.3f} s after the NAK"


@check("nak-naming-outstanding-acknowledges", "§3 Delivery (NAK)", "a NAK naming the outstanding message "
       "itself counts as its ACK: it is not sent again")
def _nak_is_ack(ctx: Context) -> str:
    w = ctx.wire
    _, opened = ctx.hello()
    w.send("WAGER", round=opened["round"], id="k1", bet=ctx.good_bet(), stake=100)
    first = await_message(ctx, ("ACCEPT", "REFUSE"))
    w.nak(first.seq)
    again = w.collect(ctx.timeouts.response + SLACK_S)
    copies = [a for a in again if a.raw == first.raw]
    require(not copies, f"sent again though the NAK named it ({len(copies)} copies)")
    return "not sent again"


@check("retransmits-then-gives-up", "§3 Delivery (retransmission)", "a message left unacknowledged is sent "
       "again, the same bytes, every response timeout, retries times; then the controller stops and a new "
       "HELLO resynchronises it")
def _give_up(ctx: Context) -> str:
    w, t = ctx.wire, ctx.timeouts
    _, opened = ctx.hello()
    w.send("WAGER", round=opened["round"], id="r1", bet=ctx.good_bet(), stake=100)
    first = await_message(ctx, ("ACCEPT", "REFUSE"))
    got = w.collect(t.give_up_after() + t.response + SLACK_S)
    copies = [first] + [a for a in got if a.raw == first.raw]
    others = [a for a in got if a.raw != first.raw and a.message is not None]
    require(not others, f"while waiting for its ACK the controller sent {show(others)}")
    require(len(copies) == t.retries + 1, f"sent {len(copies)} times; section 3: once and {t.retries} retries")
    gaps = [b.at - a.at for a, b in zip(copies, copies[1:])]
    wrong = [g for g in gaps if not t.response - SLACK_S / 2 <= g <= t.response + SLACK_S]
    require(not wrong, f"resent after {', '.join(f'{g:.3f}' for g in gaps)} s; response timeout {t.response} s")
    _, reopened = ctx.hello()
    return f"{len(copies)} copies, {', '.join(f'{g:.2f}' for g in gaps)} s apart; HELLO then opened round " \
           f"{reopened['round']}"

