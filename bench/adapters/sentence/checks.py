"""The ASCII sentence protocol's own link checks, run by ``bench conformance
--adapter ascii-sentence`` beside the bench's session-layer checks; each
names the section of docs/adapters.md it tests. They drive the generic
conformance ``Wire`` with this protocol's codec, so the faults (a wrong check
value, a missing end marker, a sentence twice, an ACK withheld) are put on
the wire by the bench, below its session layer."""

from __future__ import annotations

from bench.conformance.checks import (ONCE, REPLY_S, SLACK_S, Check, Context, is_type, messages, observe_round,
                                      of_type, require, show)
from bench.conformance.wire import CheckFailed
from bench.protocol import Rejected


def _observed(ctx: Context) -> str:
    seen = observe_round(ctx)
    require(seen.arrivals, "the controller said nothing")
    bad = [a.item for a in seen.arrivals if isinstance(a.item, Rejected)]
    require(not bad, "the bench rejected: " + "; ".join(f"{item.reason}: {item.detail}" for item in bad))
    unterminated = [a for a in seen.arrivals if not a.raw.endswith(b"\r\n")]
    require(not unterminated, f"sentences not ended by CR LF: {show(unterminated)}")
    require(not seen.problems, "; ".join(seen.problems))
    return f"{len(seen.arrivals)} sentences over a round, all valid"


def _acks(ctx: Context) -> str:
    seen = observe_round(ctx)
    acks = [(a.at, a.seq) for a in of_type(seen.arrivals, "ACK")]
    problems = []
    for at, seq, type_ in seen.sent:
        covering = [a_at for a_at, a_seq in acks if a_at >= at and a_seq == seq]
        if not covering:
            problems.append(f"{type_} {seq:03d} never acknowledged")
        elif covering[0] - at > ctx.timeouts.response:
            problems.append(f"{type_} {seq:03d} acknowledged after {covering[0] - at:.3f} s "
                            f"(response timeout {ctx.timeouts.response} s)")
    require(not problems, "; ".join(problems))
    return f"{len(seen.sent)} sentences, each ACKed with its own number in time"


def _wager(ctx: Context, round_: int, wager_id: str) -> bytes:
    return ctx.wire.frame("WAGER", round=round_, id=wager_id, bet=ctx.good_bet(), stake=100)


def _rejects(damage, reason: str, code: str):
    def run(ctx: Context) -> str:
        w = ctx.wire
        _, opened = ctx.hello()
        round_ = opened["round"]
        intact = _wager(ctx, round_, "d1")
        w.write(damage(intact))
        got = w.collect_until(is_type("NAK"), ctx.timeouts.response)
        answered = [m for m in messages(got) if m.type in ("ACCEPT", "REFUSE")]
        require(not answered, f"the damaged sentence was acted on: {show(got)}")
        naks = of_type(got, "NAK")
        require(naks, f"no NAK within {ctx.timeouts.response} s (got {show(got)})")
        require(naks[0].decoded["reason"] == reason, f"NAK {naks[0].raw[11:14]!r}; section 5 says {code} ({reason})")
        w.write(intact)
        if w.wait_ack(w.last_seq, ctx.timeouts.response + SLACK_S) is None:
            raise CheckFailed("the intact sentence after it was not ACKed")
        reply = w.take(REPLY_S, types=("ACCEPT", "REFUSE"))
        require(reply.type == "ACCEPT" and reply["id"] == "d1", f"the intact sentence: {reply.type} {dict(reply.fields)}")
        return f"NAK {code}, then the intact sentence was taken"
    return run


def _bad_check(sentence: bytes) -> bytes:
    check = sentence[-10:-6]
    return sentence[:-10] + (b"0000" if check != b"0000" else b"0001") + sentence[-6:]


def _no_end(sentence: bytes) -> bytes:
    return sentence[:-6] + b"\r\n"


def _duplicate(ctx: Context) -> str:
    w = ctx.wire
    _, opened = ctx.hello()
    sentence = _wager(ctx, opened["round"], "u1")
    w.write(sentence)
    first = w.collect_until(is_type("ACCEPT", "REFUSE"), REPLY_S)
    w.write(sentence)
    again = w.collect(ctx.timeouts.response + SLACK_S)
    seq = w.last_seq
    replies = [m for m in messages(first + again) if m.type in ("ACCEPT", "REFUSE")]
    require(len({(m.seq, m.type) for m in replies}) == 1, f"the copy was taken as a new wager: {show(again)}")
    require([a for a in of_type(again, "ACK") if a.seq == seq], f"the copy was not ACKed ({show(again)})")
    return "ACKed again, taken once"


def _retransmits(ctx: Context) -> str:
    """The controller's OPEN after its HELLO is not acknowledged: it must come
    again after each response timeout, ``retries`` times, and then no more."""
    w, t = ctx.wire, ctx.timeouts
    ctx.wire.version = 1
    w.send("HELLO", proto=1, role="bench", sw="tablebench-conformance/retransmit", game=ctx.game)
    if w.wait_ack(w.last_seq, t.response + SLACK_S) is None:
        raise CheckFailed("the bench's HELLO was not ACKed")
    w.take(REPLY_S, types=("HELLO",))
    watched = t.response * (t.retries + 2) + 2 * SLACK_S
    got = w.collect(watched)                         # nothing ACKed from here on
    opens = [a for a in got if a.message is not None and a.message.type == "OPEN"]
    require(opens, f"no OPEN after the HELLO ({show(got)})")
    sends = len(opens)
    require(sends == t.retries + 1, f"the unacknowledged OPEN was sent {sends} times in {watched:.1f} s; "
                                    f"section 5: {t.retries + 1} (once, then {t.retries} resends)")
    gaps = [b.at - a.at for a, b in zip(opens, opens[1:])]
    early = [g for g in gaps if g < t.response - SLACK_S]
    require(not early, f"resent after {', '.join(f'{g:.2f}' for g in early)} s; the response timeout is {t.response} s")
    w.ack(opens[0].seq)
    w.settle(0.05)
    return f"sent {sends} times, {', '.join(f'{g:.2f}' for g in gaps)} s apart, then given up"


CHECKS = [
    Check("sentence-valid", "docs/adapters.md §2", "every sentence the controller sends over a round decodes: "
          "talker, number, command, fields, CRC-16/MODBUS, |END, CR LF", _observed, ONCE),
    Check("sentence-acks", "docs/adapters.md §5", "each of the bench's sentences is ACKed with its own number "
          "within the response timeout", _acks, ONCE),
    Check("sentence-rejects-bad-check", "docs/adapters.md §5", "a sentence with a wrong check value is NAKed E01 "
          "and not acted on; the intact one then is", _rejects(_bad_check, "bad-crc", "E01"), ONCE),
    Check("sentence-rejects-no-end", "docs/adapters.md §2, §5", "a sentence without its end marker is NAKed E02 "
          "and not acted on", _rejects(_no_end, "no-end", "E02"), ONCE),
    Check("sentence-duplicate", "docs/adapters.md §5", "the same sentence twice (its ACK lost) is ACKed again "
          "and taken once", _duplicate, ONCE),
    Check("sentence-retransmits", "docs/adapters.md §5", "a sentence left unacknowledged is sent again after the "
          "response timeout, retries times, then given up", _retransmits, ONCE),
]
