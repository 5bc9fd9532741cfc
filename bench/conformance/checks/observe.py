"""The round a correct bench plays, watched: what the controller said and did
when, for the checks that judge a whole round (docs/protocol.md sections 2, 3, 12)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from bench.conformance.wire import Arrival, CheckFailed, seq_of
from bench.protocol import Message, Rejected
from bench.protocol.messages import COMMANDS
from bench.protocol.session import DEFAULT_WINDOW
from bench.rules import describe
from bench.conformance.checks.core import (REPLY_S, SLACK_S, Context, require, software)


@dataclass
class Observed:
    round: int                                # 0 if the round did not finish
    sent: list[tuple[float, int, str]]        # (time, seq, type) of every bench message
    said: list[tuple[float, Message]]         # every controller message, as first received
    arrivals: list[Arrival]
    problems: list[str]                       # deadlines missed and orders broken, as they happened


def observe_round(ctx: Context) -> Observed:
    """Play one round as a correct bench would (one message at a time, each
    resent if its ACK does not come, a damaged frame NAKed) and record what
    the controller did, for the checks that judge it."""
    w, t = ctx.wire, ctx.timeouts
    sent, said, problems = [], [], []
    last_rx: list[int | None] = [None]
    hello_key: list[tuple[int, bytes] | None] = [None]

    def absorb(arrival: Arrival) -> None:
        item = arrival.item
        if isinstance(item, Rejected):
            if item.reason != "garbage":
                w.nak(w.modulus - 1 if last_rx[0] is None else last_rx[0])
            return
        m = item.message
        if m.type in ("ACK", "NAK"):
            return
        seq = seq_of(m)
        w.ack(seq)
        if m.type == "HELLO":
            # Whatever its number, unless it is the HELLO already taken, sent again (section 9).
            if (seq, item.raw) == hello_key[0]:
                return
            hello_key[0] = (seq, item.raw)
        elif last_rx[0] is not None and (seq - last_rx[0]) % w.modulus != 1:
            return               # a copy of one already taken (or one past a gap): not delivered twice
        if m.type == "RESET":
            hello_key[0] = None
        last_rx[0] = seq
        said.append((arrival.at, m))

    consumed = [0]       # said[:consumed] has been looked through by ``until``

    def until(types: tuple[str, ...], since: float, what: str) -> Message:
        ends = time.monotonic() + REPLY_S
        while True:
            while consumed[0] < len(said):
                m = said[consumed[0]][1]
                consumed[0] += 1
                if m.type in types:
                    return m
            arrival = w.next(max(0.0, ends - time.monotonic()))
            if arrival is None:
                raise CheckFailed(f"no {' or '.join(types)} within {REPLY_S} s of {what}")
            absorb(arrival)

    def send(type_: str, **fields) -> float:
        data = w.frame(type_, **fields)
        seq = w.last_seq
        at = w.now()
        sent.append((at, seq, type_))
        for _attempt in range(t.retries + 1):
            w.write(data)
            ends = time.monotonic() + t.response + SLACK_S
            while time.monotonic() < ends:
                arrival = w.next(max(0.0, ends - time.monotonic()))
                if arrival is None:
                    break
                absorb(arrival)
                if w.acknowledges(arrival, seq):
                    return at
        raise CheckFailed(f"our {type_} (seq {seq:04d}) was never acknowledged, {t.retries + 1} attempts")

    def play() -> int:
        fields = dict(proto=ctx.version, role="bench", sw=software(), game=ctx.game)
        if ctx.version == 2:
            fields["window"] = ctx.window
        w.version = 1
        w.mark = len(w.arrivals)
        at = send("HELLO", **fields)
        hello = until(("HELLO",), at, "HELLO")
        if ctx.version == 2:
            w.version, w.peer_window = 2, hello.get("window") or DEFAULT_WINDOW
        opened = until(("OPEN",), at, "HELLO")
        round_ = opened["round"]
        bet = ctx.good_bet()
        for i in (1, 2):
            at = send("WAGER", round=round_, id=f"o{i}", bet=bet, stake=100 * i)
            reply = until(("ACCEPT", "REFUSE"), at, "a WAGER")
            if reply.type != "ACCEPT" or reply["id"] != f"o{i}":
                problems.append(f"WAGER o{i} on {bet} answered by {reply.type} {dict(reply.fields)}")
        at = send("CLOSE", round=round_)
        until(("NOMORE",), at, "CLOSE")
        if describe(ctx.game).lightning:
            until(("LUCKY",), at, "NOMORE")
        at = send("TRIGGER", round=round_)
        command = until(COMMANDS + ("RESET",), at, "TRIGGER")
        if command.type == "RESET":
            raise CheckFailed(f"the controller answered TRIGGER with RESET reason={command['reason']}")
        at = send("SENSOR", **ctx.reading(round_, command))
        outcome = until(("RESULT", "NOROLL"), at, "SENSOR")
        require(outcome.type == "RESULT", f"a flat reading gave {outcome.type}")
        until(("SETTLED",), at, "RESULT")
        until(("CLEARED",), at, "SETTLED")
        until(("OPEN",), at, "CLEARED")
        return round_

    round_ = 0
    try:
        round_ = play()
    except CheckFailed as err:
        problems.append(f"the round did not finish: {err}")
    w.settle(0.05)
    return Observed(round_, sent, said, w.arrivals[w.mark:], problems)

