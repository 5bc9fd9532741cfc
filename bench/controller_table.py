"""The game table of the Gherkin scenarios, played against a game controller
over its link (``pytest features/ --controller URL``).

``ControllerTable`` has the methods of the rules-engine table the step
definitions use (``bench/rules_table.py``), but every action is a
round on the wire, through a ``bench.protocol.Session``:

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
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable, Iterable, Mapping

from bench.errors import BenchError, RulesError
from bench.greeting import greet, replies_to, reply_to
from bench.link import open_link
from bench.oracle import Oracle, Violation
from bench.protocol import BENCH, FrameEvent, LinkError, Message, Session, Timeouts, make
from bench.protocol.errors import ProtocolViolation
from bench.protocol.timeouts import DEFAULT_REPLY_S
from bench.journal import JournalWriter
from bench.recorder import Recorder, oracle_input, session_header
from bench.probe_wagers import probe_wagers
from bench.rules import Lucky, Wager, describe, get_game
from bench.rules.cover import cover
from bench.rules.descriptor import NO_ROLL_VOIDS
from bench.rules.submission import Rules, default_rules
from bench.seal import sealer_for

MAX_ROUNDS = 60          # rounds played for one scenario waiting for a draw that leaves its bets alone
MAX_EXTRA_ROLLS = 50     # Dice-Ology: sevens thrown at the end of a scenario to settle every side bet
REPLY_S = DEFAULT_REPLY_S   # seconds the bench waits for each controller reply (checked by the oracle too)
# Each game's descriptor gives the wager the bench places after no more bets
# in every round when the scenario placed none to copy (``late_bet``: a
# compliant controller refuses it, the oracle flags an ACCEPT) and the reading
# that finishes a round the scenario left unplayed (``quiet_outcome``).


class ControllerViolation(AssertionError):
    """The oracle found the controller breaking a clause."""


class WireLog:
    """One scenario's frames, both directions, as they crossed the link, and
    the oracle's verdicts: the file a failure message points to."""

    def __init__(self, path: Path, title: str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "w", encoding="utf-8")
        self._file.write(f"# {title}\n# mono_s dir kind frame | decoded\n")

    def line(self, text: str) -> None:
        if self._file.closed:
            return
        self._file.write(text + "\n")
        self._file.flush()

    def frame(self, event: FrameEvent) -> None:
        raw = event.raw.decode("ascii", errors="backslashreplace").rstrip("\r\n")
        note = f"  ({event.note})" if event.note else ""
        self.line(f"{event.mono:.6f} {event.direction} {event.kind:<10} {raw}{note}")

    def verdict(self, violation: Violation) -> None:
        self.line(f"VIOLATION [{violation.clause}] round {violation.round}: {violation.message}")

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


class ControllerConnection:
    """The link to one controller (one game, one rules submission) for a whole
    pytest run: its session, its oracle and where its round stands."""

    def __init__(self, url: str, game: str, rules: Rules, *, software: str = "tablebench-pytest",
                 reply_s: float = REPLY_S, description: str | None = None, journal: Path | None = None,
                 emulated: bool = False, misbehave: str | None = None, key: str | None = None):
        self.url = url
        self.game = game
        self.descriptor = describe(game)
        self.rules = rules
        self.reply_s = reply_s
        self.software = software
        self.description = description or url
        self.oracle = Oracle(game, rules, response_timeout=reply_s)
        self.log: WireLog | None = None
        self.open_round: int | None = None    # the round the controller has open for betting
        self.broken: str | None = None
        self.reported: set[int] = set()       # indices of oracle violations a scenario has reported
        self._serial = 0
        self.link = open_link(url)        # first: an unreachable controller leaves no journal behind
        # The run's journal (as bench run writes it: hash-chained, one record
        # per scenario here), for `bench replay` to verify and judge again.
        self.recorder: Recorder | None = None
        if journal is not None:
            try:
                sealer = sealer_for(key)
                writer = JournalWriter(journal, sealer=sealer)
                writer.append("session", seal=sealer.header if sealer else None, **session_header(
                    game=game, rules=rules, controller=url, emulated=emulated, misbehave=misbehave,
                    phases={"reply_s": reply_s}, runner="pytest features/ --controller"))
                writer.sync()
            except BaseException:
                self.link.close()
                raise
            self.recorder = Recorder(writer, self.oracle)
        self.session = Session(self.link, game, role=BENCH, timeouts=Timeouts(), observer=self._on_frame)

    # -- every frame --------------------------------------------------------
    def _on_frame(self, event: FrameEvent) -> None:
        if self.log is not None:
            self.log.frame(event)
        found = len(self.oracle.violations)
        if self.recorder is not None:
            self.recorder.on_frame(event)
            self.recorder.catch_up()          # a scenario's verdicts are wanted as its frames pass
        elif oracle_input(event.direction, event.kind, event.message):
            self.oracle.observe(event.direction, event.message, event.mono)
        if self.log is not None:
            for violation in self.oracle.violations[found:]:
                self.log.verdict(violation)

    def end_scenario(self, scenario: str, round_no: int | None) -> None:
        """Between scenarios: what version 2 holds back until the session next
        reads (the ACK of the controller's last frames) goes out now, for the
        link may sit idle while pytest runs other tests; then the scenario's
        frames and verdicts become one journal record."""
        try:
            self.session.flush(self.reply_s)
        except LinkError as err:
            self.broken = self.broken or f"after {scenario}: {err}"
        if self.recorder is not None and self.recorder.unwritten:
            self.recorder.on_round_end(round_no or 0, None, scenario=scenario)

    # -- talking ------------------------------------------------------------
    def send(self, type_: str, **fields) -> Message:
        return self.session.send(make(type_, **fields))

    def expect(self, *types: str) -> Message:
        return self.session.receive(self.reply_s, expect=types)

    def wager_id(self) -> str:
        self._serial += 1
        return f"b{self._serial}"

    def reply_to(self, wager_id: str) -> Message:
        return reply_to(self.session, wager_id, self.reply_s)

    def handshake(self) -> None:
        """HELLO both ways; the controller must run the game and rules the
        bench judges it by (its HELLO says which); then its first round opens."""
        self.session.inbox.clear()
        try:
            greet(self.session, game=self.game, rules=self.rules, software=self.software,
                  reply_s=self.reply_s, description=self.description)
        except ProtocolViolation as err:
            raise BenchError(str(err)) from None
        self._take_open()

    def _take_open(self) -> int:
        """Wait for OPEN; what is still queued from earlier rounds (a voided
        round's settlement) has been judged by the oracle and is dropped."""
        self.open_round = self.expect("OPEN")["round"]
        stale = [m for m in self.session.inbox if m.round is not None and m.round < self.open_round]
        for message in stale:
            self.session.inbox.remove(message)
        return self.open_round

    def betting_round(self) -> int:
        if self.broken:
            raise BenchError(f"{self.description}: the link was lost earlier ({self.broken})")
        if self.open_round is None:
            self._take_open()
        return self.open_round

    def resync(self, why: str) -> None:
        """Void whatever round is in flight with a new HELLO (the controller
        settles it void and opens the next; the oracle lists it as voided)."""
        if self.log is not None:
            self.log.line(f"# bench: resynchronising with a new HELLO: {why}")
        try:
            self.open_round = None
            self.handshake()
        except (LinkError, BenchError) as err:
            self.broken = f"{why}; then {err}"

    def close(self) -> None:
        try:
            self.session.flush(self.reply_s)
        except LinkError:
            pass                      # a controller that has gone: every frame is journalled all the same
        try:
            if self.recorder is not None:
                self.recorder.verdicts(self.oracle.finish())
                self.recorder.on_session_end(protocol=self.session.version)
        finally:
            try:
                if self.recorder is not None:
                    journal = self.recorder.journal
                    journal.close()
                    journal.path.with_suffix(".head").write_text(journal.head + "\n")
            finally:
                self.link.close()


@dataclasses.dataclass
class PlacedWager:
    id: str
    bet: str
    stake: int


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
        self.wagers: list[PlacedWager] = []
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
        self._pending_roll: int | None = None      # Dice-Ology: the roll commanded, awaiting its reading
        self._rounds: set[int] = set()             # the controller's rounds this scenario played in
        self.closing: list[str] = []               # SETTLE, SETTLED, CLEARED of the last round, as they came

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
        return v.round in self._rounds or (v.round is None and index >= self._mark)

    def _check(self) -> None:
        conn = self._conn
        if conn is None:
            return
        fresh = [(i, v) for i, v in enumerate(conn.oracle.violations)
                 if i not in conn.reported and self._owns(i, v)]
        conn.reported.update(i for i, _ in fresh)
        found = [v for _, v in fresh]
        if found:
            lines = "\n".join(f"  [{v.clause}] round {v.round}: {v.message}" for v in found)
            raise ControllerViolation(f"the oracle found {len(found)} violation(s) by the controller at "
                                      f"{self._conn.description}:\n{lines}\nwire log: {self.log.path}")

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
            self._round = conn.betting_round()
            self._rounds.add(self._round)
            self._phase = "betting"
            self._wire, self._unsettled, self._settled = {}, set(), {}
        elif self._phase != "betting":
            raise AssertionError(f"a wager after no more bets in round {self._round}")
        return self._round

    def _send_wager(self, bet: str, stake: int) -> tuple[str, Message]:
        conn = self._controller()
        wire_id = conn.wager_id()
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
        wager = PlacedWager(f"w{len(self.wagers) + 1}", bet, stake)
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
        for attempt in range(1, MAX_ROUNDS + 1):
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
        if not self.descriptor.rolls:
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
        conn = self._controller()
        round_no = self._round
        self.rounds_played.append(round_no)
        self.closing = []
        if self.cover:
            self._cover_round()
        conn.send("CLOSE", round=round_no)
        conn.expect("NOMORE")
        self._phase = "closed"
        # One wager after no more bets: a compliant controller refuses it.
        late_bet = self.wagers[0].bet if self.wagers else self.descriptor.late_bet
        self._send_wager(late_bet, self.wagers[0].stake if self.wagers else 100)
        if self.descriptor.lightning:
            self.lucky = tuple(conn.expect("LUCKY")["lucky"])
            self.log.line(f"# bench: the controller's Lucky Numbers: "
                          f"{', '.join(f'{x.bet} at {x.pays} to 1' for x in self.lucky)}"
                          + (f"; the scenario's (not imposed): "
                             f"{', '.join(f'{x.bet} at {x.pays} to 1' for x in self.dictated)}" if self.dictated else ""))
        self._check()
        if self.descriptor.rolls:
            return self._throw_rolls(outcome), False
        conn.send("TRIGGER", round=round_no)
        conn.expect(self.descriptor.command)
        self._phase = "released"
        if self.descriptor.pocket:
            reply = self._report(outcome["pocket"], field="pocket", pocket=outcome["pocket"])
        else:
            dice = list(outcome["dice"])
            flat = [False] * len(dice) if outcome.get("no_roll") else list(outcome.get("flat") or [True] * len(dice))
            reply = self._report(dice, field="dice", dice=dice, flat=flat)
            while reply.type == "NOROLL" and self.descriptor.no_roll != NO_ROLL_VOIDS:
                conn.expect(self.descriptor.command)          # Sic Bo: the dice are shaken again
                reply = self._report(dice, field="dice", dice=dice, flat=[True] * len(dice))
        no_roll = reply.type == "NOROLL"
        self._collect_until_cleared()
        clause = ("625b.2(d)(5): the controller called NOROLL" if no_roll
                  else f"the controller's RESULT {dict(reply.fields)}")
        return self._by_scenario_id(clause), no_roll

    def _cover_round(self) -> None:
        """The players' cover of the layout and the wagers a controller must
        refuse, beside the scenario's: not the scenario's wagers, but settled
        in the same round and judged by the oracle like them."""
        conn = self._controller()
        placed = [Wager(conn.wager_id(), bet, stake) for bet, stake in cover(self.game.name, self.rules, self._round)]
        unlawful = [p.wager for p in probe_wagers(self.game.name, self.rules, self._round, placed)]
        for wager in placed + unlawful:
            conn.send("WAGER", round=self._round, id=wager.id, bet=wager.bet, stake=wager.stake)
        replies = replies_to(conn.session, [w.id for w in placed + unlawful], conn.reply_s)
        self._unsettled.update(wager_id for wager_id, reply in replies.items() if reply.type == "ACCEPT")
        self._check()

    def _report(self, shown, *, field: str, **reading) -> Message:
        """SENSOR with the plant's reading; the controller's RESULT / NOROLL,
        or ERROR (bad-sensor) raised as RulesError naming the outcome's field."""
        conn = self._controller()
        try:
            message = make("SENSOR", round=self._round, **reading)
            conn.session.codec.encode(message, 0)
        except ValueError as err:
            raise RulesError(f"the protocol cannot carry the reading {shown}: {err}", field=field) from None
        conn.session.send(message)
        reply = conn.expect("RESULT", "NOROLL", "ERROR")
        if reply.type == "ERROR":
            raise RulesError(f"the controller refused the reading {shown}: {reply['code']} "
                             f"{reply.get('detail') or ''}", field=field)
        self._phase = "settling"
        return reply

    def _collect_settles(self, count: int) -> None:
        conn = self._controller()
        for _ in range(count):
            settle = conn.expect("SETTLE")
            self._settled[settle["id"]] = settle["returned"]
            self._unsettled.discard(settle["id"])

    def _collect_until_cleared(self) -> None:
        conn = self._controller()
        seen = set()
        while not {"SETTLED", "CLEARED"} <= seen:
            message = conn.expect("SETTLE", "SETTLED", "CLEARED")
            self.closing.append(message.type)
            seen.add(message.type)
            if message.type == "SETTLE":
                self._settled[message["id"]] = message["returned"]
                self._unsettled.discard(message["id"])
        self._phase = "done"
        conn.open_round = None
        self._check()

    def _throw_rolls(self, outcome: dict) -> dict[str, dict]:
        """Dice-Ology: one TRIGGER, ROLL, SENSOR, RESULT per roll, until the
        scenario's rolls are thrown or every side bet is resolved."""
        for dice in outcome["rolls"]:
            if self._phase == "done":
                break       # every side bet resolved: the later rolls belong to the game of craps
            self._throw(list(dice))
        if self._phase != "done":
            self._phase = "rolling"
        self._check()
        return self._by_scenario_id("the controller's RESULT and SETTLE frames")

    def _throw(self, dice: list[int]) -> None:
        conn = self._controller()
        conn.send("TRIGGER", round=self._round)
        command = conn.expect("ROLL")
        self._phase = "released"
        self._pending_roll = command["roll"]
        reply = self._report(f"{'-'.join(map(str, dice))}", field="rolls", roll=command["roll"], dice=dice,
                             flat=[True] * len(dice))
        if reply.type == "NOROLL":
            raise AssertionError(f"NOROLL for a flat reading {dice}\nwire log: {self.log.path}")
        self._collect_settles(len(self._unsettled) - reply["open"])
        if reply["open"] == 0:
            self._collect_until_cleared()
        else:
            self._phase = "rolling"

    def _by_scenario_id(self, clause: str) -> dict[str, dict]:
        out = {}
        for wager in self.wagers:
            wire_id = self._wire[wager.id]
            if wire_id in self._settled:
                out[wager.id] = {"id": wager.id, "returned": self._settled[wire_id], "clause": clause}
                if self.descriptor.rolls:
                    out[wager.id]["open"] = False
            elif self.descriptor.rolls and self._phase == "rolling":
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
            try:
                self._complete_round()
            except ControllerViolation as err:
                violation = err
            except (LinkError, BenchError, AssertionError) as err:
                conn.resync(f"finishing round {self._round}: {err}")
            else:
                if self._phase not in ("idle", "betting", "done"):
                    conn.resync(f"the scenario left round {self._round} {self._phase}")
            if violation is not None and self._phase not in ("idle", "betting", "done"):
                conn.resync(f"the oracle stopped round {self._round} ({self._phase})")
            if violation is not None:
                raise violation
        finally:
            self._check_final()

    def _complete_round(self) -> None:
        if self._phase == "betting" and self.wagers:
            self._play_round(self.descriptor.quiet_outcome)
        elif self._phase == "released":
            self._finish_reading()
        if self._phase == "rolling":
            for _ in range(MAX_EXTRA_ROLLS):
                if self._phase == "done":
                    break
                self._throw([3, 4])

    def _finish_reading(self) -> None:
        quiet = self.descriptor.quiet_outcome
        if self.descriptor.rolls:
            reply = self._report("3-4", field="rolls", roll=self._pending_roll, dice=[3, 4], flat=[True, True])
            self._collect_settles(len(self._unsettled) - reply["open"])
            if reply["open"] == 0:
                self._collect_until_cleared()
            else:
                self._phase = "rolling"
            return
        if self.descriptor.pocket:
            reply = self._report(quiet["pocket"], field="pocket", pocket=quiet["pocket"])
        else:
            reply = self._report(quiet["dice"], field="dice", dice=quiet["dice"], flat=[True] * 3)
        if reply.type in ("RESULT", "NOROLL"):
            self._collect_until_cleared()

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
