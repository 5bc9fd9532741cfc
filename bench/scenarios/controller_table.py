"""The game table of the Gherkin scenarios, played against a game controller
over its link (``pytest features/ --controller URL``).

``ControllerTable`` has the methods of the rules-engine table the step
definitions use (``bench/scenarios/rules_table.py``), but every action is a
round on the wire, through a ``bench.protocol.Session`` (or an adapter's session):

- ``place``: a WAGER in the round the controller has open; ACCEPT or REFUSE
  (a refusal raises ``RulesError`` with field ``bet`` and the controller's
  clause, as the rules engine's refusal does);
- ``reveal_lucky``: the scenario's Lucky Numbers are only *noted*: a
  controller draws its own (58 Pa. Code 625b.2(d)(2), 617c.3(d)) and the bench
  cannot impose them. What it revealed is ``table.lucky``, judged by the oracle;
- ``roll`` / ``call_no_roll`` / ``spin`` / ``shoot``: the outcome the bench's
  plant will report;
- ``settle``: the round is played: CLOSE, one wager after no more bets (a
  compliant controller refuses it, 625b.2(d)(1)), LUCKY, TRIGGER, and for each
  RELEASE / SPIN / ROLL the SENSOR reading the scenario gives; then the
  controller's SETTLE frames are the settlements. A scenario that needs a wager
  to carry no Lucky Number ("paid by the base paytable") is played again, the
  same wagers and reading in a new round, until the controller's own draw
  leaves those bets alone (``MAX_ROUNDS``).

Every frame goes past an independent ``Oracle`` (``bench.oracle``); a
violation fails the scenario with its clause, and every frame of the scenario
is written to its wire log, whose path is in every failure message.

Why this module is over 500 lines: ``ControllerTable`` is one class with the
rules table's whole interface (every step a scenario can take), each method
a round's step on the wire; the link, its journal and the failures are
already apart (``bench.scenarios.controller_connection``), and the round's
frames are the round script's (``bench.play.round_script``).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from contextlib import contextmanager
from typing import Callable, Generator, Iterable, Mapping

from bench.errors import BenchError, RulesError
from bench.oracle import Violation
from bench.protocol import LinkError, Message, make
from bench.play.plant import Reading
# The connection and the failures are their own module; named here too for the run's plugin and the report.
from bench.scenarios.controller_connection import (ControllerConnection, ControllerFailure, ControllerViolation,
                                                   WireLog)
from bench.play.probe_wagers import probe_wagers
from bench.play.round_script import LateWager, NextRoll, Pause, ReadingWanted, RoundScript, Step, sensor_fields
from bench.rules import Lucky, Wager, get_game
from bench.rules.cover import cover
from bench.rules.submission import Rules, default_rules

MAX_ROUNDS = 60          # rounds played for one scenario waiting for a draw that leaves its bets alone
MAX_EXTRA_ROLLS = 50     # Dice-Ology: sevens thrown at the end of a scenario to settle every side bet
FINISH_ATTEMPTS = 10     # times a scenario's last round is played on after the oracle stopped it again
# Each game's descriptor gives the wager the bench places after no more bets
# in every round when the scenario placed none to copy (``late_bet``: a
# compliant controller refuses it, the oracle flags an ACCEPT) and the reading
# that finishes a round the scenario left unplayed (``quiet_outcome``).


class ControllerTable:
    """One scenario's table, played on a controller. ``connect(game, rules)``
    gives the connection to a controller running those rules."""

    def __init__(self, game: str, paytable: str | None = None, rules: Rules | None = None, *,
                 connect: Callable[[str, Rules], ControllerConnection], log: WireLog,
                 readings: Mapping[str, Mapping[str, Mapping[str, str]]] | None = None,
                 plain_bets: Iterable[str] = (), cover: bool = False):
        self.game = get_game(game)
        self.rules = rules if rules is not None else default_rules(game, paytable)
        self.descriptor = self.game.descriptor
        self.readings = readings or {}
        self.plain_bets = frozenset(plain_bets)   # bets the scenario pays at base odds: no Lucky Number on them
        self.cover = cover                         # the players cover the layout beside the scenario's wagers
        self.wagers: list[Wager] = []
        self.lucky: tuple[Lucky, ...] = ()         # what the controller revealed
        self.dictated: tuple[Lucky, ...] = ()      # what the scenario says the RNG revealed (not imposed)
        self.outcome: dict[str, object] = {}
        self.rounds_played: list[int] = []
        self.log = log
        self._connect = connect
        self._conn: ControllerConnection | None = None
        self._mark = 0
        self._wire: dict[str, str] = {}            # scenario wager id -> wire id in the current round
        self._round: int | None = None
        self._phase = "idle"     # idle, betting, closed, released (awaiting a reading), rolling, done
        self._unsettled: set[str] = set()
        self._settled: dict[str, int] = {}
        self._settlements: dict[str, dict] | None = None
        self._script: RoundScript | None = None    # the round in play (bench.play.round_script) ...
        self._steps: Generator[Step, Reading | None, None] | None = None   # ... its steps, where the scenario stopped
        self._pending: ReadingWanted | None = None # the command awaiting a reading
        self._readings: deque[Reading] = deque()   # the scenario's readings not yet reported
        self._last: Reading | None = None          # the reading reported last, and as the scenario shows it
        self._shown: object = None
        self._rounds: set[int] = set()             # the controller's rounds this scenario played in
        self.closing: list[str] = []               # SETTLE, SETTLED, CLEARED of the last round, as they came
        self._holding = False                      # the round is being played on after a verdict: gather, don't raise
        self._claimed: set[int] = set()            # session-start verdicts this scenario reports (its session's start)

    @property
    def game_name(self) -> str:
        return self.game.name

    # -- the controller -----------------------------------------------------
    def _controller(self) -> ControllerConnection:
        if self._conn is None:
            self._conn = self._connect(self.game.name, self.rules)
            self._conn.log = self.log
            self._mark = len(self._conn.oracle.violations)
            self.log.line(f"# controller {self._conn.description}; rules {dict(self.rules.options)} "
                          f"paytable {self.rules.paytable}")
        return self._conn

    def violations(self) -> list[Violation]:
        """The oracle's violations in this scenario's rounds (a frame of the
        next round, e.g. an early LUCKY, may arrive while this one is being
        settled: it belongs to the scenario that plays that round)."""
        if self._conn is None:
            return []
        return [v for i, v in enumerate(self._conn.oracle.violations) if self._owns(i, v)]

    def _owns(self, index: int, v: Violation) -> bool:
        return v.round in self._rounds or (v.round is None and index >= self._mark) or index in self._claimed

    def _fresh(self) -> list[Violation]:
        """This scenario's violations not yet reported (each is reported once).
        What the oracle found while a session started (the connection's first
        HELLO, or a resynchronising one) is this scenario's too: it is the one
        whose table started that session, and those verdicts name the earlier
        session's round, which no scenario plays (docs/controller-testing.md)."""
        conn = self._conn
        if conn is None:
            return []
        if conn.session_start:
            self._claimed.update(conn.session_start)
            conn.session_start.clear()
        fresh = [(i, v) for i, v in enumerate(conn.oracle.violations)
                 if i not in conn.reported and self._owns(i, v)]
        conn.reported.update(i for i, _ in fresh)
        return [v for _, v in fresh]

    def _check(self) -> None:
        """Fail the scenario with the oracle's fresh verdicts. A round the
        oracle stops is first played on to its end (as ``finish`` would), so
        that the failure holds every verdict of that round, the table and the
        controller end it in step, and the next scenario starts clean."""
        conn = self._conn
        if conn is None or self._holding:
            return
        found = self._fresh()
        if found and self._phase in ("betting", "closed", "settling", "released", "rolling"):
            self._holding = True
            try:
                self._complete_round()
            except (LinkError, BenchError, AssertionError):
                pass                 # the round is left where it stopped: finish() voids it
            finally:
                self._holding = False
            found += self._fresh()
        if found:
            lines = "\n".join(f"  [{v.clause}] round {v.round}: {v.message}" for v in found)
            raise ControllerViolation(f"the oracle found {len(found)} violation(s) by the controller at "
                                      f"{conn.description}:\n{lines}\nwire log: {self.log.path}",
                                      violations=found, log=self.log.path, controller=conn.description,
                                      frames={v.frame: conn.judged[v.frame] for v in found if v.frame in conn.judged})

    # -- what the layout offers: not on the wire --------------------------------
    def offers(self) -> list[str]:
        raise AssertionError("the protocol has no frame describing the layout: scenarios about the layout "
                             "run against the rules engine only (tests/features)")

    def read_as(self, question: str, reading: str) -> None:
        """Select the controller running this reading of an ambiguous clause
        (with the emulated controller, one started with it)."""
        if self._conn is not None:
            raise AssertionError(f"the reading of {question!r} is chosen after the table was used")
        try:
            chosen = self.readings[question][reading]
        except KeyError:
            raise AssertionError(f"no reading {reading!r} of {question!r} is mapped to a rules option") from None
        self.rules = dataclasses.replace(self.rules, options={**dict(self.rules.options), **chosen})

    # -- betting ------------------------------------------------------------
    def _betting(self) -> int:
        conn = self._controller()
        if self._phase in ("idle", "done"):
            self._round = conn.round_in_play = conn.betting_round()
            self._rounds.add(self._round)
            self._phase = "betting"
            self._wire, self._unsettled, self._settled = {}, set(), {}
        elif self._phase != "betting":
            raise AssertionError(f"a wager after no more bets in round {self._round}")
        return self._in_round()

    def _in_round(self) -> int:
        """The controller's round this table is playing (its betting began)."""
        if self._round is None:
            raise AssertionError("no round of the controller's is in play: no wager was placed")
        return self._round

    def _in_script(self) -> RoundScript:
        """The round script of the round in play (its CLOSE was sent)."""
        if self._script is None:
            raise AssertionError("no round is in play: the scenario settled none")
        return self._script

    def _send_wager(self, bet: str, stake: int) -> tuple[str, Message]:
        conn = self._controller()
        wire_id = conn.wager_id()
        with self._breaking():
            conn.send("WAGER", round=self._round, id=wire_id, bet=bet, stake=stake)
            reply = conn.reply_to(wire_id)
        if reply.type == "ACCEPT":
            self._unsettled.add(wire_id)
        return wire_id, reply

    def place(self, bet: str, stake: int) -> str:
        """A WAGER; the controller's REFUSE raises RulesError (field ``bet``,
        the controller's clause)."""
        self._betting()
        wire_id, reply = self._send_wager(bet, stake)
        self._check()
        if reply.type == "REFUSE":
            raise RulesError(f"the controller refused the wager on {bet!r} in round {self._round}: "
                             f"{reply['reason']}", field="bet", clause=reply.get("clause"))
        wager = Wager(f"w{len(self.wagers) + 1}", bet, stake)
        self.wagers.append(wager)
        self._wire[wager.id] = wire_id
        return wager.id

    # -- the random number generator: the controller's ---------------------------
    def reveal_lucky(self, lucky: Iterable[tuple[str, int]]) -> tuple[Lucky, ...]:
        """Noted, not imposed: the controller draws its own Lucky Numbers."""
        self.dictated = tuple(Lucky(bet, pays) for bet, pays in lucky)
        return self.dictated

    def check_announcement(self, lucky) -> None:
        raise AssertionError("judging a dictated announcement is the rules engine's (tests/features)")

    def draw_lucky(self, seed: int):
        raise AssertionError("a controller's random number generator cannot be seeded by the bench")

    # -- the outcome the plant will report --------------------------------------
    def roll(self, dice: Iterable[int], flat: Iterable[bool] | None = None) -> None:
        self.outcome = {"dice": list(dice)}
        if flat is not None:
            self.outcome["flat"] = [bool(f) for f in flat]
        self._settlements = None

    def call_no_roll(self) -> None:
        """The dealer's call follows the tower's sensor: the bench reports
        every die not flat, a no roll under either reading of 625b.2(d)(5)."""
        self.outcome["no_roll"] = True
        self._settlements = None

    def spin(self, pocket: int) -> None:
        self.outcome = {"pocket": pocket}
        self._settlements = None

    def shoot(self, rolls) -> None:
        self.outcome = {"rolls": [list(r) for r in rolls]}
        self._settlements = None

    # -- playing the round -----------------------------------------------------
    def settle(self) -> dict[str, dict]:
        """Every wager's settlement by wager id, from the controller's SETTLE
        frames: ``returned``, ``open`` and ``clause`` (what the controller
        announced). A reading the controller refuses raises RulesError."""
        if self._settlements is None:
            self._settlements = self._play(self.outcome or self.descriptor.quiet_outcome)
        return self._settlements

    def settlement_for(self, bet: str):
        matches = [w for w in self.wagers if w.bet == bet]
        assert len(matches) == 1, f"the scenario placed {len(matches)} wagers on {bet!r}; expected one"
        settlements = self.settle()
        assert matches[0].id in settlements, f"no settlement for wager {matches[0].id} on {bet!r}: {settlements}"
        return matches[0], settlements[matches[0].id]

    def _play(self, outcome: dict) -> dict[str, dict]:
        for _attempt in range(1, MAX_ROUNDS + 1):
            if self._phase in ("idle", "done"):
                self._betting()
                for wager in self.wagers:        # the same wagers again, in a new round
                    wire_id, reply = self._send_wager(wager.bet, wager.stake)
                    self._check()
                    if reply.type != "ACCEPT":
                        raise AssertionError(f"the controller accepted {wager.bet!r} in round "
                                             f"{self.rounds_played[0]} and refused it in round {self._round}: "
                                             f"{reply['reason']}\nwire log: {self.log.path}")
                    self._wire[wager.id] = wire_id
            settlements, no_roll = self._play_round(outcome)
            clash = {x.bet for x in self.lucky} & self.plain_bets & {w.bet for w in self.wagers}
            if not clash or no_roll:
                return settlements
            self.log.line(f"# bench: round {self._round}: the controller's Lucky Numbers fall on "
                          f"{sorted(clash)}, which the scenario pays at base odds: play another round")
        raise AssertionError(f"in {MAX_ROUNDS} rounds the controller always drew a Lucky Number on "
                             f"{sorted(self.plain_bets)}; the scenario needs a round without\n"
                             f"wire log: {self.log.path}")

    def place_after_rolls(self, bet: str, stake: int) -> str:
        """Dice-Ology: throw the scenario's rolls so far, then place a wager in
        the middle of the sequence (20:18:33:14(1)(d), (2)(e): at the beginning
        of the roll only). The controller's REFUSE raises RulesError (field
        ``bet``); an ACCEPT is the oracle's violation."""
        if not self.descriptor.outcome.throws_until_bets_resolve():
            raise AssertionError("a wager between rolls is for a game of rolls (Dice-Ology)")
        self.settle()
        if self._phase != "rolling":
            raise AssertionError(f"the rolls {self.outcome.get('rolls')} ended the sequence; no roll is under way")
        wire_id, reply = self._send_wager(bet, stake)
        self._check()
        if reply.type == "REFUSE":
            raise RulesError(f"the controller refused the wager on {bet!r} during the sequence of round "
                             f"{self._round}: {reply['reason']}", field="bet", clause=reply.get("clause"))
        return wire_id

    def _play_round(self, outcome: dict) -> tuple[dict[str, dict], bool]:
        """The round from CLOSE to CLEARED (``bench.play.round_script``), the
        scenario's outcome as the plant's readings."""
        conn = self._controller()
        round_no = self._in_round()
        self.rounds_played.append(round_no)
        if self.cover:
            self._cover_round()
        # One wager after no more bets: a compliant controller refuses it.
        late = LateWager(conn.wager_id(), self.wagers[0].bet if self.wagers else self.descriptor.late_bet,
                         self.wagers[0].stake if self.wagers else 100)
        script = self._script = RoundScript(conn, self.descriptor, round_no, late_wager=late,
                                            accepted=self._unsettled)
        self._steps = script.steps()
        self._unsettled, self._settled, self.closing = script.unsettled, script.settled, script.closing
        self._readings = deque(self._outcome_readings(outcome))
        self._phase = "closed"
        self._advance()
        if self.descriptor.outcome.throws_until_bets_resolve():
            return self._by_scenario_id("the controller's RESULT and SETTLE frames"), False
        no_roll = script.no_roll
        if no_roll:
            clause = "625b.2(d)(5): the controller called NOROLL"
        elif script.outcome is None:
            raise AssertionError(f"round {round_no} ended with neither a RESULT nor a NOROLL\nwire log: {self.log.path}")
        else:
            clause = f"the controller's RESULT {dict(script.outcome.fields)}"
        return self._by_scenario_id(clause), no_roll

    def _outcome_readings(self, outcome: dict) -> list[Reading]:
        """What the plant reports, in order, for the scenario's outcome."""
        return [Reading(**fields) for fields in self.descriptor.outcome.readings(outcome)]

    def _advance(self, answer: Reading | None = None) -> None:
        """Play the round script on until it needs what the scenario has not
        given (a reading, or the next roll of a sequence) or the round is cleared."""
        conn = self._controller()
        script, steps = self._in_script(), self._steps
        if steps is None:
            raise AssertionError("no round is in play: the scenario settled none")
        while True:
            try:
                step = steps.send(answer)
            except StopIteration:
                self._phase = "done"
                conn.open_round = None
                self._check()
                return
            except BaseException:
                self._phase = "broken"     # the script died with it: the round can only be voided
                raise
            answer = None
            if isinstance(step, Pause):
                if step.phase == "lucky":
                    self._revealed()
                elif script.no_roll and self.descriptor.outcome.throws_until_bets_resolve():
                    raise AssertionError(f"NOROLL for a flat reading\nwire log: {self.log.path}")
                else:
                    self._phase = "settling"
            elif isinstance(step, ReadingWanted):
                self._phase = "released"
                self._pending = step
                if step.refused is not None:
                    raise RulesError(f"the controller refused the reading {self._shown}: {step.refused['code']} "
                                     f"{step.refused.get('detail') or ''}", field=self._outcome_field)
                if not self._readings:
                    if step.attempt == 0 or self.descriptor.outcome.throws_until_bets_resolve():
                        return       # the scenario's readings are used up: the round waits for one
                    # Sic Bo after a no roll: the dice are shaken again, and land flat
                    last = self._last
                    if last is None or last.dice is None:
                        raise AssertionError("a reading asked again before the plant reported any")
                    self._readings.append(Reading(dice=last.dice, flat=(True,) * len(last.dice)))
                answer = self._carried(self._readings.popleft(), step)
            elif isinstance(step, NextRoll):
                script.settles(len(script.unsettled) - step.result["open"])
                self._phase = "rolling"
                self._check()
                if not self._readings:
                    return           # the scenario's rolls are thrown; the sequence goes on
            self._check()

    @contextmanager
    def _breaking(self):
        """The controller's failure here leaves its round where the table
        cannot follow it: ``finish`` voids it with a new HELLO."""
        try:
            yield
        except (ControllerFailure, LinkError):
            self._phase = "broken"
            raise

    @property
    def _outcome_field(self) -> str:
        return self.descriptor.outcome.field

    def _carried(self, reading: Reading, step: ReadingWanted) -> Reading:
        """``reading``, once the protocol is known to carry it; a reading it
        cannot (a face of 7, pocket 37) raises RulesError naming the outcome's field."""
        self._last = reading
        self._shown = self.descriptor.outcome.shown_reading(reading)
        try:
            message = make("SENSOR", **sensor_fields(self._in_round(), self.descriptor, reading, step.command.get("roll")))
            self._controller().session.codec.encode(message, 0)
        except ValueError as err:
            raise RulesError(f"the protocol cannot carry the reading {self._shown}: {err}",
                             field=self._outcome_field) from None
        return reading

    def _revealed(self) -> None:
        self.lucky = self._in_script().lucky
        self.log.line(f"# bench: the controller's Lucky Numbers: "
                      f"{', '.join(f'{x.bet} at {x.pays} to 1' for x in self.lucky)}"
                      + (f"; the scenario's (not imposed): "
                         f"{', '.join(f'{x.bet} at {x.pays} to 1' for x in self.dictated)}" if self.dictated else ""))
        self._check()

    def _cover_round(self) -> None:
        """The players' cover of the layout and the wagers a controller must
        refuse, beside the scenario's: not the scenario's wagers, but settled
        in the same round and judged by the oracle like them."""
        conn = self._controller()
        placed = [Wager(conn.wager_id(), bet, stake) for bet, stake in cover(self.game.name, self.rules, self._in_round())]
        unlawful = [p.wager for p in probe_wagers(self.game.name, self.rules, self._in_round(), placed)]
        with self._breaking():
            for wager in placed + unlawful:
                conn.send("WAGER", round=self._round, id=wager.id, bet=wager.bet, stake=wager.stake)
            replies = conn.replies_to([w.id for w in placed + unlawful])
        self._unsettled.update(wager_id for wager_id, reply in replies.items() if reply.type == "ACCEPT")
        self._check()

    def _by_scenario_id(self, clause: str) -> dict[str, dict]:
        out = {}
        for wager in self.wagers:
            wire_id = self._wire[wager.id]
            if wire_id in self._settled:
                out[wager.id] = {"id": wager.id, "returned": self._settled[wire_id], "clause": clause}
                if self.descriptor.outcome.throws_until_bets_resolve():
                    out[wager.id]["open"] = False
            elif self._phase == "rolling":     # only a series of throws is ever between two of them
                out[wager.id] = {"id": wager.id, "returned": 0, "open": True, "clause": "still up after the rolls"}
        return out

    # -- the end of the scenario ---------------------------------------------------
    def journal_scenario(self, scenario: str) -> None:
        """The scenario's frames and verdicts into the run's journal."""
        if self._conn is not None:
            self._conn.end_scenario(scenario, self._round)

    def finish(self) -> None:
        """Leave the controller ready for the next scenario: a round with
        wagers the scenario never played is played with a quiet reading; a
        reading the controller refused is followed by a lawful one; side bets
        still up are settled by sevens. Then the oracle's verdict on all of it."""
        conn = self._conn
        if conn is None:
            return
        violation = None
        try:
            # A round the oracle stopped (a violation raised between two of its
            # steps) is played on to its end, every further verdict counted:
            # the controller stays in step with the table, no HELLO needed.
            for _ in range(FINISH_ATTEMPTS):
                try:
                    self._complete_round()
                    break
                except ControllerViolation as err:
                    violation = violation or err
                except (LinkError, BenchError, AssertionError) as err:
                    conn.resync(f"finishing round {self._round}: {err}")
                    break
            if self._phase not in ("idle", "betting", "done"):
                conn.resync(f"the scenario left round {self._round} {self._phase}")
            if violation is not None:
                raise violation
        finally:
            self._check_final()

    def _complete_round(self) -> None:
        if self._phase == "betting" and self.wagers:
            self._play_round(self.descriptor.quiet_outcome)
        elif self._phase in ("closed", "settling"):
            self._advance()                 # where the oracle stopped it
        if self._phase == "released":
            # a reading the scenario never gave, or one the controller refused: a quiet one
            quiet = self._outcome_readings(self.descriptor.outcome.quiet(self.descriptor.quiet_outcome))
            self._readings = deque(quiet)
            if self._pending is None:
                raise AssertionError(f"round {self._round} is released with no command awaiting a reading")
            self._advance(self._carried(self._readings.popleft(), self._pending))
        if self._phase == "rolling":
            self._readings = deque(Reading(**fields) for fields in self.descriptor.outcome.quiet_readings(MAX_EXTRA_ROLLS))
            self._advance()

    def _check_final(self) -> None:
        try:
            self._check()
        finally:
            if self._conn is not None:
                self._conn.log = None
            self.log.close()

    # -- not on the wire -------------------------------------------------------
    def win_probability(self, bet: str):
        raise AssertionError("exact chances are the rules engine's figures (tests/features)")

    def rtp(self, bet: str):
        raise AssertionError("returns to player are the rules engine's figures (tests/features)")
