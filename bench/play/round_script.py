"""One round on the wire, from the bench's CLOSE to the controller's CLEARED:
the one sequence both bench-side drivers play.

The simpy cycle of ``bench run`` (``bench.session.cycle``) and the Gherkin scenarios'
controller table (``bench.scenarios.controller_table``) differ in where wagers and
readings come from and in what the table's time is (simpy's clock, or none);
the order of messages in a round is the protocol's (docs/protocol.md) and is
written here once:

    CLOSE [late WAGER] -> NOMORE [its reply] -> LUCKY (lightning games)
    -> TRIGGER -> (RELEASE | SPIN | ROLL -> SENSOR -> RESULT | NOROLL)...
    -> SETTLE... SETTLED, CLEARED

``RoundScript.steps`` is a generator: it talks to the controller through the
driver's ``Talk`` and hands the driver what only the driver can do, as the
values it yields:

- ``Pause(phase)``: the table's time passes (the cycle waits that phase's
  length of ``bench.session.cycle.Phases``; the scenarios' table has no clock);
- ``ReadingWanted(command, attempt, refused)``: the controller commanded the
  plant; the driver sends back the ``Reading`` to report (the cycle's plant,
  the scenario's outcome). Asked again, with the controller's ERROR in
  ``refused``, when the controller refused the last one;
- ``NextRoll(result)``: a game of rolls (Dice-Ology) has wagers still open
  after a roll; resuming throws the next one. A driver may also leave the
  round there (a scenario's rolls are thrown) and resume it later.

The script does not judge: every frame goes past the oracle on its way
through the session (``bench.journal.recorder``). It only stops when the controller
does not play its part: a reply that does not come raises the driver's own
error (``Talk.expect``), and a round that never ends raises ``NoResult``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generator, Iterable, Protocol

from bench.play.plant import Reading
from bench.protocol import Message

# Releases in one round before giving up: Sic Bo re-shakes after a no roll; a
# Dice-Ology sequence ends at the first seven (P(no seven in 500 rolls) < 1e-39).
MAX_ATTEMPTS = 500
COMMANDS = ("RELEASE", "SPIN", "ROLL")   # any of them answers TRIGGER; the oracle judges which one was due


class Talk(Protocol):
    """The driver's side of the link: what a reply that does not come raises
    is the driver's to choose (a failed round, a scenario's error)."""

    def send(self, type_: str, **fields: Any) -> Message: ...

    def expect(self, *types: str) -> Message: ...

    def reply_to(self, wager_id: str) -> Message: ...


@dataclass(frozen=True)
class Pause:
    """The table's time passes: ``lucky`` (the Lucky Numbers are displayed,
    625b.2(d)(2)), ``result`` (the outcome is announced)."""
    phase: str


@dataclass(frozen=True)
class ReadingWanted:
    """The controller's RELEASE / SPIN / ROLL: the driver answers with the
    plant's ``Reading``. ``attempt`` counts the commands of the round from 0;
    ``refused`` is the controller's ERROR for the reading last sent."""
    command: Message
    attempt: int
    refused: Message | None = None


@dataclass(frozen=True)
class NextRoll:
    """A roll left wagers open (its RESULT's ``open``); resuming throws the next."""
    result: Message


class NoResult(Exception):
    """``MAX_ATTEMPTS`` commands of the plant and still no result that ends the round."""


@dataclass(frozen=True)
class LateWager:
    """The wager the bench places right behind its CLOSE: a compliant
    controller refuses it; the oracle, which counts a wager as late from the
    bench's CLOSE, flags an ACCEPT."""
    id: str
    bet: str
    stake: int


Step = Pause | ReadingWanted | NextRoll


@dataclass
class RoundScript:
    talk: Talk
    descriptor: Any                       # bench.rules.descriptor.GameDescriptor
    round: int
    late_wager: LateWager | None = None
    accepted: Iterable[str] = ()          # ids of the wagers the controller accepted while betting was open
    lucky: tuple = ()                     # the LUCKY message's entries, once revealed
    late_reply: Message | None = None
    outcome: Message | None = None        # the last RESULT or NOROLL
    settled: dict[str, int] = field(default_factory=dict)   # wager id -> returned, from SETTLE frames
    closing: list[str] = field(default_factory=list)        # SETTLE, SETTLED, CLEARED, as they came
    finished: bool = False                # CLEARED has come
    stale: list[str] = field(default_factory=list)          # messages of earlier rounds passed over

    def __post_init__(self) -> None:
        self.unsettled: set[str] = set(self.accepted)

    @property
    def no_roll(self) -> bool:
        return self.outcome is not None and self.outcome.type == "NOROLL"

    def steps(self) -> Generator[Step, Reading | None, None]:
        yield from self._close()
        yield from self._plant()
        self._until_cleared()

    def _expect(self, *types: str) -> Message:
        """The next of ``types`` that belongs to this round. One of an earlier
        round is passed over: a round voided by a RESET or a new HELLO is
        settled and cleared by the controller after the bench has moved on,
        and its SETTLED must not be taken for this round's (the oracle has
        judged it on its way in). Each wait is the driver's, so bounded."""
        while True:
            message = self.talk.expect(*types)
            if message.round is None or message.round >= self.round:
                return message
            self.stale.append(message.type)

    def _close(self) -> Generator[Step, Any, None]:
        """No more bets; then the RNG reveals the Lucky Numbers (625b.2(d)(2), 617c.3(d))."""
        talk = self.talk
        talk.send("CLOSE", round=self.round)
        late = self.late_wager
        if late is not None:
            # Right behind CLOSE: the controller takes them in order.
            talk.send("WAGER", round=self.round, id=late.id, bet=late.bet, stake=late.stake)
        self._expect("NOMORE")
        if late is not None:
            self.late_reply = talk.reply_to(late.id)
            if self.late_reply.type == "ACCEPT":
                self.unsettled.add(late.id)
        if self.descriptor.lightning:
            self.lucky = tuple(self._expect("LUCKY")["lucky"])
            yield Pause("lucky")

    def _plant(self) -> Generator[Step, Any, None]:
        """The dealer triggers (625b.2(d)(3)); the plant comes to rest
        ((d)(4)); the controller calls the result or no roll ((d)(5))."""
        talk, descriptor = self.talk, self.descriptor
        talk.send("TRIGGER", round=self.round)
        for attempt in range(MAX_ATTEMPTS):
            command = self._expect(*COMMANDS)
            reading = yield ReadingWanted(command, attempt)
            while True:
                talk.send("SENSOR", **sensor_fields(self.round, descriptor, reading, command.get("roll")))
                self.outcome = self._expect("RESULT", "NOROLL", "ERROR")
                if self.outcome.type != "ERROR":
                    break
                reading = yield ReadingWanted(command, attempt, refused=self.outcome)
            yield Pause("result")
            if self.outcome.type == "NOROLL":
                if descriptor.outcome.no_roll_ends_round():
                    return              # Lightning Dice: every wager is returned, 625b.2(d)(5)
                continue                # the controller commands the dice again
            if (self.outcome.get("open") or 0) > 0:    # a roll series: side bets still up after this roll
                yield NextRoll(self.outcome)
                talk.send("TRIGGER", round=self.round)   # the next roll of the sequence
                continue
            return
        raise NoResult(f"round {self.round}: no result after {MAX_ATTEMPTS} releases")

    def settles(self, count: int) -> None:
        """Take ``count`` SETTLE frames (a roll's resolved wagers)."""
        for _ in range(count):
            self._settle(self._expect("SETTLE"))

    def _settle(self, message: Message) -> None:
        self.settled[message["id"]] = message["returned"]
        self.unsettled.discard(message["id"])

    def _until_cleared(self) -> None:
        """Settlement, then the dice or ball are cleared (625b.2(d)(6)): every
        SETTLE up to both SETTLED and CLEARED, in whatever order they come."""
        seen: set[str] = set()
        while not {"SETTLED", "CLEARED"} <= seen:
            message = self._expect("SETTLE", "SETTLED", "CLEARED")
            self.closing.append(message.type)
            seen.add(message.type)
            if message.type == "SETTLE":
                self._settle(message)
        self.finished = True


def sensor_fields(round_no: int, descriptor, reading: Reading, roll: int | None = None) -> dict[str, Any]:
    """The SENSOR's fields for a reading: the pocket, or the dice and which
    lie flat (and, in a game of rolls, the roll it answers)."""
    return descriptor.outcome.sensor(round_no, reading, roll)
