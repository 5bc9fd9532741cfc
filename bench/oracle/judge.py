"""The oracle: judges every frame between the bench and a game controller,
independently of the controller.

Feed it every decoded message in stream order, as the bench sees the link
(``direction`` "tx": bench -> controller, "rx": controller -> bench), from a
live session or from a journal; it returns the violations each frame reveals.
It recomputes outcomes and settlements with ``bench.rules`` from what the
plant showed (the SENSOR readings the bench sent), never from the
controller's numbers.

Two timing facts of a real link shape the judgements:
- the bench may send a wager after its CLOSE before the controller's NOMORE
  reaches it, so "after no more bets" means placed after the bench's CLOSE
  (or after NOMORE arrived), whatever the order of the frames around it;
- in Dice-Ology the bench triggers the next roll on RESULT while the
  controller is still sending that roll's SETTLE frames, so a resolved bet is
  owed its SETTLE before the controller's next ROLL (or SETTLED), not before
  the bench's TRIGGER.

Why this module is over 500 lines: it is one state machine, the ``Oracle``'s
handlers (a method per direction and message type) over one shared round
state, read in the order a round's frames come. What stands alone is apart:
the records (``records``), the rules' arithmetic (``settlement``), the Lucky
draw's distribution (``lucky_draw``), a camera's call (``recognition``), a
session's start (``session_start``) and each way a round progresses
(``round_progress``). Splitting the handlers further, into mixins, would
scatter one class's state over several files.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any, Callable

from bench.errors import RulesError
from bench.protocol.frame import SEQ_MODULUS
from bench.protocol.timeouts import DEFAULT_REPLY_S
from bench.rules import Lucky, Settlement, Wager, get_game
from bench.rules.submission import LIMITS_CLAUSE
from bench.oracle.clauses import PROTOCOL, phase_clause
from bench.oracle.lucky_draw import CONFIDENCE, DrawLog, DrawVerdict
from bench.oracle.recognition import RecognitionTally, judge as judge_recognition
from bench.oracle.records import RoundSummary, Violation, Ask, Placement, RoundState
from bench.oracle.round_log import RoundLog
from bench.oracle.round_progress import judging
from bench.oracle.session_start import SessionStart
from bench.oracle.settlement import Recompute

_UNSEEN: Any = object()     # a handler not looked up yet (None: the message type has none)
# The controller's messages that start a session or a round: judged by their
# handlers even while a SessionStart holds the rest.
_SESSION_TYPES = frozenset({"HELLO", "RESET", "ERROR", "OPEN"})
# The bench's messages that start a session again: a reply overdue when one
# goes out is judged when the controller answers it, for the answer's number
# says whether the link lost the controller's messages meanwhile.
_RESTARTS = frozenset({"HELLO", "RESET"})


class Oracle:
    """``keep_per_clause``: how many violations of each clause to keep in
    ``violations`` (None: every one); every violation is still returned by
    ``observe`` (for the journal) and counted (``violation_count``,
    ``violations_by_clause``, ``clauses_by_round``), so that a controller
    that breaks a rule a million times costs the bench no more memory than
    one that breaks it a hundred times."""

    def __init__(self, game: str, rules=None, *, response_timeout: float = DEFAULT_REPLY_S,
                 keep_per_clause: int | None = None):
        descriptor = get_game(game).descriptor     # RulesError naming the known games
        if rules is None:
            from bench.rules.submission import default_rules
            rules = default_rules(game, descriptor.default_paytable)
        self.game = game
        self.kind = descriptor.kind
        self.lightning = descriptor.lightning
        self.outcome = descriptor.outcome           # the kind of outcome (bench.rules.outcome_kind)
        self.rules = rules
        self.response_timeout = response_timeout
        self.recompute = Recompute(game, rules)
        self.violations: list[Violation] = []
        self.keep_per_clause = keep_per_clause
        self.violation_count = 0
        self.violations_by_clause: Counter[str] = Counter()
        self.clauses_by_round: dict[int | None, Counter[str]] = {}    # round -> its violations by clause
        self.incomplete_rounds: list[int] = []
        self.voided_rounds: list[int] = []      # voided by a RESET or HELLO mid-round (not a violation)
        # A controller that outlives a session (powered on a serial line) voids
        # the round it had open at the next session's HELLO: those rounds, and
        # the frames it still had in flight, are the earlier session's (not judged).
        self.earlier_rounds: list[int] = []
        self.earlier_frames = 0
        # The controller's messages a link lost (a device unplugged takes what was on the line), as
        # the gap in its numbering shows when it answers the bench's HELLO or RESET: (round in flight
        # or None, messages lost, the wagers whose settlement went with them, not judged).
        self.link_losses: list[tuple[int | None, int, tuple[str, ...]]] = []
        self.rounds: RoundLog = RoundLog()     # a RoundSummary of every round settled
        self.frames = 0
        self._round: RoundState | None = None
        self._start: SessionStart | None = None     # from a HELLO or RESET to the controller's next OPEN
        self._last_opened: int | None = None
        self._first_opened: int | None = None       # the first round this session saw opened
        self._held: list[tuple[Ask, int]] = []      # replies overdue at the bench's HELLO or RESET, and its frame
        self._before: Any = None                    # the previous message in the direction being judged
        self._asks: dict[int, Ask] = {}
        self._placed: dict[str, deque[Placement]] = {}   # wager id -> placements awaiting an answer
        self._ask_serial = 0
        self._last = {"tx": None, "rx": None}
        self._found: list[Violation] = []
        # (direction, type) -> bound handler or None
        self._handlers: dict[tuple[str, str], Callable[[Any, float, int], None] | None] = {}
        self._phase_clauses: dict[str, str] = {}
        self._interned: dict = {}       # Lucky Numbers and dice outcomes, one object each (oracle.rounds keeps them)
        # The Lucky draws judged as a distribution (bench.oracle.lucky_draw): repeats
        # and impossible values at once, the session's fit at ``finish``.
        self.draws = DrawLog(rules, descriptor.lucky_draw_clauses) if descriptor.lightning else None
        self.lucky_draw: DrawVerdict | None = None
        self.camera = RecognitionTally()            # a camera's readings against the truth (bench.oracle.recognition)
        # From the plant's command to SETTLED, as the kind of outcome progresses (bench.oracle.round_progress).
        self.progress = judging(self)

    # -- the interface --------------------------------------------------
    def observe(self, direction: str, message, mono: float) -> list[Violation]:
        frame = self.frames
        self.frames += 1
        self._found = []
        type_ = getattr(message, "type", None)
        if type_ is None or type_ in ("ACK", "NAK") or direction not in ("tx", "rx"):
            return []
        try:
            last = self._before = self._last[direction]
            self._last[direction] = message
            if last is not None and last.seq == message.seq and self._repeat(direction, last, message, mono):
                return []
            if self._asks:
                self._check_deadlines(mono, frame, hold=direction == "tx" and type_ in _RESTARTS)
            start = self._start
            if start is not None and direction == "rx" and type_ not in _SESSION_TYPES:
                if not start.answered:
                    # Still in flight when the bench's HELLO or RESET crossed: the earlier
                    # session's only if it names a round this session never opened; else
                    # judged below as the round it names.
                    if start.earlier(message):
                        return self._found
                else:
                    problem = start.take(message)
                    if problem is not None:
                        self._flag(PROTOCOL, frame, problem, message.get("round"))
                    return self._found
            key = (direction, type_)
            handler = self._handlers.get(key, _UNSEEN)
            if handler is _UNSEEN:
                handler = self._handlers[key] = getattr(self, f"_{direction}_{type_.lower()}", None)
            if handler is not None:
                handler(message, mono, frame)
        except (KeyError, TypeError, ValueError, AttributeError, RulesError) as err:
            self._flag(PROTOCOL, frame, f"{direction} {type_} could not be judged: {err!r}")
        return self._found

    def recognised(self, row) -> list[Violation]:
        """A camera's call of a round (``bench.oracle.feed.CameraRow``) beside
        the twin's truth: a violation of the game's result or no-roll clause
        where the controller was given what the dice or ball did not show."""
        self._found = []
        try:
            for phase, message in judge_recognition(self.camera, row, self._due_no_roll, self.outcome):
                self._keep(Violation(row.round, self._clause(phase), None, message))
        except (KeyError, TypeError, ValueError, AttributeError, RulesError) as err:
            self._keep(Violation(row.round, PROTOCOL, None, f"the camera's reading could not be judged: {err!r}"))
        return self._found

    @property
    def round_unfinished(self) -> int | None:
        """The round in play if it is not yet settled and cleared (None between rounds)."""
        r = self._round
        return r.number if r is not None and not r.complete else None

    def finish(self, mono: float | None = None) -> list[Violation]:
        """End of stream: overdue replies are violations; a round in flight is incomplete."""
        self._found = []
        if mono is not None:
            self._check_deadlines(mono, self.frames)
        held, self._held = self._held, []        # the bench's HELLO or RESET never answered: no loss shown
        for ask, frame in held:
            self._late(ask, frame)
        r = self._round
        if r is not None and r.active and not r.complete and r.number not in self.incomplete_rounds:
            self.incomplete_rounds.append(r.number)
        if self.draws is not None and self.lucky_draw is None:
            verdict = self.lucky_draw = self.draws.verdict()
            if verdict is not None:
                for test in verdict.failed:
                    self._keep(Violation(None, test.clause, None, _draw_message(verdict, test)))
        return self._found

    # -- bookkeeping ----------------------------------------------------
    def _flag(self, clause: str, frame: int | None, message: str, round_: int | None = None) -> None:
        if round_ is None and self._round is not None:
            round_ = self._round.number
        self._keep(Violation(round_, clause, frame, message))

    def _keep(self, violation: Violation) -> None:
        """Count a violation; keep the first ``keep_per_clause`` of its clause."""
        clause, round_ = violation.clause, violation.round
        self.violation_count += 1
        self.violations_by_clause[clause] += 1
        in_round = self.clauses_by_round.get(round_)
        if in_round is None:
            in_round = self.clauses_by_round[round_] = Counter()
        in_round[clause] += 1
        if self.keep_per_clause is None or self.violations_by_clause[clause] <= self.keep_per_clause:
            self.violations.append(violation)
        self._found.append(violation)

    def _clause(self, phase: str) -> str:
        clause = self._phase_clauses.get(phase)
        if clause is None:
            clause = self._phase_clauses[phase] = phase_clause(self.game, phase)
        return clause

    def _repeat(self, direction: str, last, m, mono: float) -> bool:
        """A retransmission (tx) or a duplicate (rx) of the previous message
        ``last``: the same sequence number and content. A retransmission
        restarts the clock of the reply it asks for."""
        if m.seq is None or last.seq != m.seq or last.type != m.type or dict(last.fields) != dict(m.fields):
            return False
        if direction == "tx":
            for serial, ask in list(self._asks.items()):
                if ask.seq == m.seq:
                    ask.mono = mono
                    del self._asks[serial]          # to the back: the asks stay in order of their clocks
                    self._asks[serial] = ask
        return True

    def _ask(self, what: str, m, mono: float, frame: int, phase: str) -> int:
        self._ask_serial += 1
        self._asks[self._ask_serial] = Ask(what, mono, frame, m.seq, self._clause(phase))
        return self._ask_serial

    def _answer(self, serial: int) -> None:
        self._asks.pop(serial, None)

    def _answer_first(self, what: str) -> None:
        for serial, ask in self._asks.items():
            if ask.what == what:
                del self._asks[serial]
                return

    def _check_deadlines(self, mono: float, frame: int, hold: bool = False) -> None:
        # The asks are in the order their clocks started (see _repeat), and all
        # have the same deadline: past the first one still in time, none is late.
        # ``hold``: the bench starts the session again (HELLO, RESET), often because
        # a reply did not come: judged once the controller answers (``_answered``).
        asks = self._asks
        while asks:
            serial = next(iter(asks))
            ask = asks[serial]
            if mono - ask.mono <= self.response_timeout:
                break
            del asks[serial]
            if hold:
                self._held.append((ask, frame))
            else:
                self._late(ask, frame)

    def _late(self, ask: Ask, frame: int, round_: int | None = None) -> None:
        self._flag(ask.clause, frame, ask.late or f"no reply from the controller to {ask.what} (frame {ask.frame}) "
                                                  f"within {self.response_timeout:g} s", round_)

    def _current(self, m, frame: int, phase: str) -> RoundState | None:
        """The round a controller message belongs to, or None (reported) if it
        belongs to none (a voided round's messages are ``SessionStart``'s)."""
        number = m.get("round")
        r = self._round
        if r is None:
            self._flag(self._clause(phase), frame, f"{m.type} for round {number} while no round is open")
            return None
        if number is not None and number != r.number:
            self._flag(self._clause(phase), frame, f"{m.type} names round {number} during round {r.number}")
            return None
        if r.complete:
            self._flag(self._clause(phase), frame,
                       f"{m.type} after round {r.number} was settled and cleared")
            return None
        return r

    # -- session and round boundaries -----------------------------------
    def _restart(self) -> None:
        """A HELLO or RESET: until the controller's next OPEN its messages
        are judged by ``SessionStart``. The round in flight stays this
        session's until the controller answers (``_answered``): what it still
        sends for that round before then is judged as that round's."""
        start = self._start
        if start is None or start.answered:
            self._end_start()
            self._start = SessionStart(self._first_opened)
        # else: the bench greets again before any answer (a version it falls back to): one start
        self._asks.clear()

    def _answered(self, m) -> None:
        """The controller answers the start (its RESET, or its HELLO): the
        round in flight is void from here on."""
        start = self._start
        if start is None:          # (every caller makes one first)
            return
        start.answered = True
        before = self._before
        if isinstance(getattr(m, "seq", None), int) and isinstance(getattr(before, "seq", None), int):
            # The answer takes the number after the controller's last message (section 3:
            # numbers stay spent after a give-up): a gap is what the link lost.
            start.lost = (m.seq - before.seq - 1) % SEQ_MODULUS
        r = self._round
        if r is not None and not r.complete:
            if r.active:
                self.voided_rounds.append(r.number)
            if self.draws is not None and r.lucky is not None:
                self.draws.round_ended("void")
            start.known = r
            # Placed, and no ACCEPT or REFUSE seen: a lost link may have lost the controller's ACCEPT.
            start.unanswered = {wager_id: queue[-1].wager.stake for wager_id, queue in self._placed.items()
                                if queue and queue[-1].round == r.number}
        self._round = None
        start.last_round = self._last_opened
        self._placed.clear()
        held, self._held = self._held, []
        if start.lost:
            # The replies overdue may have been among the messages the link lost: the link's.
            self.link_losses.append((r.number if r is not None else None, start.lost, ()))
            held = held[start.lost:]
        for ask, frame in held:
            self._late(ask, frame, r.number if r is not None else None)

    def _end_start(self) -> None:
        start, self._start = self._start, None
        if start is None:
            return
        self.earlier_frames += start.earlier_frames
        if start.lost_wagers and self.link_losses:
            number, lost, _ = self.link_losses[-1]
            self.link_losses[-1] = (number, lost, tuple(start.lost_wagers))
        number = start.void_round
        if number is not None and not self._ours(number) and number not in self.earlier_rounds:
            self.earlier_rounds.append(number)       # a round this session never opened

    def _ours(self, number) -> bool:
        """A round this session saw opened (round numbers only grow)."""
        return (isinstance(number, int) and self._first_opened is not None
                and self._first_opened <= number <= (self._last_opened or number))

    def _tx_hello(self, m, mono, frame):
        self._restart()
        self._ask("HELLO", m, mono, frame, "deadline")

    def _rx_hello(self, m, mono, frame):
        start = self._start
        if start is None or start.hello_seen:
            # A HELLO the bench did not ask for: the controller started again (its numbering with it).
            self._restart()
            self._before = None
            self._answered(m)
        elif not start.answered:
            self._answered(m)          # the answer to the bench's HELLO (or RESET), numbering going on
        if self._start is not None:
            self._start.hello_seen = True
        self._asks.clear()

    def _tx_reset(self, m, mono, frame):
        self._restart()

    def _rx_reset(self, m, mono, frame):
        start = self._start
        if start is None or start.hello_seen:
            self._restart()            # the controller resets on its own
        if self._start is not None and not self._start.answered:
            self._answered(m)
        # else: a second RESET before its HELLO; the HELLO follows

    def _rx_error(self, m, mono, frame):
        self._asks.clear()      # an answer, if not the one asked for: the bench's business

    def _rx_open(self, m, mono, frame):
        start = self._start
        if start is not None:
            if not start.answered:
                if start.earlier(m):
                    return            # an OPEN the earlier session sent before the bench's HELLO reached it
                # else: this session's next round, opened before the bench's HELLO or RESET reached the
                # controller: it is the round in flight, voided when the controller answers
            else:
                problem = start.opened(m)
                if problem is not None:
                    self._flag(PROTOCOL, frame, problem, m.get("round"))
                self._end_start()
        if isinstance(m.get("round"), int):
            self._last_opened = max(m["round"], self._last_opened or 0)
            if self._first_opened is None:
                self._first_opened = m["round"]
        r = self._round
        if r is not None and not r.complete:
            self._abandoned(r, frame)
        self._round = RoundState(number=m["round"])

    def _abandoned(self, r: RoundState, frame: int) -> None:
        for wager_id in r.accepted:
            if wager_id not in r.settled:
                self._flag(self._clause("settlement"), frame,
                           f"round {r.number} ended (OPEN of the next) with wager {wager_id} never settled", r.number)
        if not (r.settled_seen and r.cleared):
            missing = " and ".join(t for t, seen in (("SETTLED", r.settled_seen), ("CLEARED", r.cleared)) if not seen)
            self._flag(self._clause("settlement"), frame,
                       f"round {r.number} ended (OPEN of the next) without {missing}", r.number)

    # -- betting --------------------------------------------------------
    def _tx_wager(self, m, mono, frame):
        r = self._round
        fields = m.fields
        wager = Wager(fields["id"], fields["bet"], fields["stake"])
        placed_in = fields.get("round")
        late = r is None or r.close_sent or r.nomore or r.complete
        problem = None
        if r is not None and placed_in != r.number:
            problem = RulesError(f"it was placed for round {placed_in} during round {r.number}")
        elif r is not None and wager.id in r.placed_ids:
            problem = RulesError(f"wager id {wager.id!r} is used twice in round {r.number}", clause=PROTOCOL)
        else:
            problem = self._stake_problem(wager.stake) or self.recompute.bet_problem(wager.bet)
        ask = self._ask(f"WAGER {wager.id}", m, mono, frame, "betting")
        if r is not None:
            r.active = True
            r.placed_ids.add(wager.id)
        placement = Placement(wager, placed_in, late, problem, ask)
        queue = self._placed.get(wager.id)
        if queue is None:
            queue = self._placed[wager.id] = deque()
        queue.append(placement)

    def _stake_problem(self, stake) -> RulesError | None:
        """A stake the table must refuse: not a positive amount (the protocol's
        REFUSE bad-stake), or outside the submission's limits (its clause)."""
        if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
            return RulesError(f"stake {stake!r} is not a positive amount", clause=PROTOCOL)
        check = getattr(self.rules, "stake_problem", None)
        return check(stake) if check else None

    def _placement(self, m, frame) -> Placement | None:
        queue = self._placed.get(m["id"])
        if not queue:
            self._flag(self._clause("betting"), frame, f"{m.type} for wager {m['id']!r}, which the bench never placed")
            return None
        placement = queue.popleft()
        if not queue:
            del self._placed[m["id"]]     # ids are new every round: an empty queue kept is a leak
        self._answer(placement.ask)
        return placement

    def _rx_accept(self, m, mono, frame):
        placement = self._placement(m, frame)
        if placement is None:
            return
        r, w = self._round, placement.wager
        if placement.late:
            self._flag(self._clause("betting"), frame,
                       f"wager {w.id} ({w.bet}, {w.stake}) placed after no more bets was accepted; "
                       "it should have been refused")
        if placement.problem is not None:
            self._flag(placement.problem.clause or self._clause("betting"), frame,
                       f"wager {w.id} ({w.bet}, {w.stake}) was accepted, but {placement.problem.message}")
        if r is None or r.complete or placement.round != r.number or w.id in r.accepted:
            return      # not a wager of the round in play: nothing to settle
        r.accepted[w.id] = w
        r.counting_from[w.id] = len(r.rolls)
        if r.resolved:
            self.progress.judge_throw(r)

    def _rx_refuse(self, m, mono, frame):
        placement = self._placement(m, frame)
        if placement is not None and not placement.late and placement.problem is None:
            w = placement.wager
            said = f" ({m.get('reason')}" + (f", clause {m.get('clause')})" if m.get("clause") else ")")
            if m.get("reason") == "bad-stake":
                # A stake within the submission's limits (at a limit, as the covering
                # players place one every round): the limits are the submission's.
                low, high = getattr(self.rules, "min_stake", None), getattr(self.rules, "max_stake", None)
                self._flag(LIMITS_CLAUSE, frame,
                           f"wager {w.id} ({w.bet}, {w.stake}) was refused{said}, but the submission's limits "
                           f"{low}-{high} allow that stake")
                return
            self._flag(self._clause("betting"), frame,
                       f"wager {w.id} ({w.bet}, {w.stake}) placed while betting was open was refused{said}; "
                       "the rules allow it")

    def _tx_close(self, m, mono, frame):
        if self._round is not None:
            self._round.close_sent = True
            self._round.active = True
        self._ask("CLOSE", m, mono, frame, "betting")

    def _rx_nomore(self, m, mono, frame):
        self._answer_first("CLOSE")
        r = self._current(m, frame, "betting")
        if r is None:
            return
        if r.nomore:
            self._flag(self._clause("betting"), frame, "no more bets called twice in one round")
        elif self.lightning and r.lucky is None:
            # The Lucky Numbers are due within the reply deadline of no more bets (docs/protocol.md
            # 11): one held back is the missing Lucky Numbers' breach (625b.2(d)(2), 617c.3(d)),
            # found when the bench gives up on it even if the bench never triggers the drop.
            self._ask_serial += 1
            self._asks[self._ask_serial] = Ask(
                "LUCKY", mono, frame, None, self._clause("lucky_count"),
                f"no Lucky Numbers within {self.response_timeout:g} s of no more bets (NOMORE, frame {frame})")
        r.nomore = r.active = True

    def _rx_lucky(self, m, mono, frame):
        self._answer_first("LUCKY")
        r = self._current(m, frame, "lucky")
        if r is None:
            return
        if not self.lightning:
            self._flag(PROTOCOL, frame, f"{self.game} has no Lucky Numbers")
            return
        if r.lucky is not None:
            self._flag(self._clause("lucky"), frame, "Lucky Numbers revealed a second time in one round")
            return
        if not r.nomore:
            self._flag(self._clause("lucky"), frame, "Lucky Numbers revealed while betting is still open "
                                                     "(before no more bets)")
        elif r.commands or r.resolved:
            self._flag(self._clause("lucky"), frame, "Lucky Numbers revealed after the drop/spin was commanded")
        # The same few hundred Lucky Numbers come again and again: each is kept once, not once a round.
        interned = self._interned
        r.lucky = tuple(interned.setdefault(lucky, lucky) for lucky in map(_lucky, m["lucky"]))
        problem = self.recompute.lucky_problem(r.lucky)
        r.lucky_lawful = problem is None
        if problem is not None:
            shown = ", ".join(f"{x.bet}@{x.pays}" for x in r.lucky)
            self._flag(problem.clause or self._clause("lucky_count"), frame, f"Lucky Numbers {shown}: {problem.message}")
        elif self.draws is not None:
            for clause, message in self.draws.at_lucky(r.lucky):
                self._flag(clause, frame, message)

    # -- the throw ------------------------------------------------------
    def _tx_trigger(self, m, mono, frame):
        if self._round is not None:
            self._round.trigger_armed = self._round.active = True
        self._ask("TRIGGER", m, mono, frame, "trigger")

    def _rx_command(self, m, mono, frame):
        self._answer_first("TRIGGER")   # a re-throw after a no roll answers nothing new: no harm
        self._answer_first("LUCKY")     # none by the drop: "before any Lucky Numbers" below says so
        r = self._current(m, frame, "trigger")
        if r is None:
            return
        clause = self._clause("trigger")
        if not r.nomore:
            self._flag(clause, frame, f"{m.type} while betting is still open (no NOMORE yet)")
        if self.lightning and r.lucky is None and not r.missing_lucky_reported:
            r.missing_lucky_reported = True
            self._flag(self._clause("lucky_count"), frame, f"{m.type} before any Lucky Numbers were revealed")
        if r.resolved:
            self._flag(clause, frame, f"{m.type} after the round's outcome was established")
        elif not (r.trigger_armed or r.rethrow_armed):
            self._flag(clause, frame, f"{m.type} without the dealer's TRIGGER")
        self.progress.commanded(r, frame)
        problem = self.outcome.command_problem(m, len(r.rolls))
        if problem is not None:
            self._flag(self._clause("result"), frame, problem)
        r.trigger_armed = r.rethrow_armed = False
        r.reading = None
        r.commands += 1
        r.active = True

    _rx_release = _rx_spin = _rx_roll = _rx_command

    def _tx_sensor(self, m, mono, frame):
        if self._round is not None:
            self._round.reading = m
        self._ask("SENSOR", m, mono, frame, "result")

    def _due_no_roll(self, reading) -> bool:
        return self.outcome.due_no_roll(self.recompute.game, reading, self.rules)

    def _outcome_round(self, m, frame: int, phase: str):
        """RESULT or NOROLL: it answers the bench's SENSOR; the round it
        belongs to (None if none) and the reading it must follow (taken)."""
        self._answer_first("SENSOR")
        r = self._current(m, frame, phase)
        if r is None:
            return None, None
        reading: Any = r.reading        # the SENSOR message, or None
        r.reading = None
        if reading is not None:
            r.throws.append({name: reading.get(name) for name in ("dice", "flat", "pocket")
                             if reading.get(name) is not None})
        return r, reading

    def _rx_result(self, m, mono, frame):
        r, reading = self._outcome_round(m, frame, "result")
        if r is None:
            return
        if reading is None:
            self._flag(self._clause("result"), frame, f"RESULT {self._shown(m)} without a sensor reading for it")
            reading = m
        elif self._outcome_of(reading) != self._outcome_of(m):
            self._flag(self._clause("result"), frame,
                       f"RESULT {self._shown(m)}, but the plant showed {self._shown(reading)}")
        if reading is not m and self._due_no_roll(reading):
            self._flag(self._clause("no_roll"), frame,
                       f"RESULT although the dice showed flat={list(reading['flat'])}: a no roll was due")
        self.progress.resulted(r, m, reading, frame)

    def _outcome_of(self, m):
        """What ``_shown`` says, to compare (formatting it every round cost more than the rest)."""
        return self.outcome.outcome_of(m)

    def _shown(self, m) -> str:
        return self.outcome.shown(m)

    def _rx_noroll(self, m, mono, frame):
        r, reading = self._outcome_round(m, frame, "no_roll")
        if r is None:
            return
        if reading is None:
            self._flag(self._clause("no_roll"), frame, "NOROLL without a sensor reading for it")
        elif not self._due_no_roll(reading):
            self._flag(self._clause("no_roll"), frame,
                       f"NOROLL although the dice landed flat={list(reading['flat'])} ({self._shown(reading)})")
        if not self.outcome.no_roll_ends_round():
            r.rethrow_armed = True        # Sic Bo: shaken again; craps: thrown again
            return
        if r.resolved:
            self._flag(self._clause("no_roll"), frame, "a second outcome for one round")
            return
        r.resolved = True
        r.outcome = None if reading is None else tuple(reading["dice"])
        # Judged as the plant showed it: a wrongly called no roll owes what the faces say.
        r.no_roll = reading is None or self._due_no_roll(reading)
        self.progress.judge_throw(r)

    # -- settlement -----------------------------------------------------
    def _rx_settle(self, m, mono, frame):
        r = self._current(m, frame, "settlement")
        if r is None:
            return
        wager_id, returned = m["id"], m["returned"]
        if wager_id not in r.accepted:
            self._flag(self._clause("settlement"), frame, f"SETTLE for wager {wager_id!r}, which was never accepted")
            return
        if wager_id in r.settled:
            self._flag(self._clause("settlement"), frame,
                       f"wager {wager_id} settled a second time ({returned}; first {r.settled[wager_id]})")
            return
        r.settled[wager_id] = returned
        if r.cleared and not r.early_clear_reported:
            r.early_clear_reported = True
            self._flag(self._clause("settlement"), frame, f"wager {wager_id} settled after the table was cleared")
        if wager_id not in r.expected:
            self.progress.settled_unresolved(r, wager_id, returned, frame)
            return
        due: Settlement | None = r.expected[wager_id]
        if due is not None and returned != due.returned:
            self._flag(due.clause, frame, f"wager {wager_id} ({r.accepted[wager_id].bet}, stake "
                                          f"{r.accepted[wager_id].stake}) returned {returned}; the rules "
                                          f"give {due.returned} ({due.clause})")

    def _unsettled(self, r: RoundState) -> list[str]:
        return [wager_id for wager_id in r.accepted if wager_id not in r.settled]

    def _rx_settled(self, m, mono, frame):
        r = self._current(m, frame, "settlement")
        if r is None:
            return
        self.progress.settled_all(r, frame)
        for wager_id in self._unsettled(r):
            if wager_id in r.flagged:
                continue
            due = r.expected.get(wager_id)
            clause = due.clause if (due is not None and r.no_roll) else self._clause("settlement")
            self._flag(clause, frame, f"SETTLED but wager {wager_id} was never settled")
        if r.settled_seen:
            self._flag(self._clause("settlement"), frame, "SETTLED twice in one round")
        if m["wagers"] != len(r.settled) or m["returned"] != sum(r.settled.values()):
            self._flag(self._clause("settlement"), frame,
                       f"SETTLED says {m['wagers']} wager(s) returning {m['returned']}; the SETTLE frames "
                       f"say {len(r.settled)} returning {sum(r.settled.values())}")
        r.settled_seen = True
        self._maybe_complete(r)

    def _rx_cleared(self, m, mono, frame):
        r = self._current(m, frame, "settlement")
        if r is None:
            return
        unsettled = self._unsettled(r)
        if unsettled or not r.settled_seen:
            r.early_clear_reported = True
            what = f"with wager(s) {', '.join(unsettled)} unsettled" if unsettled else "before SETTLED"
            self._flag(self._clause("settlement"), frame, f"table cleared {what}: settlement must come first")
        r.cleared = True
        self._maybe_complete(r)

    def _maybe_complete(self, r: RoundState) -> None:
        if not (r.settled_seen and r.cleared) or r.complete:
            return
        r.complete = True
        if self.draws is not None and r.lucky is not None:
            self.draws.round_ended("no-roll" if r.no_roll else "played")
        outcome = self.outcome.summary_outcome(r.outcome, r.rolls)
        if isinstance(outcome, tuple) and not r.rolls:
            outcome = self._interned.setdefault(outcome, outcome)     # 216 dice outcomes, kept once each
        expected = sum(s.returned for s in r.expected.values() if s is not None)
        self.rounds.append(RoundSummary(
            round=r.number, outcome=outcome, no_roll=r.no_roll, lucky=r.lucky or (),
            staked=sum(w.stake for w in r.accepted.values()), returned=sum(r.settled.values()),
            expected=expected, wagers=len(r.accepted),
            violations=sum(self.clauses_by_round.get(r.number, {}).values()), throws=tuple(r.throws)))


def _draw_message(verdict: DrawVerdict, test) -> str:
    from twin.pvalue import p_equals
    return (f"Lucky draw over {verdict.rounds} rounds: {test.detail}: {p_equals(test.p_value)} "
            f"(Holm-adjusted {test.adjusted:.3g} in a family of {len(verdict.tests)} tests at "
            f"{100 * CONFIDENCE:g}%): not the submission's distribution")


def _lucky(entry) -> Lucky:
    """A Lucky Number as decoded from a frame, or as JSON from a journal ({"bet", "pays"})."""
    if isinstance(entry, Lucky):
        return entry
    return Lucky(bet=entry["bet"], pays=entry["pays"])
