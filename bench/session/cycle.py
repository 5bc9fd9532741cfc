"""The round cycle: the bench's side of each round (players, dealer, plant) as
a simpy process.

simpy owns the table's time. The phases of 58 Pa. Code 625b.2(d) (betting
window (d)(1), no more bets, Lucky Numbers (d)(2), trigger (d)(3), drop and
rest (d)(4), result or no roll (d)(5), settlement and clear (d)(6)) and their
equivalents for Lightning Roulette (617c.3(c)-(f)), Sic Bo and Dice-Ology take
``Phases`` durations; the drop takes the physics twin's own settle time. With
a ``simpy.Environment`` the session runs in virtual time, as fast as the link
allows; with ``simpy.rt.RealtimeEnvironment`` (``--realtime``, for hardware)
the table keeps the wall clock.

Waiting for the controller is real I/O with real deadlines (the protocol's
response timeout): a reply that does not come in time raises ResponseTimeout
and the session asks the controller to reset rather than hang.

The cycle does not judge: every frame goes past the oracle through the
session's observer (see ``bench.journal.recorder``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Protocol

import simpy.rt

from bench.journal.wire_budget import SessionCeiling
from bench.protocol.greeting import greet, replies_to, reply_to
from bench.play.coverage import CoveragePlan
from bench.play.plant import Reading
from bench.play.plant_worker import PlantWorker
from bench.play.players import CoveringPlayers
from bench.oracle.clauses import PROTOCOL, awaited_clause
from bench.play.probe_wagers import probe_wagers
from bench.protocol import Message, Session, make
from bench.protocol.errors import LinkClosed, LinkError, ResponseTimeout
from bench.protocol.session import WINDOW, Port
from bench.protocol.timeouts import DEFAULT_REPLY_S
from bench.play.round_script import LateWager, NoResult, Pause, ReadingWanted, RoundScript
from bench.rules import Wager, describe



@dataclass(frozen=True)
class Phases:
    """Phase durations in (virtual or real) seconds, and the reply deadline."""
    betting_s: float = 15.0      # 625b.2(d)(1): the time allotted for placing wagers
    lucky_s: float = 4.0         # (d)(2): the Lucky Numbers and their odds are displayed
    result_s: float = 3.0        # the outcome is announced
    clear_s: float = 5.0         # (d)(6): the dice go back to the compartment
    reply_s: float = DEFAULT_REPLY_S   # wall seconds to wait for each controller reply


class Players(Protocol):
    """What the cycle asks of its players: ``bench.play.players.PlayerMix`` and
    ``CoveringPlayers``, or a line's slice of them (``bench.session.line_budget.SlicedPlayers``)."""

    @property
    def covers_layout(self) -> bool: ...
    @property
    def bets(self) -> tuple[tuple[str, int], ...]: ...
    @property
    def stakes(self) -> tuple[int, ...]: ...
    def wagers(self, session_seed: int, round_no: int) -> list[Wager]: ...


class RoundFailed(Exception):
    """The controller did not play its part of a round (no reply in time,
    or the link failed). The round is void; the session goes on. The message
    starts with the clause broken, in brackets (``failure_text``)."""


def failure_text(clause: str, detail: str) -> str:
    return f"[{clause}] {detail}"


def failure_clause(text: str) -> str:
    """The clause a failed round's message names (``protocol`` if none)."""
    if text.startswith("[") and "]" in text:
        return text[1:text.index("]")]
    return PROTOCOL


class RoundVoided(RoundFailed):
    """The controller reset in the middle of the round (docs/protocol.md,
    Reset): it voids the round, returns every stake and opens the next one
    itself, so play goes on at once, without a RESET from the bench."""


class RoundCycle:
    def __init__(self, env, session: Session, *, game: str, rules, plant, players: Players, phases: Phases,
                 session_seed: int, on_plant: Callable[[int, int, Reading], None] = lambda *a: None,
                 on_round_end: Callable[..., None] = lambda *a, **k: None,
                 software: str = "tablebench", probe_late_wager: bool = True,
                 plan: CoveragePlan | None = None, probe_unlawful: bool = True,
                 stop: Callable[[], bool] = lambda: False, window: int = WINDOW,
                 on_greeted: Callable[[int], Players | None] = lambda version: None,
                 reconnect: Callable[[LinkClosed], Port | None] | None = None):
        self.env = env
        self.session = session
        self.game = game
        self.rules = rules                          # what the controller must run (checked at HELLO)
        self.descriptor = describe(game)
        self.plant = plant
        self.players = players
        self.phases = phases
        self.session_seed = session_seed
        self.on_plant = on_plant
        self.on_round_end = on_round_end
        self.software = software
        self.probe_late_wager = probe_late_wager   # one wager after no more bets, each round
        self.plan = plan                           # the staged outcome classes (bench.play.coverage); None: none
        self.probe_unlawful = probe_unlawful       # the wagers of bench.play.probe_wagers, each round
        self.stop = stop                           # asked after each round: end the session early?
        self.window = window                       # version 2: in flight each way (a slow line's, bench.protocol.line_speed)
        self.on_greeted = on_greeted               # the agreed version -> the players the line allows (or None)
        self.reconnect = reconnect                 # the link gone: a new one to the same controller, or None (--reconnect)
        self.current_round: int | None = None
        self.lucky: tuple[tuple[str, int], ...] = ()   # (bet, odds) of the round in play (or the last one)
        self.rounds_done = 0
        self.probed: dict[int, str] = {}           # the controller's round -> the outcome staged in it
        self.staged: str | None = None             # what the round in play was staged with (None: not staged)
        self.realtime = isinstance(env, simpy.rt.RealtimeEnvironment)
        # A physics plant works on its own thread while the link is serviced (bench.play.plant_worker).
        self.plant_worker = PlantWorker(plant) if getattr(plant, "threaded", False) else None

    def close(self) -> None:
        """Stop the plant's thread (the session is over; whoever made the plant closes it)."""
        if self.plant_worker is not None:
            self.plant_worker.close()
            self.plant_worker = None

    # -- talking to the controller ---------------------------------------
    def _send(self, type_: str, **fields) -> Message:
        return self.session.send(make(type_, **fields))

    def _expect(self, *types: str) -> Message:
        """The next of ``types`` from the controller; one that does not come in
        time fails the round naming the clause that orders it
        (``bench.oracle.clauses``); a RESET the controller sends meanwhile
        voids the round."""
        wanted = types if "RESET" in types else types + ("RESET",)
        try:
            message = self.session.receive(self.phases.reply_s, expect=wanted)
        except ResponseTimeout as err:
            raise RoundFailed(failure_text(awaited_clause(self.game, types), f"round {self.current_round}: {err}")) from None
        if message.type == "RESET" and "RESET" not in types:
            raise RoundVoided(failure_text(PROTOCOL, f"round {message.get('round', self.current_round)}: voided: "
                                                     f"the controller reset ({message.get('reason')})"))
        return message

    def _pause(self, seconds: float):
        """The table waits ``seconds`` of its time. On the wall clock
        (``--realtime``) the link is kept serviced meanwhile: the controller
        may speak during a pause (Sic Bo shakes again right after a no roll)
        and must not be left unacknowledged until it gives up. It lingers
        only until the wall-clock moment the pause ends at (the time spent
        talking since the last pause counts), so the table keeps the wall
        clock; the simpy timeout then has no wall time left to wait. In
        virtual time the pause costs no wall time and the next read services
        the link."""
        if self.realtime and seconds > 0:
            env = self.env
            ends_at = env.real_start + (env.now + seconds - env.env_start) * env.factor
            left = ends_at - time.monotonic()      # simpy.rt keeps the wall clock with time.monotonic
            if left > 0:
                self.session.linger(left)
        return self.env.timeout(seconds)

    def handshake(self) -> Message:
        """HELLO both ways (``bench.protocol.greeting``); the controller then opens its first round."""
        return greet(self.session, game=self.game, rules=self.rules, software=self.software,
                     reply_s=self.phases.reply_s, seed=self.session_seed, window=self.window)

    # -- the process ------------------------------------------------------
    def run(self, rounds: int, progress: Callable[[], None] = lambda: None):
        """simpy process: play ``rounds`` rounds (a void round counts)."""
        self.handshake()
        self.players = self.on_greeted(self.session.version) or self.players
        while self.rounds_done < rounds and not self.stop():
            failure = None
            self.current_round = None     # until the controller opens one: a failure before it is round 0
            self.staged = None
            voided = False
            try:
                yield from self._round()
            except RoundVoided as err:
                failure, voided = str(err), True
            except RoundFailed as err:
                failure = str(err)
            except SessionCeiling:
                raise                   # the session's bounds, not the round's: it ends here
            except LinkClosed as err:
                if self.reconnect is None:
                    raise               # the device is gone: the session ends link-lost, every file written
                failure = self._come_back(err)
                if self.plan is not None:
                    self.plan.interrupted()    # a round that did not finish shows nothing, breaks any run
                self.on_round_end(self.current_round or 0, failure, void=True, reconnected=True)
                self.rounds_done += 1
                progress()
                continue
            except LinkError as err:
                failure = failure_text(PROTOCOL, str(err))
            if failure is not None and self.plan is not None:
                self.plan.interrupted()        # a round that did not finish shows nothing, breaks any run
            # A staged round says so in its record: a report keeps its staged outcome out of the return.
            staged: dict[str, str] = {}
            if self.staged and self.current_round is not None:
                staged = {"probe": self.staged}
                self.probed[self.current_round] = self.staged
            if voided:
                self._after_void(self.current_round or 0)
                self.on_round_end(self.current_round or 0, failure, void=True, **staged)
            else:
                self.on_round_end(self.current_round or 0, failure, **staged)
            self.rounds_done += 1
            progress()
            if failure is not None and not voided and self.rounds_done < rounds:
                self._recover(failure)

    def _come_back(self, lost: LinkClosed) -> str:
        """The device went away mid-round: wait for it to come back
        (``reconnect``: LinkError if it does not), greet the controller again
        (it voids the round in flight, docs/protocol.md section 5) and say
        how the round ended, for its record."""
        if not hasattr(self.session, "reattach"):
            raise LinkError(f"{lost}; --reconnect needs the bench's own protocol (this adapter's session "
                            "cannot take a new link)") from None
        assert self.reconnect is not None, "run comes back from a lost link only with --reconnect"
        started = time.monotonic()
        port = self.reconnect(lost)
        if port is None:
            raise LinkError(f"{lost}; it did not come back") from None
        self.session.reattach(port)
        self.handshake()
        return failure_text(PROTOCOL, f"round {self.current_round or 0}: void: the link was lost ({lost}) and "
                                      f"came back after {time.monotonic() - started:.1f} s")

    def _recover(self, failure: str) -> None:
        """Ask the controller to reset; it voids the round in flight and opens
        the next. Stale messages of the failed round are dropped. A controller
        that does not answer the RESET (one that gave up on the link waits for
        a HELLO, docs/protocol.md) is greeted again; one that answers neither
        is lost: a LinkError, which ends the session as link-lost."""
        self.session.inbox.clear()
        self._send("RESET", reason="bench-timeout", round=self.current_round or 0)
        try:
            self._expect("RESET", "HELLO")
            return
        except RoundFailed as err:
            unanswered = err
        self.session.inbox.clear()
        try:
            self.handshake()
        except LinkError as err:
            raise LinkError(f"round {self.current_round or 0} failed ({failure}); the controller answered "
                            f"neither the bench's RESET ({unanswered}) nor a new HELLO ({err})") from None

    def _round(self):
        phases = self.phases
        opened = self._expect("OPEN")
        round_no = self.current_round = opened["round"]
        session_round = self.rounds_done + 1
        staging = self.plan is not None and not self.plan.done and session_round > 1
        if staging and not self.players.covers_layout:
            # A round that may be staged covers the layout, so that its outcome decides wagers.
            wagers = CoveringPlayers(self.game, self.rules).wagers(self.session_seed, round_no)
        else:
            wagers = self.players.wagers(self.session_seed, round_no)
        # Wagers a compliant controller refuses (bench.play.probe_wagers), after the players'.
        unlawful = [p.wager for p in probe_wagers(self.game, self.rules, round_no, wagers)] \
            if self.probe_unlawful else []

        # (d)(1) the players place their wagers while betting is open. All are
        # sent before any reply is awaited, as players at a table do not wait
        # for each other; the replies may come in any order.
        for wager in wagers + unlawful:
            self._send("WAGER", round=round_no, id=wager.id, bet=wager.bet, stake=wager.stake)
        try:
            replies = replies_to(self.session, [wager.id for wager in wagers + unlawful], self.phases.reply_s)
        except ResponseTimeout as err:
            raise RoundFailed(failure_text(awaited_clause(self.game, ("ACCEPT",)), f"round {round_no}: {err}")) from None
        yield self._pause(phases.betting_s)

        # no more bets ... CLEARED: the round script (bench.play.round_script)
        late = LateWager(f"r{round_no}late", self.players.bets[0][0], min(self.players.stakes)) \
            if self.probe_late_wager else None
        accepted = [wager_id for wager_id, reply in replies.items() if reply.type == "ACCEPT"]
        script = RoundScript(self, self.descriptor, round_no, late_wager=late, accepted=accepted)
        self.lucky = ()
        stage = None
        said: list[str] = []          # each staged throw, as the plant says it staged it
        readings: list[Reading] = []
        steps = script.steps()
        answer = None
        while True:
            try:
                step = steps.send(answer)
            except StopIteration:
                break
            except NoResult as err:
                raise RoundFailed(failure_text(awaited_clause(self.game, ("RESULT",)), str(err))) from None
            answer = None
            if isinstance(step, Pause):
                if step.phase == "lucky":
                    self.lucky = tuple((entry.bet, entry.pays) for entry in script.lucky)
                yield self._pause(phases.lucky_s if step.phase == "lucky" else phases.result_s)
            elif isinstance(step, ReadingWanted) and step.refused is not None:
                raise RoundFailed(failure_text(awaited_clause(self.game, ("RESULT",)),
                                               f"round {round_no}: the controller answered the plant's reading with "
                                               f"ERROR {step.refused.get('code')} {step.refused.get('detail') or ''}"))
            elif isinstance(step, ReadingWanted):
                # (d)(4): the plant comes to rest, in the twin's own time. A staged
                # round is chosen once the Lucky Numbers are known (bench.play.coverage).
                if staging and step.attempt == 0:
                    stage = self.plan.stage(session_round, self.lucky)
                    said = [throw.describe() for throw in stage] if stage else []
                    self.staged = ", then ".join(said) or None
                throw = stage[step.attempt] if stage and step.attempt < len(stage) else None
                try:
                    answer = self._read(round_no, step.attempt, throw)
                except NoResult as err:         # a camera that read nothing (bench.play.camera): the round is void
                    raise RoundFailed(failure_text(getattr(err, "clause", None)
                                                   or awaited_clause(self.game, ("RESULT",)), str(err))) from None
                if throw is not None:
                    # The round's record says what the plant staged, in its words: a throw
                    # it could not stage ("...: not found in the staging sweep") is not
                    # named as if the round had shown it.
                    plant_said = (answer.detail or {}).get("staged")
                    said[step.attempt] = plant_said if isinstance(plant_said, str) else throw.describe()
                    self.staged = ", then ".join(said)
                readings.append(answer)
                self.on_plant(round_no, step.attempt, answer)
                yield self._pause(answer.duration_s)
            # NextRoll: the cycle throws the whole sequence
        if self.plan is not None:
            self.plan.observe(session_round, readings, self.lucky)
        self._drop_stale(round_no)
        yield self._pause(phases.clear_s)

    def _read(self, round_no: int, attempt: int, throw) -> Reading:
        """The plant's reading; a physics plant works on its own thread while
        every frame the controller sends meanwhile is acknowledged."""
        count = self.descriptor.outcome.dice_count
        if self.plant_worker is None:
            return self.plant.read(round_no, attempt, count, throw)
        return self.plant_worker.read_while(self.session.linger, round_no, attempt, count, throw)

    # -- the round script's Talk --------------------------------------------
    def send(self, type_: str, **fields) -> Message:
        return self._send(type_, **fields)

    def expect(self, *types: str) -> Message:
        return self._expect(*types)

    def reply_to(self, wager_id: str) -> Message:
        return self._expect_reply_to(wager_id)

    def _expect_reply_to(self, wager_id: str) -> Message:
        try:
            return reply_to(self.session, wager_id, self.phases.reply_s)
        except ResponseTimeout as err:
            raise RoundFailed(failure_text(awaited_clause(self.game, ("ACCEPT",)),
                                           f"round {self.current_round}: {err}")) from None

    def _after_void(self, round_no: int) -> None:
        """The controller voids the round it reset in (every stake returned,
        SETTLED, CLEARED) before it opens the next: wait for that CLEARED (or
        the next OPEN, left queued) so that the void's messages are not taken
        for the next round's."""
        try:
            message = self.session.receive(self.phases.reply_s, expect=("CLEARED", "OPEN"))
        except ResponseTimeout:
            return                   # the next round's OPEN will be awaited, and its absence fail that round
        if message.type == "OPEN":
            self.session.inbox.appendleft(message)
        self._drop_stale(round_no)

    def _drop_stale(self, round_no: int) -> None:
        """SETTLE frames (and anything else of a finished round) have been seen
        by the oracle; the cycle does not need them queued."""
        keep = [m for m in self.session.inbox if m.type in ("OPEN", "HELLO", "RESET")
                or (m.round is not None and m.round > round_no)]
        self.session.inbox.clear()
        self.session.inbox.extend(keep)
