"""The conformance checks of a controller's link and session layers, each
naming the section of docs/protocol.md it tests.

A check gets a ``Context``: a fresh ``Wire`` to the controller, the protocol
version it runs in, and what the bench knows of the controller (its game,
rules and timeouts). It returns a short note when the controller did what
the section says and raises ``CheckFailed`` saying what it did instead.
Every check starts with its own HELLO (section 5: a HELLO starts the
controller afresh), so checks do not depend on each other. What a check
puts in flight and how long it waits for bytes to cross come from the line's
speed (``Context.line``, ``bench.conformance.speed``), so that a check
passes a compliant controller at 9,600 baud as at 115,200.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Callable

from bench.conformance.speed import CheckLine
from bench.conformance.wire import Arrival, CheckFailed, NotSupported, Wire
from bench.errors import RulesError
from bench.protocol.greeting import rules_digest
from bench.protocol import Message, Rejected, Timeouts
from bench.protocol.crc import crc16_ccitt_false
from bench.protocol.frame import SEQ_MODULUS
from bench.protocol.messages import COMMANDS
from bench.protocol.timeouts import DEFAULT_REPLY_S
from bench.protocol.session import DEFAULT_WINDOW, MAX_WINDOW, WINDOW
from bench.rules import describe, game_names, get_game
from bench.rules.submission import DEFAULT_MAX_STAKE, DEFAULT_MIN_STAKE, LIMITS_CLAUSE

SOFTWARE = "tablebench-conformance/1"
_HELLOS = itertools.count(1)


def software() -> str:
    """The ``sw`` of the bench's next HELLO: numbered, so that no HELLO is
    byte for byte an earlier one. Over a link whose controller outlives a
    connection (a serial line), a version-2 controller would take the same
    HELLO at 0000 for the previous check's HELLO sent again (section 9)."""
    return f"{SOFTWARE}+{next(_HELLOS)}"
LINK, SESSION = "link", "session"
REPLY_S = DEFAULT_REPLY_S   # docs/protocol.md section 11: the bench waits at most 3 s for each controller reply
SLACK_S = 0.25         # what a loaded machine may add to a timer, on either side of the link
ONCE = ()              # a check of something every version shares: run in the lowest version the controller speaks


@dataclass(frozen=True)
class Check:
    name: str
    section: str                       # the section of docs/protocol.md it tests
    summary: str
    run: Callable[["Context"], str | None]
    versions: tuple[int, ...] = (1, 2)  # the protocol versions it runs in (ONCE: the lowest one spoken)
    optional: bool = False             # an optional feature: a failure is reported, not counted
    layer: str = LINK                  # LINK: the frames and delivery of docs/protocol.md; SESSION: the
    #                                    messages and the round, which hold whatever the wire format (an adapter's)

    def id(self, version: int) -> str:
        return f"{self.name}[v{version}]"


@dataclass
class Context:
    wire: Wire
    version: int
    game: str
    rules: object
    timeouts: Timeouts
    adapter: object = None             # the wire format (bench.adapters); None: the bench's own protocol
    line: CheckLine = CheckLine()      # the link's speed: the window announced, the long line, the waits

    @property
    def window(self) -> int:
        """The window the bench announces in a version-2 HELLO: what the line carries (section 17)."""
        return self.line.window

    def in_flight(self, wanted: int) -> int:
        """How many messages a check of the window puts in flight: ``wanted``,
        or fewer if the line's window is smaller, never fewer than 2 (one
        message in flight tests no window)."""
        return max(2, min(wanted, self.window))

    # -- getting the controller somewhere ----------------------------------------
    def hello(self, *, proto: int | None = None, window: int | None = None, seq: int | None = None,
              **extra) -> tuple[Message, Message]:
        """Greet in this context's version; returns the controller's HELLO and the OPEN that follows."""
        w, proto = self.wire, proto or self.version
        window = self.window if window is None else window
        fields = dict(proto=proto, role="bench", sw=software(), game=self.game, **extra)
        if proto >= 2:
            fields["window"] = window
        w.version = 1                      # every HELLO is sent stop-and-wait (section 9)
        w.mark = len(w.arrivals)           # what came before is a previous check's
        w.send("HELLO", seq, **fields)
        if w.wait_ack(w.last_seq, self.timeouts.response + SLACK_S) is None:
            raise CheckFailed(f"no ACK of the bench's HELLO within {self.timeouts.response + SLACK_S:.2f} s")
        hello = w.take(REPLY_S, types=("HELLO", "ERROR"))
        if hello.type == "ERROR":
            raise CheckFailed(f"the controller refused HELLO proto={proto}: ERROR code={hello['code']} "
                              f"{hello.get('detail') or ''}".rstrip())
        if hello["proto"] != proto:
            raise CheckFailed(f"greeted with proto={proto}, the controller answered proto={hello['proto']}")
        if proto >= 2:
            w.version, w.peer_window = 2, hello.get("window") or DEFAULT_WINDOW
        opened = w.take(REPLY_S, types=("OPEN",))
        return hello, opened

    def request(self, type_: str, reply, **fields) -> Message | None:
        return self.wire.request(type_, reply, REPLY_S, **fields)

    def good_bet(self) -> str:
        return get_game(self.game).bet_names(self.rules)[0]

    def reading(self, round_: int, command: Message) -> dict:
        # a lawful reading that ends the round (in a roll series, a seven)
        return describe(self.game).outcome.quiet_sensor(round_, command)

    def to_phase(self, phase: str) -> tuple[int, list[tuple[str, int]]]:
        """HELLO, then play the round up to ``phase``: betting (just opened),
        wagered (one wager accepted), closed (no more bets, Lucky Numbers
        shown), released (the plant commanded). Returns the round and the
        accepted wagers (id, stake)."""
        _, opened = self.hello()
        round_ = opened["round"]
        if phase == "betting":
            return round_, []
        reply = self.request("WAGER", ("ACCEPT", "REFUSE"), round=round_, id="c1", bet=self.good_bet(), stake=300)
        if reply.type != "ACCEPT":
            raise CheckFailed(f"a wager on {self.good_bet()} was refused: {reply.get('reason')}")
        wagers = [("c1", 300)]
        if phase == "wagered":
            return round_, wagers
        self.request("CLOSE", "NOMORE", round=round_)
        if describe(self.game).lightning:
            self.wire.take(REPLY_S, types=("LUCKY",))
        if phase == "closed":
            return round_, wagers
        self.request("TRIGGER", COMMANDS, round=round_)
        return round_, wagers


CHECKS: list[Check] = []


def check(name: str, section: str, summary: str, *, versions=(1, 2), optional: bool = False, layer: str = LINK):
    def register(fn):
        CHECKS.append(Check(name, section, summary, fn, tuple(versions), optional, layer))
        return fn
    return register


def require(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def messages(arrivals: list[Arrival]) -> list[Message]:
    return [a.message for a in arrivals if a.message is not None and a.message.type not in ("ACK", "NAK")]


def of_type(arrivals: list[Arrival], type_: str) -> list[Arrival]:
    return [a for a in arrivals if a.message is not None and a.message.type == type_]


def distinct(said) -> list[Message]:
    """Messages without the retransmitted copies (the same number again)."""
    seen, out = set(), []
    for m in said:
        if (m.seq, m.type) not in seen:
            seen.add((m.seq, m.type))
            out.append(m)
    return out


def soon(ctx: Context) -> float:
    """How long to watch for what the controller does at once, in answer to
    the bench: long enough for a loaded machine, short of the response
    timeout after which it would resend anyway."""
    return ctx.timeouts.response * 0.75


def is_type(*types: str):
    return lambda arrival: arrival.message is not None and arrival.message.type in types


SHOWN = 10          # arrivals written out in a check's verdict; the rest are counted


def show(arrivals: list[Arrival]) -> str:
    """What the controller sent, for a verdict: the first SHOWN items, each cut to a line's length."""
    items = [_cut(a.raw.decode("ascii", "replace").strip()) for a in arrivals[:SHOWN]]
    more = f", … and {len(arrivals) - SHOWN} more" if len(arrivals) > SHOWN else ""
    return ", ".join(items) + more if items else "nothing"


def _cut(text: str, room: int = 120) -> str:
    return text if len(text) <= room else f"{text[:room]}… ({len(text)} characters)"


# -- one round, watched -----------------------------------------------------------

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
    last_rx, hello_key = [None], [None]

    def absorb(arrival: Arrival) -> None:
        item = arrival.item
        if isinstance(item, Rejected):
            if item.reason != "garbage":
                w.nak(w.modulus - 1 if last_rx[0] is None else last_rx[0])
            return
        m = item.message
        if m.type in ("ACK", "NAK"):
            return
        w.ack(m.seq)
        if m.type == "HELLO":
            # Whatever its number, unless it is the HELLO already taken, sent again (section 9).
            if (m.seq, item.raw) == hello_key[0]:
                return
            hello_key[0] = (m.seq, item.raw)
        elif last_rx[0] is not None and (m.seq - last_rx[0]) % w.modulus != 1:
            return               # a copy of one already taken (or one past a gap): not delivered twice
        if m.type == "RESET":
            hello_key[0] = None
        last_rx[0] = m.seq
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


@check("frames-valid", "§2 Frames", "every frame the controller sends over a round decodes: syntax, CRC, "
       "length, CR LF")
def _frames_valid(ctx: Context) -> str:
    seen = observe_round(ctx)
    require(seen.arrivals, "the controller said nothing")
    bad = [a for a in seen.arrivals if isinstance(a.item, Rejected)]
    require(not bad, f"the bench rejected {len(bad)}: " + "; ".join(
        f"{a.item.reason}: {a.item.detail} ({a.raw[:60]!r})" for a in bad[:SHOWN])
        + (f"; … and {len(bad) - SHOWN} more" if len(bad) > SHOWN else ""))
    unterminated = [a for a in seen.arrivals if not a.raw.endswith(b"\r\n")]
    require(not unterminated, f"frames not ended by CR LF: {show(unterminated)}")
    return f"{len(seen.arrivals)} frames, all valid"


@check("acks-every-message", "§3 Delivery (§9 in version 2)", "each of the bench's messages is acknowledged "
       "within the response timeout, and only once")
def _acks(ctx: Context) -> str:
    seen = observe_round(ctx)
    t = ctx.timeouts
    problems = []
    acks = [(a.at, a.message.seq) for a in of_type(seen.arrivals, "ACK")]
    for at, seq, type_ in seen.sent:
        covering = [a_at for a_at, a_seq in acks if a_at >= at and
                    (a_seq == seq if ctx.version == 1 else (a_seq - seq) % SEQ_MODULUS <= 2 * WINDOW)]
        if not covering:
            problems.append(f"{type_} {seq:04d} never acknowledged")
        elif covering[0] - at > t.response:
            problems.append(f"{type_} {seq:04d} acknowledged after {covering[0] - at:.3f} s "
                            f"(response timeout {t.response} s)")
    counts: dict[int, int] = {}
    for _, seq in acks:
        counts[seq] = counts.get(seq, 0) + 1
    twice = sorted(seq for seq, n in counts.items() if n > 1)
    if twice:
        problems.append(f"ACKed more than once though sent once: {', '.join(f'{s:04d}' for s in twice)}")
    require(not problems, "; ".join(problems))
    return f"{len(seen.sent)} messages, {len(acks)} ACKs"


@check("numbering", "§2 Frames (SSSS), §3 Delivery", "the controller numbers its messages one by one and "
       "sends each once unless its ACK is late or NAKed")
def _numbering(ctx: Context) -> str:
    seen = observe_round(ctx)
    problems = []
    first: dict[tuple[int, bytes], float] = {}
    epoch: list[int] = []            # the numbers since the controller last started at a HELLO or RESET
    runs = [epoch]
    for a in seen.arrivals:
        m = a.message
        if m is None or m.type in ("ACK", "NAK"):
            continue
        if m.type == "RESET":
            first.clear()             # the controller restarts its numbering: 0000 again is new
        key = (m.seq, a.raw)
        if key in first:
            # A resend is due after the response timeout, or after a NAK of
            # ours (one sent a little before the first copy arrived counts).
            prompted = any(first[key] - ctx.timeouts.response <= at <= a.at for at in ctx.wire.naks_sent)
            if not prompted and a.at - first[key] < ctx.timeouts.response / 2:
                problems.append(f"{m.type} {m.seq:04d} sent again {a.at - first[key]:.3f} s after the first "
                                f"copy, though acknowledged and not NAKed")
            continue
        first[key] = a.at
        if m.type == "HELLO" and m.seq not in epoch:
            epoch = []
            runs.append(epoch)
        epoch.append(m.seq)
    for run in runs:
        # Version 2 may bring a number before the one a damaged frame lost: the
        # numbers, in any order, must still be one run without a hole or a repeat.
        steps = sorted((seq - run[0]) % SEQ_MODULUS for seq in run) if run else []
        if steps != list(range(len(steps))):
            problems.append(f"numbers {' '.join(f'{s:04d}' for s in run)} are not one by one")
    require(first, "no message from the controller to judge the numbering of"
            + (f" ({seen.problems[0]})" if seen.problems else ""))
    require(not problems, "; ".join(problems))
    return f"{len(first)} messages numbered one by one"


@check("round-state-chart", "§12 A round from the controller's side", "a round goes OPEN, ACCEPT, NOMORE, "
       "[LUCKY], command, RESULT, SETTLE..., SETTLED, CLEARED, OPEN, each within its deadline", layer=SESSION)
def _round(ctx: Context) -> str:
    seen = observe_round(ctx)
    require(not seen.problems, "; ".join(seen.problems))
    types = [m.type for _, m in seen.said]
    start = types.index("OPEN")
    lucky = ["LUCKY"] if describe(ctx.game).lightning else []
    command = describe(ctx.game).command
    expected = (["OPEN", "ACCEPT", "ACCEPT", "NOMORE"] + lucky + [command, "RESULT", "SETTLE", "SETTLE",
                                                                     "SETTLED", "CLEARED", "OPEN"])
    require(types[start:] == expected, f"the controller said {' '.join(types[start:])}; "
                                       f"section 12 gives {' '.join(expected)}")
    ms = [m for _, m in seen.said][start:]
    rounds = {m["round"] for m in ms[:-1]}
    require(rounds == {seen.round} and ms[-1]["round"] == seen.round + 1,
            f"round numbers {sorted(rounds)} then {ms[-1]['round']}; expected {seen.round} then {seen.round + 1}")
    settles = [m for m in ms if m.type == "SETTLE"]
    settled = next(m for m in ms if m.type == "SETTLED")
    require(settled["wagers"] == len(settles) and settled["returned"] == sum(m["returned"] for m in settles),
            f"SETTLED wagers={settled['wagers']} returned={settled['returned']} does not sum the SETTLEs")
    return " ".join(expected)


# -- frames from the bench that a controller must reject --------------------------

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
            require(naks and naks[0].message["reason"] == reason,
                    f"expected NAK reason={reason} (got {show(got)})")
            require(naks[0].message.seq == hello_seq(w), f"the NAK names {naks[0].message.seq:04d}")
            replies = distinct(m for m in messages(got) if m.type in ("ACCEPT", "REFUSE"))
            require([m.type for m in replies] == ["ACCEPT"], f"the intact frame after it: {show(got)}")
            return f"NAK reason={reason}, and the frame that cut it short was accepted"
        w.write(damaged)
        got = w.collect_until(is_type("NAK"), ctx.timeouts.response)
        naks = of_type(got, "NAK")
        answered = [m for m in messages(got) if m.type in ("ACCEPT", "REFUSE")]
        require(not answered, f"the damaged frame was acted on: {show(answered and got)}")
        require(naks, f"no NAK within {ctx.timeouts.response} s (got {show(got)})")
        nak = naks[0].message
        require(nak["reason"] == reason, f"NAK reason={nak['reason']}, section 2 says {reason}")
        require(nak.seq == hello_seq(w), f"the NAK names {nak.seq:04d}, the last frame the controller "
                                         f"accepted from the bench is {hello_seq(w):04d}")
        reply = ctx.request("WAGER", ("ACCEPT", "REFUSE"), round=round_, id="d1", bet=ctx.good_bet(), stake=100)
        require(reply.type == "ACCEPT" and reply["id"] == "d1",
                f"the intact frame after it was answered {reply.type} {dict(reply.fields)}")
        return f"NAK reason={reason}, then the intact frame was accepted"
    return run


def hello_seq(w: Wire) -> int:
    """The number of the bench's last message (the HELLO right after ``hello``)."""
    return (w.tx_seq - 1) % SEQ_MODULUS


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
    require(naks[0].message["reason"] in ("too-long", "frame-timeout"),
            f"NAK reason={naks[0].message['reason']}; section 2 says too-long")
    # The frame after it waits on the line behind the rest of the long one:
    # its ACK is due a response timeout after the line has carried it all.
    w.send("WAGER", round=opened["round"], id="l1", bet=ctx.good_bet(), stake=100)
    seq, drained = w.last_seq, max(0.0, started + ctx.line.drain_s(len(data)) - time.monotonic())
    wait = drained + ctx.timeouts.response + SLACK_S
    require(w.wait_ack(seq, wait) is not None, f"no ACK of the WAGER after the long line within {wait:.2f} s"
            + (f" ({drained:.2f} s of it the line's, carrying the rest of the long line)" if drained else ""))
    reply = w.take(REPLY_S, types=("ACCEPT", "REFUSE"))
    require(reply.type == "ACCEPT", f"the frame after the long line was answered {reply.type}")
    return f"{size:,}-byte line: NAK reason={naks[0].message['reason']}; the next frame accepted"


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
    require(naks[0].message["reason"] == "byte-timeout", f"NAK reason={naks[0].message['reason']}, "
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
        if naks and naks[0].message["reason"] == "byte-timeout" and max(gaps) > t.byte:
            # The bench itself did not keep the bytes coming (a loaded machine): try again.
            w.note(f"the bench paused {max(gaps):.3f} s between two bytes; trying again")
            continue
        break
    require(naks, f"no NAK for a frame still unfinished {len(pieces) * step:.2f} s after its '$' "
                  f"(frame timeout {t.frame} s; got {show(got)})")
    require(naks[0].message["reason"] == "frame-timeout",
            f"NAK reason={naks[0].message['reason']} though no gap between bytes exceeded {max(gaps):.3f} s; "
            "section 3 says frame-timeout")
    require(not [m for m in messages(got) if m.type in ("ACCEPT", "REFUSE")], "the cut frame was acted on")
    return f"NAK reason=frame-timeout ({attempt + 1} attempt{'s' if attempt else ''})"


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
    w.collect_until(lambda a: a.message is not None and a.message.type == "ACK" and a.message.seq == seq,
                    ctx.timeouts.response)
    acks = [a for a in of_type(w.arrivals[w.mark:], "ACK") if a.message.seq == seq]
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
    require(naks[0].message["reason"] == "out-of-order" and naks[0].message.seq == last,
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


def _await_message(ctx: Context, types: tuple[str, ...]) -> Arrival:
    """The next controller message of ``types``, NOT acknowledged (others are)."""
    w = ctx.wire
    ends = time.monotonic() + REPLY_S
    while True:
        arrival = w.next(max(0.0, ends - time.monotonic()))
        require(arrival is not None, f"no {' or '.join(types)} within {REPLY_S} s")
        m = arrival.message
        if m is None or m.type in ("ACK", "NAK"):
            continue
        if m.type in types:
            return arrival
        w.ack(m.seq)


@check("resends-on-nak", "§3 Delivery (NAK)", "a NAK naming the message before the outstanding one makes "
       "the controller send it again at once")
def _resend_on_nak(ctx: Context) -> str:
    w = ctx.wire
    _, opened = ctx.hello()
    w.send("WAGER", round=opened["round"], id="n1", bet=ctx.good_bet(), stake=100)
    first = _await_message(ctx, ("ACCEPT", "REFUSE"))
    nak_at = w.now()
    w.nak((first.message.seq - 1) % SEQ_MODULUS)
    again = w.collect(soon(ctx))
    copies = [a for a in again if a.raw == first.raw]
    require(copies, f"not resent within {soon(ctx):.2f} s of the NAK (got {show(again)})")
    w.ack(first.message.seq)
    w.settle(0.05)
    return f"resent {copies[0].at - nak_at:.3f} s after the NAK"


@check("nak-naming-outstanding-acknowledges", "§3 Delivery (NAK)", "a NAK naming the outstanding message "
       "itself counts as its ACK: it is not sent again")
def _nak_is_ack(ctx: Context) -> str:
    w = ctx.wire
    _, opened = ctx.hello()
    w.send("WAGER", round=opened["round"], id="k1", bet=ctx.good_bet(), stake=100)
    first = _await_message(ctx, ("ACCEPT", "REFUSE"))
    w.nak(first.message.seq)
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
    first = _await_message(ctx, ("ACCEPT", "REFUSE"))
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


# -- version 2 ---------------------------------------------------------------------

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
    fresh = {m.seq for m in messages(got)}
    require(fresh, f"nothing said after 5 WAGERs and CLOSE (got {show(got)})")
    require(len(fresh) <= window, f"{len(fresh)} messages in flight unacknowledged, the bench's window is "
                                  f"{window}: {show([a for a in got if a.message is not None and a.message.type != 'ACK'])}")
    w.ack(max(fresh, key=lambda s: (s - min(fresh)) % SEQ_MODULUS))
    more = w.collect(soon(ctx))
    new = {m.seq for m in messages(more)} - fresh
    require(new and len(new) <= window, f"after the ACK, {len(new)} new messages (expected 1 to {window})")
    w.settle(0.3)
    return f"window {window}: {len(fresh)} then {len(new)} in flight"


@check("cumulative-ack", "§9 Version 2 (cumulative ACK)", "one ACK of the last of several messages "
       "acknowledges them all: none is sent again", versions=(2,))
def _cumulative(ctx: Context) -> str:
    w = ctx.wire
    n = ctx.in_flight(4)               # the controller keeps no more in flight than the bench announces
    _, opened = ctx.hello(window=n)
    round_, bet = opened["round"], ctx.good_bet()
    w.write(b"".join(w.frame("WAGER", round=round_, id=f"c{i}", bet=bet, stake=100) for i in range(n)))
    ends, got = time.monotonic() + REPLY_S, []
    while len(messages(got)) < n and time.monotonic() < ends:
        arrival = w.next(0.05)
        if arrival is not None:
            got.append(arrival)
    said = messages(got)
    require(len(said) >= n, f"{n} WAGERs in one write: {len(said)} replies")
    acks = of_type(got, "ACK")
    require(acks and acks[-1].message.seq == hello_seq(w), f"the controller's ACKs {show(acks)}; the last "
                                                           f"must name {hello_seq(w):04d}")
    require(len(acks) <= n, f"{len(acks)} ACKs for {n} messages")
    w.ack(said[n - 1].seq)
    again = w.collect(ctx.timeouts.response + SLACK_S)
    resent = [a for a in again if a.message is not None and a.message.seq in {m.seq for m in said[:n]}]
    require(not resent, f"sent again after a cumulative ACK: {show(resent)}")
    return f"{len(acks)} ACK(s) for {n} messages; one ACK for {n} replies"


@check("go-back-n", "§9 Version 2 (go-back-N)", "a NAK L makes the controller send every message after L "
       "again, in order", versions=(2,))
def _go_back(ctx: Context) -> str:
    w = ctx.wire
    n = ctx.in_flight(3)               # the controller keeps no more in flight than the bench announces
    _, opened = ctx.hello(window=n)
    round_, bet = opened["round"], ctx.good_bet()
    w.write(b"".join(w.frame("WAGER", round=round_, id=f"g{i}", bet=bet, stake=100) for i in range(n)))
    ends, got = time.monotonic() + REPLY_S, []
    while len(messages(got)) < n and time.monotonic() < ends:
        arrival = w.next(0.05)
        if arrival is not None:
            got.append(arrival)
    said = messages(got)
    require(len(said) >= n, f"{n} WAGERs: {len(said)} replies")
    w.nak(said[0].seq, "out-of-order")
    again = w.collect(soon(ctx))
    resent = [m.seq for m in messages(again)]
    expected = [m.seq for m in said[1:n]]
    require(resent[:n - 1] == expected,
            f"after NAK {said[0].seq:04d}: resent {resent}; expected {expected}")
    w.ack(said[n - 1].seq)
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
    lost = _await_message(ctx, ("ACCEPT",))
    w.collect(t.give_up_after() + SLACK_S)                 # unacknowledged until the controller gives up
    w.send("WAGER", round=round_, id="x2", bet=bet, stake=100)
    after = _await_message(ctx, ("ACCEPT",))
    require(after.message.seq == (lost.message.seq + 1) % SEQ_MODULUS,
            f"the next message is numbered {after.message.seq:04d}, after the given-up {lost.message.seq:04d}")
    last = (lost.message.seq - 1) % SEQ_MODULUS
    w.nak(last, "out-of-order")
    again = w.collect(soon(ctx))
    renumbered = [a for a in again if a.message is not None and a.message.type == "ACCEPT"]
    require(renumbered, f"nothing sent again after NAK {last:04d} (got {show(again)})")
    m = renumbered[0].message
    require(m.seq == lost.message.seq and m["id"] == "x2",
            f"after NAK {last:04d} the controller sent {show(renumbered[:1])}; expected ACCEPT id=x2 "
            f"renumbered {lost.message.seq:04d}")
    w.ack(m.seq)
    w.settle(0.05)
    return f"ACCEPT x2 renumbered {after.message.seq:04d} -> {m.seq:04d}"


# -- HELLO ------------------------------------------------------------------------------

@check("hello-version-1", "§9 Versions (negotiation)", "greeted with proto=1, the controller answers in "
       "version 1 (no window); a controller may speak only version 2", versions=(1,), optional=True)
def _hello_v1(ctx: Context) -> str:
    hello, _ = _offer(ctx, 1)
    require("window" not in hello.fields, "a version-1 HELLO carries window=")
    return "answered proto=1"


@check("hello-version-2", "§9 Versions (negotiation)", "greeted with proto=2, the controller answers proto=2 "
       "with a window of 1 to 32 (version 2 is optional)", versions=(2,), optional=True)
def _hello_v2(ctx: Context) -> str:
    hello, _ = _offer(ctx, 2)
    window = hello.get("window", DEFAULT_WINDOW)
    require(1 <= window <= MAX_WINDOW, f"window={window}")
    return f"answered proto=2 window={window}"


def _offer(ctx: Context, proto: int) -> tuple[Message, Message]:
    """HELLO in ``proto``; NotSupported if the controller answers ERROR code=version."""
    try:
        return ctx.hello(proto=proto)
    except CheckFailed as err:
        if "ERROR code=version" in str(err):
            raise NotSupported(f"the controller does not speak version {proto}: {err}") from None
        raise


@check("hello-unknown-version", "§9 Versions (negotiation)", "a HELLO in a version the controller does not "
       "speak is answered ERROR code=version, and a version-1 HELLO then works", versions=ONCE)
def _hello_unknown(ctx: Context) -> str:
    w = ctx.wire
    w.send("HELLO", proto=9, role="bench", sw=software(), game=ctx.game)
    reply = w.take(REPLY_S, types=("ERROR", "HELLO"))
    require(reply.type == "ERROR" and reply["code"] == "version",
            f"answered {reply.type} {dict(reply.fields)}; section 9: ERROR code=version")
    ctx.hello()
    return f"ERROR code=version, then version {ctx.version}"


@check("hello-resent", "§3 Delivery (duplicates), §9 (HELLO)", "the bench's HELLO sent again (its ACK lost) "
       "is ACKed again and starts nothing new")
def _hello_resent(ctx: Context) -> str:
    w = ctx.wire
    fields = dict(proto=ctx.version, role="bench", sw=software(), game=ctx.game)
    if ctx.version == 2:
        fields["window"] = ctx.window
    frame = w.frame("HELLO", **fields)
    w.write(frame)
    hello = w.take(REPLY_S, types=("HELLO",))
    if ctx.version == 2:
        w.version, w.peer_window = 2, hello.get("window") or DEFAULT_WINDOW
    opened = w.take(REPLY_S, types=("OPEN",))
    w.write(frame)
    got = w.collect(ctx.timeouts.response + SLACK_S)
    require([a for a in of_type(got, "ACK") if a.message.seq == int(frame[1:5])], "the copy was not ACKed")
    said = messages(got)
    require(not said, f"the copy started something: {show(got)}")
    reply = ctx.request("WAGER", ("ACCEPT", "REFUSE"), round=opened["round"], id="h1", bet=ctx.good_bet(), stake=100)
    require(reply.type == "ACCEPT" and reply["round"] == opened["round"], f"then: {reply.type}")
    return "ACKed again; the round goes on"


@check("hello-after-restart", "§5 A round (reset), §9 (HELLO)", "a new HELLO numbered 0000 from a bench that "
       "restarted voids the round in flight, opens the next, and the bench's 0001 is taken", layer=SESSION)
def _hello_restart(ctx: Context) -> str:
    w = ctx.wire
    round_, wagers = ctx.to_phase("wagered")
    w.tx_seq = 0
    # Not byte for byte the first HELLO: in version 2 that would be the same
    # HELLO sent again by go-back-N (section 9), not a restart.
    hello, opened = ctx.hello(seed=2)
    said = [m for m in messages(w.arrivals) if m.seq is not None]
    void = _void_messages(said, hello)
    _require_void(void, round_, wagers, opened)
    require(w.tx_seq == 1, "internal: the restarted HELLO was not 0000")
    reply = ctx.request("WAGER", ("ACCEPT", "REFUSE"), round=opened["round"], id="a1", bet=ctx.good_bet(), stake=100)
    require(reply.type == "ACCEPT", f"the bench's 0001 after its restart was answered {reply.type}")
    return f"round {round_} voided, round {opened['round']} opened, 0001 taken"


@check("hello-before-any-wager", "§5 A round (reset)", "a HELLO after OPEN and before any wager voids that "
       "round (no wagers) and opens the next", layer=SESSION)
def _hello_mid_round(ctx: Context) -> str:
    w = ctx.wire
    round_, _ = ctx.to_phase("betting")
    hello, opened = ctx.hello()
    void = _void_messages(messages(w.arrivals), hello)
    _require_void(void, round_, [], opened)
    return f"round {round_} voided (0 wagers), round {opened['round']} opened"


def _hello_in(phase: str):
    def run(ctx: Context) -> str:
        round_, wagers = ctx.to_phase(phase)
        hello, opened = ctx.hello()
        _require_void(_void_messages(messages(ctx.wire.arrivals), hello), round_, wagers, opened)
        return f"round {round_} voided ({phase}), round {opened['round']} opened"
    return run


# A session that meets the controller mid-round (one left on between sessions, section 5):
# after its HELLO the controller only voids the round in flight and opens the next.
for _phase, _what in (("closed", "after no more bets"), ("released", "after the plant was commanded")):
    check(f"hello-{_phase}", "§5 A round (a session against a controller in any state)",
          f"a new HELLO {_what} is answered HELLO, the void of the round (every stake returned, nothing "
          f"else) and the next OPEN", layer=SESSION)(_hello_in(_phase))


def _void_messages(said: list[Message], hello: Message) -> list[Message]:
    """What the controller said after the HELLO ``hello``, up to and including the next OPEN."""
    index = max(i for i, m in enumerate(said) if m is hello or (m.type == "HELLO" and m.seq == hello.seq))
    out = []
    for m in said[index + 1:]:
        out.append(m)
        if m.type == "OPEN":
            break
    return out


def _require_void(void: list[Message], round_: int, wagers, opened: Message) -> None:
    types = [m.type for m in void]
    expected = ["SETTLE"] * len(wagers) + ["SETTLED", "CLEARED", "OPEN"]
    require(types == expected, f"after the HELLO: {' '.join(types)}; section 5 gives {' '.join(expected)}")
    settles = {m["id"]: m["returned"] for m in void if m.type == "SETTLE"}
    require(settles == dict(wagers), f"void SETTLEs {settles}; every stake returned would be {dict(wagers)}")
    settled = void[len(wagers)]
    require(settled["round"] == round_ and settled.get("void") is True and settled["wagers"] == len(wagers)
            and settled["returned"] == sum(s for _, s in wagers),
            f"SETTLED {dict(settled.fields)}; expected round={round_} wagers={len(wagers)} "
            f"returned={sum(s for _, s in wagers)} void=1")
    require(opened["round"] == round_ + 1, f"opened round {opened['round']} after voiding {round_}")


@check("hello-wrong-game", "§9 Versions, §13 ERROR reasons", "a HELLO for another game is answered ERROR "
       "code=game-mismatch", versions=ONCE, layer=SESSION)
def _hello_game(ctx: Context) -> str:
    w = ctx.wire
    other = next(g for g in sorted(game_names()) if g != ctx.game)
    fields = dict(window=ctx.window) if ctx.version == 2 else {}
    w.send("HELLO", proto=ctx.version, role="bench", sw=software(), game=other, **fields)
    reply = w.take(REPLY_S, types=("ERROR", "HELLO"))
    require(reply.type == "ERROR" and reply["code"] == "game-mismatch",
            f"answered {reply.type} {dict(reply.fields)}; section 13: ERROR code=game-mismatch")
    return f"game={other}: ERROR code=game-mismatch"


@check("hello-fields", "§4 Messages (HELLO)", "the controller's HELLO says role=controller, its game, its "
       "paytable if the game has one, and its rules digest (that of the bench's submission)", versions=ONCE,
       layer=SESSION)
def _hello_fields(ctx: Context) -> str:
    hello, _ = ctx.hello()
    require(hello["role"] == "controller", f"role={hello['role']}")
    require(hello["game"] == ctx.game, f"game={hello['game']}, the bench plays {ctx.game}")
    digest = hello.get("rules")
    require(digest is not None, "no rules= (section 4: the submission's digest, or default)")
    expected = rules_digest(ctx.rules)
    require(digest == expected, f"rules={digest}; the bench's submission gives {expected} (section 9: the bench "
                                "refuses a controller that runs other rules)")
    paytable = getattr(ctx.rules, "paytable", None)
    if paytable is not None:
        require(str(hello.get("paytable")) == str(paytable), f"paytable={hello.get('paytable')}, the bench "
                                                             f"judges by {paytable}")
    return f"rules={digest}" + (f" paytable={paytable}" if paytable is not None else "")


@check("hello-with-bench-seed", "§4 Messages (HELLO seed)", "a bench HELLO carrying seed= is taken like any "
       "other", versions=ONCE, layer=SESSION)
def _hello_seed(ctx: Context) -> str:
    ctx.hello(seed=12345)
    return "taken"


# -- RESET ------------------------------------------------------------------------------

def _reset_in(phase: str):
    def run(ctx: Context) -> str:
        w = ctx.wire
        round_, wagers = ctx.to_phase(phase)
        w.send("RESET", reason="conformance", round=round_)
        reset = w.take(REPLY_S, types=("RESET",))
        require(reset.get("round") == round_, f"RESET round={reset.get('round')}, the round in flight is {round_}")
        hello = w.take(REPLY_S, types=("HELLO",))
        require(hello.seq == 0, f"the HELLO after RESET is numbered {hello.seq:04d}; section 3: 0000")
        void = []
        while not void or void[-1].type != "OPEN":
            void.append(w.take(REPLY_S))
        types = [m.type for m in void]
        commands = [t for t in types if t in COMMANDS + ("RESULT",)]
        require(not commands, f"after RESET the controller went on with the round: {' '.join(types)}")
        _require_void(void, round_, wagers, void[-1])
        numbers = [m.seq for m in void]
        require(numbers == list(range(1, len(void) + 1)), f"numbered {numbers} after the HELLO 0000")
        return f"RESET reason={reset['reason']}, HELLO 0000, {' '.join(types)}"
    return run


for _phase, _what in (("betting", "betting open, no wager"), ("wagered", "a wager accepted"),
                      ("closed", "no more bets"), ("released", "the plant commanded")):
    check(f"reset-{_phase}", "§5 A round (reset); §15", f"a RESET from the bench ({_what}) is answered RESET, "
          "HELLO 0000, the round voided (every stake returned) and the next opened", layer=SESSION)(_reset_in(_phase))


# -- REFUSE and ERROR -------------------------------------------------------------------

@check("refuse-reasons", "§13 REFUSE and ERROR reasons", "unknown-bet (citing the rules' clause), bad-stake, "
       "duplicate-id, wrong-round, betting-closed (citing the game's clause)", versions=ONCE, layer=SESSION)
def _refusals(ctx: Context) -> str:
    _, opened = ctx.hello()
    r = opened["round"]
    game = get_game(ctx.game)
    try:
        game.check_bet("no-such-bet", ctx.rules)
        clause = None
    except RulesError as err:
        clause = err.clause
    cases = [("unknown-bet", dict(id="e1", bet="no-such-bet", stake=100, round=r), clause),
             ("bad-stake", dict(id="e2", bet=ctx.good_bet(), stake=0, round=r), None),
             ("wrong-round", dict(id="e3", bet=ctx.good_bet(), stake=100, round=r + 5), None)]
    got = []
    for reason, fields, cited in cases:
        reply = ctx.request("WAGER", ("ACCEPT", "REFUSE"), **fields)
        require(reply.type == "REFUSE" and reply["reason"] == reason,
                f"{fields}: {reply.type} {dict(reply.fields)}; expected REFUSE reason={reason}")
        if cited:
            require(reply.get("clause") == cited, f"REFUSE {reason} cites {reply.get('clause')}, the rules say {cited}")
        got.append(reason)
    ok = ctx.request("WAGER", ("ACCEPT", "REFUSE"), id="e4", bet=ctx.good_bet(), stake=100, round=r)
    require(ok.type == "ACCEPT", f"a good wager: {ok.type}")
    dup = ctx.request("WAGER", ("ACCEPT", "REFUSE"), id="e4", bet=ctx.good_bet(), stake=100, round=r)
    require(dup.type == "REFUSE" and dup["reason"] == "duplicate-id", f"the same id again: {dup.type} "
                                                                      f"{dict(dup.fields)}")
    ctx.request("CLOSE", "NOMORE", round=r)
    late = ctx.request("WAGER", ("ACCEPT", "REFUSE"), id="e5", bet=ctx.good_bet(), stake=100, round=r)
    closing = describe(ctx.game).betting_clause
    require(late.type == "REFUSE" and late["reason"] == "betting-closed" and late.get("clause") == closing,
            f"a wager after NOMORE: {late.type} {dict(late.fields)}; expected REFUSE betting-closed {closing}")
    return ", ".join(got + ["duplicate-id", "betting-closed"])


@check("stake-limits", "§13 REFUSE and ERROR reasons (stake limits)", "stakes of exactly the submission's "
       "minimum and maximum are accepted; one over the maximum, and one under a minimum above 1, are refused "
       "bad-stake citing 601a.2", versions=ONCE)
def _stake_limits(ctx: Context) -> str:
    _, opened = ctx.hello()
    r, bet = opened["round"], ctx.good_bet()
    low, high = getattr(ctx.rules, "min_stake", DEFAULT_MIN_STAKE), getattr(ctx.rules, "max_stake", DEFAULT_MAX_STAKE)
    for i, stake in enumerate((low, high), start=1):
        reply = ctx.request("WAGER", ("ACCEPT", "REFUSE"), id=f"k{i}", bet=bet, stake=stake, round=r)
        require(reply.type == "ACCEPT", f"a stake of {stake} (the limits are {low} to {high}): {reply.type} "
                                        f"{dict(reply.fields)}; 601a.2: the submission's limits allow it")
    outside = [high + 1] + ([low - 1] if low > 1 else [])
    for i, stake in enumerate(outside, start=3):
        reply = ctx.request("WAGER", ("ACCEPT", "REFUSE"), id=f"k{i}", bet=bet, stake=stake, round=r)
        require(reply.type == "REFUSE" and reply["reason"] == "bad-stake" and reply.get("clause") == LIMITS_CLAUSE,
                f"a stake of {stake} (the limits are {low} to {high}): {reply.type} {dict(reply.fields)}; "
                f"expected REFUSE reason=bad-stake clause={LIMITS_CLAUSE}")
    return f"{low} and {high} accepted; {', '.join(map(str, outside))} refused bad-stake {LIMITS_CLAUSE}"


@check("error-reasons", "§13 REFUSE and ERROR reasons", "TRIGGER during betting gives ERROR out-of-turn; an "
       "impossible reading gives ERROR bad-sensor; the round then goes on", versions=ONCE, layer=SESSION)
def _errors(ctx: Context) -> str:
    round_, _ = ctx.to_phase("betting")
    err = ctx.request("TRIGGER", ("ERROR",) + COMMANDS, round=round_)
    require(err.type == "ERROR" and err["code"] == "out-of-turn", f"TRIGGER in betting: {err.type} "
                                                                  f"{dict(err.fields)}")
    ctx.request("CLOSE", "NOMORE", round=round_)
    if describe(ctx.game).lightning:
        ctx.wire.take(REPLY_S, types=("LUCKY",))
    command = ctx.request("TRIGGER", COMMANDS, round=round_)
    bad = ctx.reading(round_, command)
    if "pocket" in bad:
        bad["pocket"] = 37
    else:
        bad["dice"] = (7,) + tuple(bad["dice"][1:])
    err = ctx.request("SENSOR", ("ERROR", "RESULT", "NOROLL"), **bad)
    require(err.type == "ERROR" and err["code"] == "bad-sensor", f"an impossible reading: {err.type} "
                                                                 f"{dict(err.fields)}")
    result = ctx.request("SENSOR", ("RESULT", "NOROLL", "ERROR"), **ctx.reading(round_, command))
    require(result.type == "RESULT", f"the good reading then: {result.type} {dict(result.fields)}")
    return "out-of-turn, bad-sensor; the round went on"


def by_name() -> dict[str, Check]:
    return {c.name: c for c in CHECKS}


__all__ = ["CHECKS", "Check", "CheckFailed", "Context", "by_name"]
