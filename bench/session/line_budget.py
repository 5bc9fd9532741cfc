"""Will a session's rounds fit its line? Worked out before the first round,
from the frames the bench will send and the controller will answer with,
byte for byte (every planned message encoded as the codec would):

- betting (625b.2(d)(1), the ``betting`` phase): the players' WAGERs and the
  probe wagers one way, an ACCEPT or REFUSE for each the other way, and the
  ACK of every message;
- settlement (the ``result`` and ``clear`` phases, between the outcome and
  the next OPEN): RESULT, a SETTLE per accepted wager, SETTLED, CLEARED and
  OPEN, and their ACKs;
- every frame with its ACK within the link's timeouts, and the window each
  side may keep in flight (``bench.protocol.line_speed.Line``).

Each exchange may fill ``SAFETY`` of its phase. In protocol version 2 the
two directions run at once (the slower one is the time); in version 1 each
message waits for its ACK, so both directions' bytes are counted. When the
players' wagers do not fit, the bench places as many as do, a turning slice
of the players' list each round (``SlicedPlayers``: covering play covers the
layout over a few rounds instead of every round); when not even one wager
and the probes fit, or a frame cannot cross within the timeouts, the session
is refused at once, naming the budget (docs/protocol.md section 17).
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.play.probe_wagers import probe_wagers
from bench.protocol import make
from bench.protocol.line_speed import SAFETY, Line, LineError
from bench.protocol.messages import BENCH, CONTROLLER
from bench.rules import Wager, describe, get_game
from tablebench_io.commandline import doc_ref

PLANNED_ROUND = 999_999        # a round number as long as a session's may get
LATE_ID = "r999999late"
_MAX_PAYS = 1000               # a returned amount is at most this many times the stake (999 to 1 and the stake)
_LONG_CLAUSE = "20:18:33:14(1)(d)"   # as long as any clause a REFUSE cites


@dataclass(frozen=True)
class Exchange:
    """One phase's traffic: bytes each way and the seconds the line needs."""
    to_controller: int
    to_bench: int
    seconds: float
    phase_s: float

    @property
    def margin(self) -> float:
        """The share of the phase left over (negative: it does not fit)."""
        return 1 - self.seconds / self.phase_s if self.phase_s > 0 else float("-inf")

    def to_json(self) -> dict:
        return {"to_controller": self.to_controller, "to_bench": self.to_bench, "seconds": round(self.seconds, 3),
                "phase_s": self.phase_s, "margin": round(self.margin, 3)}


@dataclass(frozen=True)
class Budget:
    line: Line
    window: int                  # messages each side may keep in flight (version 2)
    wagers_per_round: int        # the players' wagers placed each round (after sizing)
    wagers_wanted: int           # what the players would place without the line's limit
    betting: Exchange
    settlement: Exchange
    largest_frame: int

    @property
    def sized(self) -> bool:
        return self.wagers_per_round < self.wagers_wanted

    def to_json(self) -> dict:
        return {"baud": self.line.baud, "window": self.window, "wagers_per_round": self.wagers_per_round,
                "wagers_wanted": self.wagers_wanted, "largest_frame": self.largest_frame,
                "betting": self.betting.to_json(), "settlement": self.settlement.to_json()}

    def words(self) -> str:
        sized = (f", {self.wagers_per_round} of the players' {self.wagers_wanted} wagers a round (a turning slice)"
                 if self.sized else "")
        return (f"line {self.line.baud} baud: window {self.window}{sized}; betting {self.betting.seconds:.1f} s "
                f"of {self.betting.phase_s:g} s, settlement {self.settlement.seconds:.1f} s of "
                f"{self.settlement.phase_s:g} s")


class SlicedPlayers:
    """At most ``per_round`` of the players' wagers a round: a slice that
    turns with the round, so that over a few rounds every wager of the list
    is played (the cover spreads across rounds)."""
    covers_layout = False        # a round holds a slice: a probe round places the probe's own bets

    def __init__(self, players, per_round: int):
        self.players = players
        self.per_round = per_round

    def wagers(self, session_seed: int, round_no: int) -> list[Wager]:
        full = self.players.wagers(session_seed, round_no)
        if len(full) <= self.per_round:
            return full
        start = ((round_no - 1) * self.per_round) % len(full)
        return (full + full)[start:start + self.per_round]

    @property
    def bets(self):
        return self.players.bets

    @property
    def stakes(self):
        return self.players.stakes


def plan(line: Line, *, game: str, rules, players, phases, version: int, probe_wagers_on: bool = True,
         session_seed: int = 0, adapter=None) -> Budget:
    """The budget of a session's rounds on ``line``, in the frames of the
    controller's wire format (``adapter``; the bench's own by default);
    LineError when they cannot fit."""
    from bench.adapters.native import Native
    adapter = adapter or Native()
    codecs = {BENCH: adapter.codec(game, BENCH), CONTROLLER: adapter.codec(game, CONTROLLER)}
    seq = codecs[BENCH].seq_modulus - 1            # a number of the most digits
    ack_bytes = len(codecs[BENCH].ack(seq))        # one ACK, in this format
    descriptor = describe(game)
    size = lambda m: len(codecs[_SENDER[m.type]].encode(m, seq))   # noqa: E731
    r = PLANNED_ROUND
    wanted = players.wagers(session_seed, 1)
    if not wanted:
        raise LineError("the players place no wager")
    unlawful = [p.wager for p in probe_wagers(game, rules, 1, wanted)] if probe_wagers_on else []
    wager_bytes = max(size(make("WAGER", round=r, id=w.id, bet=w.bet, stake=w.stake)) for w in wanted)
    accept = max(size(make("ACCEPT", round=r, id=w.id)) for w in wanted)
    settle = max(size(make("SETTLE", round=r, id=w.id, returned=w.stake * _MAX_PAYS)) for w in wanted)
    unlawful_bytes = sum(size(make("WAGER", round=r, id=w.id, bet=w.bet, stake=w.stake)) for w in unlawful)
    refused = sum(size(make("REFUSE", round=r, id=w.id, reason="betting-closed", clause=_LONG_CLAUSE))
                  for w in [*unlawful, Wager(LATE_ID, "x", 1)])
    late = size(make("WAGER", round=r, id=LATE_ID, bet=wanted[0].bet, stake=wanted[0].stake))
    lucky_count = (get_game(game).lucky_count_range or (0, 0))[1] if descriptor.lightning else 0
    lucky = size(make("LUCKY", round=r, lucky=tuple(_longest_lucky(game) for _ in range(lucky_count)))) \
        if lucky_count else 0
    fixed_bench = sum(size(make(t, round=r)) for t in ("CLOSE", "TRIGGER")) + late + _sensor(size, descriptor, r)
    command = make(descriptor.command, round=r, **descriptor.outcome.largest_command())
    fixed_controller = (sum(size(make(t, round=r)) for t in ("NOMORE", "CLEARED", "OPEN")) + size(command)
                        + lucky + _result(size, descriptor, r))
    settled = size(make("SETTLED", round=r, wagers=len(wanted), returned=10**15 - 1))
    largest = max(wager_bytes, accept, settle, lucky, settled, late, *(size(make("REFUSE", round=r, id=w.id,
                  reason="betting-closed", clause=_LONG_CLAUSE)) for w in unlawful[:1]))
    problems = line.problems(largest, ack_bytes)
    if problems:
        raise LineError(f"at {line.baud} baud {'; '.join(problems)} ({doc_ref('protocol', 17)})")

    def exchanges(n: int) -> tuple[Exchange, Exchange]:
        to_c = n * wager_bytes + unlawful_bytes + (n + len(unlawful)) * ack_bytes
        to_b = n * accept + refused + (n + len(unlawful)) * ack_bytes
        betting = _exchange(line, version, to_c, to_b, phases.betting_s)
        settle_b = n * settle + settled + fixed_controller
        settle_c = (n + 4) * ack_bytes + fixed_bench
        return betting, _exchange(line, version, settle_c, settle_b, phases.result_s + phases.clear_s)

    n = len(wanted)
    while n >= 1 and any(e.seconds > e.phase_s * SAFETY for e in exchanges(n)):
        n -= 1
    if n < 1:
        betting, settlement = exchanges(1)
        worst = betting if betting.margin < settlement.margin else settlement
        what = "betting" if worst is betting else "settlement (result and clear)"
        raise LineError(f"at {line.baud} baud ({line.bytes_per_s:.0f} bytes a second) a round with one wager "
                        f"and the probe wagers needs {worst.seconds:.1f} s of line in its {what} phase of "
                        f"{worst.phase_s:g} s, over the {SAFETY:.0%} the line budget allows ({doc_ref('protocol', 17)}); "
                        f"use a faster line, longer phases (--phase), or --no-probe-wagers")
    betting, settlement = exchanges(n)
    return Budget(line, line.window(largest, ack_bytes), n, len(wanted), betting, settlement, largest)


# Who writes each message a round's budget counts.
_SENDER = {**dict.fromkeys(("WAGER", "CLOSE", "TRIGGER", "SENSOR"), BENCH),
           **dict.fromkeys(("ACCEPT", "REFUSE", "NOMORE", "LUCKY", "RELEASE", "SPIN", "ROLL", "RESULT", "SETTLE",
                            "SETTLED", "CLEARED", "OPEN"), CONTROLLER)}


def _exchange(line: Line, version: int, to_controller: int, to_bench: int, phase_s: float) -> Exchange:
    carried = max(to_controller, to_bench) if version >= 2 else to_controller + to_bench
    return Exchange(to_controller, to_bench, line.seconds(carried), phase_s)


def _longest_lucky(game: str):
    from bench.rules import Lucky
    return Lucky(describe(game).outcome.widest_lucky, 999)


def _sensor(size, descriptor, r: int) -> int:
    return size(make("SENSOR", **descriptor.outcome.largest_sensor(r)))


def _result(size, descriptor, r: int) -> int:
    return size(make("RESULT", **descriptor.outcome.largest_result(r)))
