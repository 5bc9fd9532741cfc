"""REFUSE and ERROR reasons and the stake limits (section 13)."""

from __future__ import annotations

from bench.errors import RulesError
from bench.protocol.messages import COMMANDS
from bench.rules import describe, get_game
from bench.rules.submission import DEFAULT_MAX_STAKE, DEFAULT_MIN_STAKE, LIMITS_CLAUSE
from bench.conformance.checks.core import (ONCE, REPLY_S, SESSION, check, Context, require)


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

