"""The session's start (sections 4, 5 and 9): HELLO in each version and in any
phase of a round, the void it brings, its fields and seed."""

from __future__ import annotations

from typing import Any

from bench.conformance.wire import CheckFailed, NotSupported
from bench.protocol.greeting import rules_digest
from bench.protocol import Message
from bench.protocol.session import DEFAULT_WINDOW, MAX_WINDOW
from bench.rules import game_names
from bench.conformance.checks.core import (ONCE, REPLY_S, SESSION, SLACK_S, check, Context, messages, of_type,
                                           require, show, software)


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
    fields: dict[str, Any] = dict(proto=ctx.version, role="bench", sw=software(), game=ctx.game)
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
    require([a for a in of_type(got, "ACK") if a.seq == int(frame[1:5])], "the copy was not ACKed")
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
    void = void_messages(said, hello)
    require_void(void, round_, wagers, opened)
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
    void = void_messages(messages(w.arrivals), hello)
    require_void(void, round_, [], opened)
    return f"round {round_} voided (0 wagers), round {opened['round']} opened"


def _hello_in(phase: str):
    def run(ctx: Context) -> str:
        round_, wagers = ctx.to_phase(phase)
        hello, opened = ctx.hello()
        require_void(void_messages(messages(ctx.wire.arrivals), hello), round_, wagers, opened)
        return f"round {round_} voided ({phase}), round {opened['round']} opened"
    return run


# A session that meets the controller mid-round (one left on between sessions, section 5):
# after its HELLO the controller only voids the round in flight and opens the next.
for _phase, _what in (("closed", "after no more bets"), ("released", "after the plant was commanded")):
    check(f"hello-{_phase}", "§5 A round (a session against a controller in any state)",
          f"a new HELLO {_what} is answered HELLO, the void of the round (every stake returned, nothing "
          f"else) and the next OPEN", layer=SESSION)(_hello_in(_phase))


def void_messages(said: list[Message], hello: Message) -> list[Message]:
    """What the controller said after the HELLO ``hello``, up to and including the next OPEN."""
    index = max(i for i, m in enumerate(said) if m is hello or (m.type == "HELLO" and m.seq == hello.seq))
    out = []
    for m in said[index + 1:]:
        out.append(m)
        if m.type == "OPEN":
            break
    return out


def require_void(void: list[Message], round_: int, wagers, opened: Message) -> None:
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

