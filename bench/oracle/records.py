"""What the oracle reports (a violation, a round's summary) and what it keeps
while a round is in play."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.errors import RulesError
from bench.rules import Lucky, Wager


@dataclass(frozen=True)
class Violation:
    round: int | None
    clause: str          # e.g. "625b.2(d)(5)"; protocol-order problems cite the clause ordering the phase
    frame: int | None    # 0-based index of the offending observe() call
    message: str         # what was expected, what was seen


@dataclass(frozen=True, slots=True)    # slots: one is kept for every round of a session, 20,000 of them or more
class RoundSummary:
    round: int
    outcome: object          # dice tuple, pocket, or tuple of Dice-Ology rolls; None if none was reached
    no_roll: bool
    lucky: tuple[Lucky, ...]
    staked: int              # the accepted wagers' stakes
    returned: int            # what the controller handed back (its SETTLE frames)
    expected: int            # what bench.rules says it should have (wagers it could judge)
    wagers: int              # accepted wagers
    violations: int          # violations naming this round
    throws: tuple = ()       # the plant's readings the round was judged on (SENSOR fields: dice, flat, pocket)


@dataclass(slots=True)
class Placement:
    wager: Wager
    round: object
    late: bool                      # placed after the bench's CLOSE or the controller's NOMORE
    problem: RulesError | None      # why the rules would refuse it anyway
    ask: int


@dataclass(slots=True)
class Ask:
    what: str
    mono: float
    frame: int
    seq: object           # the bench's frame that asks (its retransmission restarts the clock); None: none
    clause: str
    late: str | None = None     # what a late reply is called, if not "no reply to WHAT"


@dataclass
class RoundState:
    number: int
    close_sent: bool = False
    nomore: bool = False
    lucky: tuple[Lucky, ...] | None = None
    lucky_lawful: bool = False
    missing_lucky_reported: bool = False
    trigger_armed: bool = False
    rethrow_armed: bool = False     # Sic Bo / Dice-Ology after a no roll: thrown again unasked
    reading: object = None          # the SENSOR the bench sent for the last command
    commands: int = 0
    resolved: bool = False          # one-throw games: the outcome is known, settlement may begin
    outcome: object = None
    no_roll: bool = False
    rolls: list = field(default_factory=list)
    throws: list = field(default_factory=list)       # SENSOR readings answered by a RESULT or NOROLL
    placed_ids: set = field(default_factory=set)
    accepted: dict = field(default_factory=dict)     # id -> Wager
    counting_from: dict = field(default_factory=dict)
    expected: dict = field(default_factory=dict)     # id -> Settlement | None (resolved per the rules)
    settled: dict = field(default_factory=dict)      # id -> returned, as the controller sent it
    flagged: set = field(default_factory=set)        # wagers already reported as kept open
    # Dice-Ology: a RESULT whose ``open`` count keeps resolved bets open; judged
    # once the roll's SETTLEs are in, when it is known WHICH bets were kept.
    count_claim: tuple | None = None                 # (frame, said, rules' count, resolved wager ids)
    settled_seen: bool = False
    cleared: bool = False
    early_clear_reported: bool = False
    complete: bool = False
    active: bool = False            # anything beyond OPEN happened
