"""The conformance checks of the raw RNG exchange (docs/protocol.md, "18. Raw
RNG output"): an optional test-mode feature, so a controller that does not
offer it (ERROR code=unexpected) is SKIPped, and one that offers it wrongly
fails. They are checks of this document's own messages (layer LINK): through
an adapter, whose wire format maps RNGREQ and RNGDATA or not, they are not
run (bench.conformance.suite.checks_for). Registered in ``CHECKS`` by importing this module (bench.conformance.suite)."""

from __future__ import annotations

from bench.conformance.checks import REPLY_S, Context, check, require
from bench.conformance.wire import NotSupported
from bench.emulator.rng_misbehaviours import RNG_BATCH

SECTION = "§18 Raw RNG output"
NOT_OFFERED = ("unexpected", "unknown", "unknown-type", "unsupported")


def _ask(ctx: Context, kind: str, count: int, **fields):
    try:
        reply = ctx.request("RNGREQ", ("RNGDATA", "ERROR"), kind=kind, count=count, **fields)
    except ValueError as err:        # an adapter's wire format with no RNGREQ (docs/adapters.md)
        raise NotSupported(f"the wire format cannot carry the raw RNG exchange: {err}") from None
    assert reply is not None        # a reply type was asked for: request waits for it or fails the check
    if reply.type == "ERROR" and reply["code"] in NOT_OFFERED:
        raise NotSupported(f"the controller does not offer the raw RNG exchange: ERROR code={reply['code']}")
    return reply


def _lucky_range(ctx: Context) -> int:
    lucky = getattr(ctx.rules, "lucky", None)
    return len(lucky.positions) if lucky is not None else 2


@check("rng-exchange", SECTION, "outside play, RNGREQ kind=raw and kind=scaled are answered with RNGDATA of the "
       f"kind, count and range asked (at most {RNG_BATCH} values), every value in range", optional=True)
def _exchange(ctx: Context) -> str:
    ctx.hello()
    raw = _ask(ctx, "raw", RNG_BATCH)
    require(raw.type == "RNGDATA", f"RNGREQ kind=raw answered with ERROR code={raw.get('code')}")
    require(raw["kind"] == "raw" and raw["count"] == RNG_BATCH == len(raw["values"]),
            f"asked for {RNG_BATCH} raw words, got kind={raw['kind']} count={raw['count']} "
            f"with {len(raw['values'])} values")
    require(all(0 <= v < 1 << 32 for v in raw["values"]), f"a raw word outside 32 bits: {raw['values']}")
    size = _lucky_range(ctx)
    scaled = _ask(ctx, "scaled", RNG_BATCH, range=size)
    require(scaled.type == "RNGDATA", f"RNGREQ kind=scaled answered with ERROR code={scaled.get('code')}")
    require(scaled["kind"] == "scaled" and scaled.get("range") == size and len(scaled["values"]) == RNG_BATCH,
            f"asked for {RNG_BATCH} values scaled onto 0..{size - 1}, got kind={scaled['kind']} "
            f"range={scaled.get('range')} with {len(scaled['values'])} values")
    require(all(0 <= v < size for v in scaled["values"]), f"a scaled value outside 0..{size - 1}: {scaled['values']}")
    again = _ask(ctx, "raw", RNG_BATCH)
    require(again.type == "RNGDATA" and again["values"] != raw["values"],
            "the next raw words repeat the first batch: the generator does not move on")
    return f"{RNG_BATCH} raw words, {RNG_BATCH} values on 0..{size - 1}, and the stream moves on"


@check("rng-exchange-not-in-play", SECTION, "with a wager in the round, RNGREQ is refused (ERROR code=in-play): "
       "the RNG is tested outside play", optional=True)
def _not_in_play(ctx: Context) -> str:
    round_, _ = ctx.to_phase("wagered")
    reply = _ask(ctx, "raw", 1)
    require(reply.type == "ERROR" and reply["code"] == "in-play",
            f"a wager accepted in round {round_}, RNGREQ was answered with {reply.type} "
            f"{reply.get('code') or reply.get('values')}")
    ctx.wire.settle(REPLY_S / 10)
    return "refused with ERROR code=in-play"
