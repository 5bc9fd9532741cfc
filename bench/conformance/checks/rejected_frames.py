"""Frames from the bench that a controller must reject or take (section 2's
table, its variants and garbage), and the byte and frame timeouts (section 3)."""

from __future__ import annotations

import time

from bench.protocol.crc import crc16_ccitt_false
from bench.protocol.frame import SEQ_MODULUS
from bench.rules import describe, get_game
from bench.conformance.checks.core import (REPLY_S, SLACK_S, check, Context, distinct, hello_seq, is_type,
                                           messages, of_type, require, show)


def _with_crc(body: bytes) -> bytes:
    return b"$%s*%04X\r\n" % (body, crc16_ccitt_false(body))


def _damaged(game: str, bet: str, seq: int, round_: int) -> dict[str, bytes]:
    """The bench's WAGER on ``bet`` damaged in each way of section 2's table, numbered ``seq``."""
    s = b"%04d" % seq
    wager = b"%s WAGER round=%d id=d1 bet=%s stake=100" % (s, round_, bet.encode())
    foreign = b"SPIN" if describe(game).command != "SPIN" else b"RELEASE"   # another game's command
    good = _with_crc(wager)
    return {
        "bad-crc": good[:-6] + (b"0000" if not good.endswith(b"*0000\r\n") else b"0001") + b"\r\n",
        "no-crc": b"$" + wager + b"\r\n",
        "bad-seq": _with_crc(b"%d WAGER" % seq + wager[len(s) + 6:]),
        "bad-syntax": _with_crc(wager + b" stake"),
        "unknown-type": _with_crc(s + b" WAGERS" + wager[len(s) + 6:]),
        "wrong-game": _with_crc(s + b" " + foreign + b" round=%d" % round_),
        "wrong-sender": _with_crc(s + b" OPEN round=%d" % round_),
        "missing-field": _with_crc(wager.rsplit(b" ", 1)[0]),
        "extra-field": _with_crc(wager + b" colour=red"),
        "duplicate-field": _with_crc(wager + b" stake=100"),
        "bad-value": _with_crc(wager[:-3] + b"0100"),
        "non-ascii": _with_crc(wager.replace(b"id=d1", b"id=d\xe9")),
        "control-char": _with_crc(wager.replace(b" id=", b"\x01id=")),
        "interrupted": b"$" + wager[:20],        # the intact frame's "$" follows at once
        "too-long": _with_crc(wager.replace(b"id=d1", b"id=d1 " + b"x" * 260)),
    }


def largest_frame(game: str, rules) -> int:
    """The longest frame the checks send that must cross within the link's
    timeouts: rejects-too-long's, whose LF must come within the frame timeout
    for the controller to reject it as ``too-long`` (section 2); a line too
    slow for it cannot judge the checks (section 17)."""
    return len(_damaged(game, get_game(game).bet_names(rules)[0], SEQ_MODULUS - 1, 999_999)["too-long"])


def _rejects(reason: str):
    def run(ctx: Context) -> str:
        w = ctx.wire
        hello, opened = ctx.hello()
        seq, round_ = w.tx_seq, opened["round"]
        damaged = _damaged(ctx.game, ctx.good_bet(), seq, round_)[reason]
        if reason == "interrupted":         # cut short by the next frame's "$": the NAK comes with it
            w.write(damaged + w.frame("WAGER", seq, round=round_, id="d1", bet=ctx.good_bet(), stake=100))
            got = w.collect_until(is_type("ACCEPT", "REFUSE"), REPLY_S)
            naks = of_type(got, "NAK")
            require(naks and naks[0].decoded["reason"] == reason,
                    f"expected NAK reason={reason} (got {show(got)})")
            require(naks[0].seq == hello_seq(w), f"the NAK names {naks[0].seq:04d}")
            replies = distinct(m for m in messages(got) if m.type in ("ACCEPT", "REFUSE"))
            require([m.type for m in replies] == ["ACCEPT"], f"the intact frame after it: {show(got)}")
            return f"NAK reason={reason}, and the frame that cut it short was accepted"
        w.write(damaged)
        got = w.collect_until(is_type("NAK"), ctx.timeouts.response)
        naks = of_type(got, "NAK")
        answered = [m for m in messages(got) if m.type in ("ACCEPT", "REFUSE")]
        require(not answered, f"the damaged frame was acted on: {show(got)}")
        require(naks, f"no NAK within {ctx.timeouts.response} s (got {show(got)})")
        nak = naks[0].decoded
        require(nak["reason"] == reason, f"NAK reason={nak['reason']}, section 2 says {reason}")
        require(nak.seq == hello_seq(w), f"the NAK names {nak.seq:04d}, the last frame the controller "
                                         f"accepted from the bench is {hello_seq(w):04d}")
        reply = ctx.request("WAGER", ("ACCEPT", "REFUSE"), round=round_, id="d1", bet=ctx.good_bet(), stake=100)
        require(reply.type == "ACCEPT" and reply["id"] == "d1",
                f"the intact frame after it was answered {reply.type} {dict(reply.fields)}")
        return f"NAK reason={reason}, then the intact frame was accepted"
    return run


for _reason in ("bad-crc", "no-crc", "bad-seq", "bad-syntax", "unknown-type", "wrong-game", "wrong-sender",
                "missing-field", "extra-field", "duplicate-field", "bad-value", "non-ascii", "control-char",
                "interrupted", "too-long"):
    check(f"rejects-{_reason}", "§2 Frames, Rejected frames",
          f"a damaged frame ({_reason}) is NAKed with reason {_reason} and the last number accepted, "
          "not acted on; the intact frame then is")(_rejects(_reason))


@check("accepts-frame-variants", "§2 Frames", "lower-case CRC digits, a bare LF and fields in another order "
       "are accepted")
def _variants(ctx: Context) -> str:
    w = ctx.wire
    _, opened = ctx.hello()
    round_, bet = opened["round"], ctx.good_bet().encode()
    variants = []
    for i, shape in enumerate(("lower-case CRC", "bare LF", "fields reordered")):
        seq = w.tx_seq
        w.tx_seq = (seq + 1) % SEQ_MODULUS
        if shape == "fields reordered":
            body = b"%04d WAGER stake=100 bet=%s id=v%d round=%d" % (seq, bet, i, round_)
        else:
            body = b"%04d WAGER round=%d id=v%d bet=%s stake=100" % (seq, round_, i, bet)
        frame = _with_crc(body)
        if shape == "lower-case CRC":
            frame = frame[:-6] + frame[-6:-2].lower() + b"\r\n"
        elif shape == "bare LF":
            frame = frame[:-2] + b"\n"
        w.write(frame)
        require(w.wait_ack(seq, ctx.timeouts.response + SLACK_S) is not None, f"{shape}: no ACK")
        reply = w.take(REPLY_S, types=("ACCEPT", "REFUSE"))
        require(reply.type == "ACCEPT", f"{shape}: answered {reply.type} {dict(reply.fields)}")
        variants.append(shape)
    return ", ".join(variants) + ": accepted"


@check("ignores-garbage", "§2 Frames, Rejected frames", "bytes between frames are not NAKed and do not "
       "disturb the next frame")
def _garbage(ctx: Context) -> str:
    w = ctx.wire
    _, opened = ctx.hello()
    w.write(b"hello there\r\n\r\n  \r\n")
    got = w.collect(min(ctx.timeouts.response, 0.25))
    require(not of_type(got, "NAK"), f"garbage was NAKed: {show(got)}")
    reply = ctx.request("WAGER", ("ACCEPT", "REFUSE"), round=opened["round"], id="g1", bet=ctx.good_bet(), stake=100)
    require(reply.type == "ACCEPT", f"the frame after the garbage was answered {reply.type}")
    return "no NAK; the next frame accepted"


@check("rejects-very-long-line", "§2 Frames (length), §17", "a very long line (64 KiB; on a line with a speed, "
       "what it carries in 5 s: 4,800 bytes at 9,600 baud) is rejected as too-long (or, on a serial line, "
       "frame-timeout) and the controller goes on")
def _very_long(ctx: Context) -> str:
    w = ctx.wire
    _, opened = ctx.hello()
    size = ctx.line.long_line_bytes
    head = b"$%04d WAGER " % w.tx_seq
    data = head + b"x" * (size - len(head) - 2) + b"\r\n"
    started = time.monotonic()
    # In pieces the line carries within the link's write timeout: a real
    # port's write blocks until its driver has taken every byte.
    for at in range(0, len(data), ctx.line.write_chunk):
        w.write(data[at:at + ctx.line.write_chunk])
    got = w.collect_until(is_type("NAK"), ctx.timeouts.response + ctx.timeouts.frame)
    naks = of_type(got, "NAK")
    require(naks, f"no NAK for a {size}-byte line (got {show(got)})")
    require(naks[0].decoded["reason"] in ("too-long", "frame-timeout"),
            f"NAK reason={naks[0].decoded['reason']}; section 2 says too-long")
    # The frame after it waits on the line behind the rest of the long one:
    # its ACK is due a response timeout after the line has carried it all.
    w.send("WAGER", round=opened["round"], id="l1", bet=ctx.good_bet(), stake=100)
    seq, drained = w.last_seq, max(0.0, started + ctx.line.drain_s(len(data)) - time.monotonic())
    wait = drained + ctx.timeouts.response + SLACK_S
    require(w.wait_ack(seq, wait) is not None, f"no ACK of the WAGER after the long line within {wait:.2f} s"
            + (f" ({drained:.2f} s of it the line's, carrying the rest of the long line)" if drained else ""))
    reply = w.take(REPLY_S, types=("ACCEPT", "REFUSE"))
    require(reply.type == "ACCEPT", f"the frame after the long line was answered {reply.type}")
    return f"{size:,}-byte line: NAK reason={naks[0].decoded['reason']}; the next frame accepted"


@check("byte-timeout", "§3 Delivery, timeouts (byte)", "half a frame followed by silence is NAKed "
       "byte-timeout, and the frame sent again is accepted")
def _byte_timeout(ctx: Context) -> str:
    w = ctx.wire
    _, opened = ctx.hello()
    frame = w.frame("WAGER", round=opened["round"], id="b1", bet=ctx.good_bet(), stake=100)
    seq = int(frame[1:5])
    w.write(frame[:12])
    cut_at = w.now()
    got = w.collect_until(is_type("NAK"), ctx.timeouts.byte + ctx.timeouts.response)
    naks = of_type(got, "NAK")
    require(naks, f"no NAK after {ctx.timeouts.byte + ctx.timeouts.response:.2f} s of silence inside a frame "
                  f"(got {show(got)})")
    require(naks[0].decoded["reason"] == "byte-timeout", f"NAK reason={naks[0].decoded['reason']}, "
                                                         "section 3 says byte-timeout")
    waited = naks[0].at - cut_at
    w.write(frame)
    require(w.wait_ack(seq, ctx.timeouts.response + SLACK_S) is not None, "the whole frame was not ACKed")
    require(w.take(REPLY_S, types=("ACCEPT", "REFUSE")).type == "ACCEPT", "the whole frame was not accepted")
    return f"NAK reason=byte-timeout {waited:.2f} s after the last byte"


@check("frame-timeout", "§3 Delivery, timeouts (frame)", "a frame trickling in slower than the frame timeout "
       "(no gap over the byte timeout) is NAKed frame-timeout")
def _frame_timeout(ctx: Context) -> str:
    w = ctx.wire
    t = ctx.timeouts
    _, opened = ctx.hello()
    step = t.byte * 0.3
    for attempt in range(3):  # noqa: B007 (reported after the loop)
        frame = w.frame("WAGER", w.tx_seq, round=opened["round"], id="f1" + "x" * 40, bet=ctx.good_bet(),
                        stake=100)
        chunks = int((t.frame + 2 * t.byte) / step) + 2
        size = max(1, (len(frame) - 3) // chunks)
        pieces = [frame[i:i + size] for i in range(0, len(frame) - 3, size)][:chunks]
        written = []
        for piece in pieces:
            w.write(piece)
            written.append(time.monotonic())
            time.sleep(step)
        got = w.collect(t.response)
        naks = of_type(got, "NAK")
        gaps = [b - a for a, b in zip(written, written[1:])]
        if naks and naks[0].decoded["reason"] == "byte-timeout" and max(gaps) > t.byte:
            # The bench itself did not keep the bytes coming (a loaded machine): try again.
            w.note(f"the bench paused {max(gaps):.3f} s between two bytes; trying again")
            continue
        break
    require(naks, f"no NAK for a frame still unfinished {len(pieces) * step:.2f} s after its '$' "
                  f"(frame timeout {t.frame} s; got {show(got)})")
    require(naks[0].decoded["reason"] == "frame-timeout",
            f"NAK reason={naks[0].decoded['reason']} though no gap between bytes exceeded {max(gaps):.3f} s; "
            "section 3 says frame-timeout")
    require(not [m for m in messages(got) if m.type in ("ACCEPT", "REFUSE")], "the cut frame was acted on")
    return f"NAK reason=frame-timeout ({attempt + 1} attempt{'s' if attempt else ''})"

