"""Checks that judge one round watched (``observe_round``): every frame valid
(section 2), every message acknowledged once (section 3), numbered one by one,
and the round's state chart (section 12)."""

from __future__ import annotations

from bench.conformance.wire import seq_of
from bench.protocol import Rejected
from bench.protocol.frame import SEQ_MODULUS
from bench.protocol.session import WINDOW
from bench.rules import describe
from bench.conformance.checks.core import (SESSION, SHOWN, check, Context, of_type, require, show)
from bench.conformance.checks.observe import observe_round


@check("frames-valid", "§2 Frames", "every frame the controller sends over a round decodes: syntax, CRC, "
       "length, CR LF")
def _frames_valid(ctx: Context) -> str:
    seen = observe_round(ctx)
    require(seen.arrivals, "the controller said nothing")
    bad = [a.item for a in seen.arrivals if isinstance(a.item, Rejected)]
    require(not bad, f"the bench rejected {len(bad)}: " + "; ".join(
        f"{item.reason}: {item.detail} ({item.raw[:60]!r})" for item in bad[:SHOWN])
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
    acks = [(a.at, a.seq) for a in of_type(seen.arrivals, "ACK")]
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
        key = (seq_of(m), a.raw)
        if key in first:
            # A resend is due after the response timeout, or after a NAK of
            # ours (one sent a little before the first copy arrived counts).
            prompted = any(first[key] - ctx.timeouts.response <= at <= a.at for at in ctx.wire.naks_sent)
            if not prompted and a.at - first[key] < ctx.timeouts.response / 2:
                problems.append(f"{m.type} {m.seq:04d} sent again {a.at - first[key]:.3f} s after the first "
                                f"copy, though acknowledged and not NAKed")
            continue
        first[key] = a.at
        if m.type == "HELLO" and key[0] not in epoch:
            epoch = []
            runs.append(epoch)
        epoch.append(key[0])
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

