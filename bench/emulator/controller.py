"""The emulated game controller: each game's round state machine behind a
protocol session. It plays the controller's part only; the bench plays the
players, the dealer and the plant (docs/protocol.md, "A round").

States: idle -> betting -> closed -> released -> (settle, clear) -> betting ...
Dice-Ology goes closed -> released -> closed ... once per roll until every
side bet is resolved.
"""

from __future__ import annotations

import logging
import random
from importlib import metadata

from bench.adapters.api import MessageSession
from bench.errors import RulesError
from bench.protocol.greeting import rules_digest
from bench.protocol import LinkTimeout, Message, PROTOCOL_VERSIONS, Session, make
from bench.protocol.session import WINDOW
from bench.protocol.messages import is_token
from bench.rules import Round, Wager, get_game
from bench.rules.outcome_kind import ONE_THROW, SERIES
from bench.rules.submission import LIMITS_CLAUSE
from bench.emulator.misbehaviours import Policy
from bench.emulator.rng_misbehaviours import RNG_BATCH, lucky_rng, session_started

log = logging.getLogger(__name__)


def software_version() -> str:
    try:
        return f"tablebench-emulator/{metadata.version('tablebench')}"
    except metadata.PackageNotFoundError:
        return "tablebench-emulator/unknown"


class EmulatedController:
    def __init__(self, session: Session | MessageSession, *, game: str, rules, seed: int, policy: Policy = Policy(),
                 reset_round: int | None = None, versions: tuple[int, ...] = PROTOCOL_VERSIONS):
        self.session = session
        self.versions = versions        # the protocol versions it answers in (a v1-only controller: (1,))
        self.game_name = game
        self.game = get_game(game)
        self.descriptor = self.game.descriptor
        self.outcome = self.descriptor.outcome      # the kind of outcome (bench.rules.outcome_kind)
        # What a lawful reading does, as the kind's round progresses: the round's one
        # outcome, or the next roll of a series.
        self._thrown = {ONE_THROW: self._one_throw, SERIES: self._series_roll}[self.outcome.progress]
        self.rules = rules
        self.seed = seed
        self.policy = policy
        self.reset_round = reset_round
        self.round = 0
        self.rounds_completed = 0
        self.state = "idle"
        self._new_round_state()

    def _new_round_state(self) -> None:
        self.wagers: dict[str, Wager] = {}       # accepted, in order
        self.lucky: tuple = ()
        self.rolls: list[tuple[int, int]] = []   # Dice-Ology rolls so far
        self.counting_from: dict[str, int] = {}  # Dice-Ology: first roll that counts, per wager
        self.settled: dict[str, int] = {}        # wager id -> returned, as sent

    # -- the loop -------------------------------------------------------
    def serve(self, should_stop=lambda: False, idle_poll: float = 0.25) -> None:
        """Answer the bench until ``should_stop()``; LinkClosed propagates.

        A frame the bench never acknowledges (LinkTimeout) is given up: the
        controller keeps listening, and the bench's next HELLO voids the round
        in flight and starts afresh."""
        while not should_stop():
            try:
                message = self.session.poll(idle_poll)
                if message is not None:
                    self.handle(message)
            except LinkTimeout as err:
                log.warning("round %s: %s; waiting for a HELLO", self.round, err)

    def handle(self, message: Message) -> None:
        handler = getattr(self, f"_on_{message.type.lower()}", None)
        if handler is None:
            self._error("unexpected", f"{message.type} is not for the controller")
        else:
            handler(message)

    def _send(self, type_: str, **fields) -> None:
        self.session.send(make(type_, **fields))

    def _error(self, code: str, detail: str) -> None:
        for length in (120, 40, 0):    # percent-encoding may lengthen the detail past a frame
            try:
                return self._send("ERROR", code=code, round=self.round, detail=detail[:length] or None)
            except ValueError:
                continue

    # -- session --------------------------------------------------------
    def _hello(self) -> None:
        version = self.session.version
        fields = dict(proto=version, role="controller", sw=software_version(), game=self.game_name,
                      rules=rules_digest(self.rules), seed=self.seed)
        if self.rules.paytable:
            fields["paytable"] = str(self.rules.paytable)
        if version >= 2:
            fields["window"] = WINDOW
        self._send("HELLO", **fields)

    def _on_hello(self, m: Message) -> None:
        if m["proto"] not in self.versions:
            spoken = " or ".join(map(str, self.versions))
            self._error("version", f"bench speaks protocol {m['proto']}, this controller {spoken}")
            return
        if m["game"] != self.game_name:
            self._error("game-mismatch", f"bench plays {m['game']}, this controller runs {self.game_name}")
            return
        # Answer in the version the bench greeted with; from this HELLO on
        # the session speaks it (version 2's window is the bench's).
        self.session.use_protocol(m["proto"], peer_window=m.get("window"))
        session_started(self.policy, self.seed)     # a Lucky RNG that restarts its sequence does it here (810a.5)
        self._hello()
        # Every HELLO is sent stop-and-wait (docs/protocol.md 9): in version 2 the
        # window opens once it is acknowledged. (Sent ahead, an OPEN whose ACK
        # reached us while the HELLO was lost made the bench's cumulative ACK
        # seem to cover the HELLO, which was then never sent again.)
        self.session.flush()
        if self.state != "idle":
            self._void()
        self._open_round()

    def _on_reset(self, m: Message) -> None:
        self._reset("requested")

    def _on_rngreq(self, m: Message) -> None:
        """The raw RNG exchange (docs/protocol.md, "Raw RNG output"): outside
        play only, at most RNG_BATCH values a request."""
        if not getattr(self.policy, "rng_exchange", True):
            return self._error("unexpected", "RNGREQ is not for the controller")
        if self.wagers or self.state not in ("betting", "cleared", "idle"):
            return self._error("in-play", "the RNG is tested outside play: no wager may be in the round")
        kind, count, size = m["kind"], m["count"], m.get("range")
        if not 1 <= count <= RNG_BATCH:
            return self._error("bad-count", f"count {count}: 1 to {RNG_BATCH} values a request")
        generator = lucky_rng(self.policy, self.seed)
        if kind == "raw":
            return self._send("RNGDATA", kind="raw", count=count, values=generator.raw(count))
        if kind == "scaled" and isinstance(size, int) and 2 <= size <= 1 << 32:
            return self._send("RNGDATA", kind="scaled", count=count, range=size, values=generator.scaled(count, size))
        return self._error("bad-request", f"kind {kind} range {size}: raw, or scaled with a range of 2 to 2^32")

    def _on_error(self, m: Message) -> None:
        pass   # the bench's complaint is in its journal; the controller carries on

    def _reset(self, reason: str) -> None:
        """Reset: say so, restart the sequence numbers, greet again, void the
        round in flight (every accepted wager returned) and open the next."""
        self._send("RESET", reason=reason, round=self.round)
        self.session.flush()      # version 2: the RESET (and all before it) acknowledged before numbering restarts
        self.session.restart()
        self._hello()
        self.session.flush()      # stop-and-wait, as every HELLO (docs/protocol.md 9)
        if self.state != "idle":
            self._void()
        self._open_round()

    def _void(self) -> None:
        for wager in self.wagers.values():
            if wager.id not in self.settled:
                self._settle_one(wager.id, wager.stake)
        self._finish(void=True)

    # -- a round --------------------------------------------------------
    def _open_round(self) -> None:
        self.round += 1
        self._new_round_state()
        self.state = "betting"
        self._send("OPEN", round=self.round)
        if self.policy.lucky_before_close():
            self._reveal_lucky()

    def _reveal_lucky(self) -> None:
        if self.descriptor.lightning and not self.lucky:
            # One RNG per round, from the recorded seed: round r's Lucky Numbers
            # do not depend on what happened in earlier rounds.
            rng = random.Random(f"{self.seed}:lucky:{self.round}")
            self.lucky = self.policy.draw_lucky(self, rng)
            self._send("LUCKY", round=self.round, lucky=self.lucky)

    def _on_wager(self, m: Message) -> None:
        wager_id = m["id"]
        if m["round"] != self.round:
            return self._refuse(m, "wrong-round")
        accept = self.policy.accept_unlawful_wager
        if wager_id in self.wagers and not accept("duplicate-id"):
            return self._refuse(m, "duplicate-id")
        late = self.state != "betting"
        if late and not (self.policy.accept_late_wager() and self.state in ("closed", "released")):
            return self._refuse(m, "betting-closed", self.descriptor.betting_clause)
        stake_problem = self.rules.stake_problem(m["stake"])
        if stake_problem is not None and not accept("over-limit" if stake_problem.clause else "bad-stake"):
            return self._refuse(m, "bad-stake", stake_problem.clause)
        if stake_problem is None and self.policy.refuse_lawful_stake(self, m["stake"]):
            return self._refuse(m, "bad-stake", LIMITS_CLAUSE)
        try:
            self.game.check_bet(m["bet"], self.rules)
        except RulesError as err:
            if not accept("unknown-bet"):
                return self._refuse(m, "unknown-bet", err.clause)
        self.wagers[wager_id] = Wager(wager_id, m["bet"], m["stake"])
        self.counting_from[wager_id] = len(self.rolls)
        self._send("ACCEPT", round=self.round, id=wager_id)

    def _refuse(self, m: Message, reason: str, clause: str | None = None) -> None:
        fields = dict(round=m["round"], id=m["id"], reason=reason)
        if clause and is_token(clause):
            fields["clause"] = clause
        self._send("REFUSE", **fields)

    def _on_close(self, m: Message) -> None:
        if self.state != "betting" or m["round"] != self.round:
            return self._error("out-of-turn", f"CLOSE for round {m['round']} in state {self.state} "
                                              f"of round {self.round}")
        self.state = "closed"
        self._send("NOMORE", round=self.round)
        if not self.policy.lucky_after_result():
            self._reveal_lucky()

    def _on_trigger(self, m: Message) -> None:
        if self.state != "closed" or m["round"] != self.round:
            return self._error("out-of-turn", f"TRIGGER for round {m['round']} in state {self.state} "
                                              f"of round {self.round}")
        if self.reset_round == self.round:
            self.reset_round = None       # one reset, not one per retry
            return self._reset("fault")
        self.state = "released"
        self._command()

    def _command(self) -> None:
        self._send(self.descriptor.command, round=self.round, **self.outcome.command_fields(len(self.rolls)))

    def _on_sensor(self, m: Message) -> None:
        if self.state != "released" or m["round"] != self.round:
            return self._error("out-of-turn", f"SENSOR for round {m['round']} in state {self.state} "
                                              f"of round {self.round}")
        problem = self._check_reading(m)
        if problem:
            return self._error("bad-sensor", problem)
        self._thrown(m)

    def _one_throw(self, m: Message) -> None:
        """The throw's reading is the round's outcome, or its no roll."""
        if not (self.outcome.calls_no_roll() and self._no_roll(m["flat"])):
            self._send("RESULT", **{name: m[name] for name, _ in self.outcome.result_fields})
            self._late_lucky()
            return self._settle_and_clear(self._round_of(self.outcome.settled_outcome(m), no_roll=False))
        if self.policy.announce_no_roll(self):
            self._send("NOROLL", round=self.round)
        self._late_lucky()
        if self.outcome.no_roll_ends_round():    # Lightning Dice, 625b.2(d)(5): every wager returned
            return self._settle_and_clear(self._round_of(self.outcome.settled_outcome(m), no_roll=True))
        self._command()                          # Sic Bo: the dice are shaken again

    def _late_lucky(self) -> None:
        if self.policy.lucky_after_result():
            self._reveal_lucky()

    def _check_reading(self, m: Message) -> str | None:
        return self.outcome.check_reading(m, len(self.rolls))

    def _no_roll(self, flat) -> bool:
        """Lightning Dice reads 625b.2(d)(5) as the submission chooses; Sic Bo
        re-shakes whenever a die is not flat."""
        return self.policy.no_roll(self, flat, self.game.is_no_roll(flat, self.rules))

    def _round_of(self, outcome, *, no_roll: bool) -> Round:
        return Round(self.game_name, **self.outcome.round_fields(outcome), no_roll=no_roll, lucky=self.lucky,
                     paytable=_paytable(self.rules))

    def _settle_and_clear(self, round_: Round) -> None:
        wagers = list(self.wagers.values())
        returned = self.policy.settle(self, round_, wagers) if wagers else {}
        if self.policy.clear_before_settle():
            self._send("CLEARED", round=self.round)
        for wager_id, amount in self.policy.settle_frames(self, wagers, returned):
            self._settle_one(wager_id, amount)
        self._finish(cleared=self.policy.clear_before_settle())
        self._open_round()

    def _series_roll(self, m: Message) -> None:
        """One roll of a series: the bets it resolves settled, the next roll awaited while any is open."""
        roll, dice, flat = m["roll"], m["dice"], all(m["flat"])
        if not flat:
            self._send("NOROLL", round=self.round)
            return self._command()                   # a cocked die: the roll is thrown again
        self.rolls.append((dice[0], dice[1]))
        resolved = self._resolve_craps()
        still_open = sum(1 for w in self.wagers.values() if w.id not in self.settled and w.id not in resolved)
        self._send("RESULT", round=self.round, roll=roll, dice=dice, open=still_open)
        early_clear = still_open == 0 and self.policy.clear_before_settle()
        if early_clear:
            self._send("CLEARED", round=self.round)
        for wager_id, returned in self.policy.settle_frames(self, [self.wagers[i] for i in resolved], resolved):
            self._settle_one(wager_id, returned)
        if still_open == 0:
            self._finish(cleared=early_clear)
            self._open_round()
        else:
            self.state = "closed"                    # the dealer triggers the next roll

    def _resolve_craps(self) -> dict[str, int]:
        """The wagers this roll resolves, and what each returns."""
        resolved = {}
        for wager in self.wagers.values():
            if wager.id in self.settled:
                continue
            start = self.policy.craps_counting_from(self, wager, self.counting_from[wager.id], self.rolls)
            self.counting_from[wager.id] = start
            counted = tuple(self.rolls[start:])
            if not counted:
                continue
            round_ = Round(self.game_name, rolls=counted, paytable=_paytable(self.rules))
            returned = self.policy.settle_one_craps(self, round_, wager)
            if returned is not None:
                resolved[wager.id] = returned
        return resolved

    def _settle_one(self, wager_id: str, returned: int) -> None:
        self.settled.setdefault(wager_id, returned)
        self._send("SETTLE", round=self.round, id=wager_id, returned=returned)

    def _finish(self, *, void: bool = False, cleared: bool = False) -> None:
        fields = dict(round=self.round, wagers=len(self.settled), returned=sum(self.settled.values()))
        if void:
            fields["void"] = True
        self._send("SETTLED", **fields)
        if not cleared:
            self._send("CLEARED", round=self.round)
        self.rounds_completed += 1
        self.state = "cleared"


def _paytable(rules) -> str | None:
    paytable = rules.paytable
    return None if paytable is None else str(paytable)
