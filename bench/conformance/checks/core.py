"""What every conformance check shares: the ``Check`` record and its registry
(``check``), the ``Context`` a check gets (a fresh wire, the version, what the
bench knows of the controller) and small helpers for judging arrivals."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Callable

from bench.conformance.speed import CheckLine
from bench.conformance.wire import Arrival, CheckFailed, Wire, seq_of
from bench.protocol import Message, Timeouts
from bench.protocol.frame import SEQ_MODULUS
from bench.protocol.messages import COMMANDS
from bench.protocol.timeouts import DEFAULT_REPLY_S
from bench.protocol.session import DEFAULT_WINDOW
from bench.rules import describe, get_game

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

    def request(self, type_: str, reply: str | tuple[str, ...], **fields) -> Message:
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


def require(condition: object, message: str) -> None:
    """Fail the check with ``message`` unless ``condition`` holds (is truthy:
    a non-empty list of the arrivals looked for counts)."""
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



def hello_seq(w: Wire) -> int:
    """The number of the bench's last message (the HELLO right after ``hello``)."""
    return (w.tx_seq - 1) % SEQ_MODULUS


def await_message(ctx: Context, types: tuple[str, ...]) -> Arrival:
    """The next controller message of ``types``, NOT acknowledged (others are)."""
    w = ctx.wire
    ends = time.monotonic() + REPLY_S
    while True:
        arrival = w.next(max(0.0, ends - time.monotonic()))
        if arrival is None:
            raise CheckFailed(f"no {' or '.join(types)} within {REPLY_S} s")
        m = arrival.message
        if m is None or m.type in ("ACK", "NAK"):
            continue
        if m.type in types:
            return arrival
        w.ack(seq_of(m))
