"""A RESET from the bench in each phase of a round (sections 5 and 15)."""

from __future__ import annotations

from bench.protocol import Message
from bench.protocol.messages import COMMANDS

from bench.conformance.checks.core import (REPLY_S, SESSION, check, Context, require)
from bench.conformance.checks.hello import require_void


def _reset_in(phase: str):
    def run(ctx: Context) -> str:
        w = ctx.wire
        round_, wagers = ctx.to_phase(phase)
        w.send("RESET", reason="conformance", round=round_)
        reset = w.take(REPLY_S, types=("RESET",))
        require(reset.get("round") == round_, f"RESET round={reset.get('round')}, the round in flight is {round_}")
        hello = w.take(REPLY_S, types=("HELLO",))
        require(hello.seq == 0, f"the HELLO after RESET is numbered {hello.seq:04d}; section 3: 0000")
        void: list[Message] = []
        while not void or void[-1].type != "OPEN":
            void.append(w.take(REPLY_S))
        types = [m.type for m in void]
        commands = [t for t in types if t in COMMANDS + ("RESULT",)]
        require(not commands, f"after RESET the controller went on with the round: {' '.join(types)}")
        require_void(void, round_, wagers, void[-1])
        numbers = [m.seq for m in void]
        require(numbers == list(range(1, len(void) + 1)), f"numbered {numbers} after the HELLO 0000")
        return f"RESET reason={reset['reason']}, HELLO 0000, {' '.join(types)}"
    return run


for _phase, _what in (("betting", "betting open, no wager"), ("wagered", "a wager accepted"),
                      ("closed", "no more bets"), ("released", "the plant commanded")):
    check(f"reset-{_phase}", "§5 A round (reset); §15", f"a RESET from the bench ({_what}) is answered RESET, "
          "HELLO 0000, the round voided (every stake returned) and the next opened", layer=SESSION)(_reset_in(_phase))

