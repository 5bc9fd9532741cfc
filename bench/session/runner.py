"""A bench session: open the link to the controller (starting the emulated one
in its own process when no URL is given), journal every frame, judge every
frame with the oracle, and drive the rounds with the simpy cycle.

What the session is asked to play and where (``SessionConfig``, its rules,
the controller and the line to it) is worked out in ``bench.session.config``;
``SessionConfig`` and ``session_rules`` are imported from here as well.
"""

from __future__ import annotations

import json
import random
import sys
import time
import traceback
from contextlib import ExitStack
from functools import partial
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import simpy
import simpy.rt
from tablebench_io import progress
from tqdm import tqdm
from tablebench_io.commandline import interrupt_name, is_disk_full

import bench
from bench.session.config import SessionConfig, _controller_url, _link, _Link, _reopen, session_rules
from bench.session.cycle import RoundCycle
from bench.errors import BenchError
from bench.protocol.line_speed import LineError
from bench.protocol.link import BAUDRATE, open_link
from bench.protocol.session import WINDOW
from bench.oracle import Oracle
from bench.play.plant import make_plant
from bench.play.players import CoveringPlayers
from bench.play.coverage import CoveragePlan
from bench.protocol import BENCH
from bench.protocol.messages import MAX_INT
from bench.adapters.registry import get_adapter
from bench.journal.ending import (COMPLETED, CRASHED, DISK_FULL, INTERRUPTED, LINK_LOST, REFUSED, verdict,
                                  write_durably)
from bench.session.out_folder import Reserve, claimed
from bench.protocol.errors import LinkError, ProtocolViolation
from bench.report.live_facts import LiveFacts, LiveJournal
from bench.report.summary import Summary, ordinary_stakes, summarise, write_junit
from bench.journal.recorder import Recorder, adapter_fields, game_file_fields, session_header
from bench.journal.seal import sealer_for
from bench.journal.wire_budget import CEILING_FRAMES, MAX_WAGERS, SessionCeiling

if TYPE_CHECKING:
    from bench.report.session_facts import SessionFacts

KEPT_PER_CLAUSE = 100          # violations of a clause kept in memory for the summary, JUnit and the report


@dataclass
class SessionOutcome:
    config: SessionConfig
    seed: int
    journal: Path
    oracle: Oracle
    round_failures: dict[int, str]
    head: str
    stakes_by_bet: dict[str, int]
    sim_seconds: float
    wall_seconds: float
    rules: object
    seal: dict | None = None               # the key's fingerprint, the session's index, rounds an epoch; None: unsealed
    line: dict | None = None               # the line budget (bench.session.line_budget), when the link has a speed
    ending: str = COMPLETED
    status: int = 0
    reason: str | None = None            # why the session stopped early
    summary: Summary | None = None
    moved_aside: Path | None = None       # where --force moved the folder's earlier session
    missing: list[str] = field(default_factory=list)   # what a full disk kept from being written
    twin: dict | None = None             # the fingerprint of the twin behind the plant (twin.fingerprint)
    staging: dict | None = None          # the physics plant's staging catalogue: stale seeds, swept again
    camera: dict | None = None           # --camera: the camera, the recogniser and its scores (bench.oracle.recognition)
    # The session report's facts (bench.report.session_facts.SessionFacts), made when asked: gathered
    # as the journal was written when they can be (bench.report.live_facts), else read from the journal.
    report_facts: Callable[[], SessionFacts] | None = None

    def to_json(self) -> dict:
        """summary.json: the summary, how the session ended and its exit status."""
        assert self.summary is not None, "_Play.finish gives the outcome its summary before anything asks for it"
        return {"tablebench": bench.__version__, **self.summary.to_json(), "ending": self.ending,
                "status": self.status, "reason": self.reason, "passed": self.status == 0, "seed": self.seed,
                "journal": str(self.journal), "head": self.head, "sim_seconds": round(self.sim_seconds, 1),
                "wall_seconds": round(self.wall_seconds, 2), "seal": self.seal, "line": self.line,
                "twin": self.twin, "staging": self.staging,
                **({"camera": self.camera} if self.camera is not None else {}),
                **({"not_written": self.missing} if self.missing else {})}


class _LastWrites:
    """The session's last writes on a disk that may be full: each is tried;
    a full disk is noted (the reserve let go, the file named as missing) and
    the next write tried all the same; any other failure raises."""

    def __init__(self, reserve: Reserve):
        self.reserve = reserve
        self.full: OSError | None = None
        self.missing: list[str] = []

    def __call__(self, what: str, write: Callable[[], object]) -> bool:
        try:
            write()
            return True
        except OSError as err:
            if not is_disk_full(err):
                raise
            self.full = self.full or err
            self.reserve.release()
            self.missing.append(what)
            return False


def _disk_full(out: Path, err: OSError, recorded_rounds: list[int], before: str | None = None) -> str:
    where = f"after round {recorded_rounds[-1]}" if recorded_rounds else "before the first round"
    return (f"the disk holding {out} is full ({err.strerror}) {where}"
            + (f"; the session had already stopped: {before}" if before else ""))


def run_session(config: SessionConfig) -> SessionOutcome:
    """Play the session and write its files (journal with its ``session-end``
    record, ``session.head``, ``summary.json``, ``junit.xml``) however it ends:
    every round played, the controller or link lost, SIGINT or SIGTERM
    (``KeyboardInterrupt``), or a failure of the bench itself. Only bad input
    found before the journal starts raises (BenchError)."""
    if config.seed is not None and not 0 <= config.seed <= MAX_INT:
        # The seed travels in the bench's HELLO (docs/protocol.md): a protocol integer.
        raise BenchError(f"--seed {config.seed}: a session seed is a whole number from 0 to {MAX_INT} "
                         "(15 digits: it travels in the HELLO)")
    placed = getattr(config.players, "wagers_per_round", None)
    if placed is not None and not 1 <= placed <= MAX_WAGERS:
        raise BenchError(f"--wagers {placed}: wagers a round must be 1 to {MAX_WAGERS}: each costs the round up "
                         f"to six frames, and a round of more than {CEILING_FRAMES} frames is a flooded link "
                         "(docs/bench-run.md)")
    seed = config.seed if config.seed is not None else random.SystemRandom().randrange(2**31)
    rules = session_rules(config)
    adapter = get_adapter(config.adapter)      # an adapter not installed is bad input: nothing started yet
    out = Path(config.out)
    link = _link(config, rules, seed, adapter)   # before the folder is taken: a line too slow is refused at once
    with claimed(out, force=config.force) as moved:
        plant = make_plant(config.plant, game=config.game, session_seed=seed, design=config.design)
        if config.camera is not None:
            from bench.play.camera import CameraPlant
            plant = CameraPlant(plant, config.camera, out)
        try:
            outcome = _play(config, seed, rules, plant, out, link, adapter)
        finally:
            getattr(plant, "close", lambda: None)()
        outcome.moved_aside = moved
    return outcome


def _twin_field(plant) -> dict:
    """``twin``: the fingerprint of the twin behind a physics plant
    (``twin.fingerprint``), for the journal's header; nothing for a plant
    without one (fair dice, recorded outcomes)."""
    found = getattr(plant, "fingerprint", lambda: None)()
    return {"twin": found} if found is not None else {}


def _say(text: str) -> None:
    """A line on standard error while the session's bar may be drawn there."""
    tqdm.write(f"bench run: {text}", file=sys.stderr)


def _lost_live(err: Exception) -> None:
    _say(f"warning: the report's facts are read from the journal at the end ({err!r})")


def _play(config: SessionConfig, seed: int, rules, plant, out: Path, line: _Link, adapter) -> SessionOutcome:
    """The session, step by step: the journal and the link opened, the rounds
    played, the round in flight and the abandoned ones closed, the session's
    end written, then its files (``_Play`` keeps what the steps share)."""
    play = _Play(config, seed, rules, plant, out, line, adapter)
    with ExitStack() as stack:
        play.start(stack)
        play.run_rounds()
        play.close_rounds()
        play.write_end()
        head = play.journal.head
    return play.finish(head)


class _Play:
    """One ``bench run`` session's state as its steps pass it on: the oracle,
    the journal and its recorder, the round cycle, the failed rounds, and how
    (if at all) the session stopped early."""

    def __init__(self, config: SessionConfig, seed: int, rules, plant, out: Path, line: _Link, adapter):
        self.config, self.seed, self.rules, self.plant, self.out, self.line, self.adapter = \
            config, seed, rules, plant, out, line, adapter
        self.journal_path = out / "session.jsonl"
        # The first KEPT_PER_CLAUSE violations of each clause are kept for the summary, JUnit and the
        # report; every one is journalled and counted, so a controller that breaks a rule on every
        # frame costs no more memory than one that breaks it a hundred times.
        self.oracle = Oracle(config.game, rules, response_timeout=config.phases.reply_s,
                             keep_per_clause=KEPT_PER_CLAUSE)
        # strict=False: talking to the controller happens inside simpy steps and
        # takes real time; a strict clock would call every slow reply a crash. The
        # reply deadline (Phases.reply_s) is what bounds a slow controller.
        self.env = simpy.rt.RealtimeEnvironment(strict=False) if config.realtime else simpy.Environment()
        self.failures: dict[int, str] = {}
        # Recorded outcomes cannot be staged.
        self.plan = CoveragePlan(config.game, rules, seed) if config.probes and config.plant != "recorded" else None
        self.started = time.monotonic()
        self.stopped: str | None = None
        self.reason: str | None = None
        self.sealer = sealer_for(config.key, config.seal_every)   # before anything starts: a bad key stops it
        self.reserve = Reserve(out)
        self.writes = _LastWrites(self.reserve)
        self.recorded_rounds: list[int] = []
        self.budgets: dict = {}
        # The report's facts, gathered as the journal is written (bench.report.live_facts): the
        # report then costs the same after 20 rounds or 20,000. None once gathering them failed.
        self.live: LiveFacts | None = LiveFacts(self.journal_path)
        self.ending, self.status = COMPLETED, 0

    def start(self, stack: ExitStack) -> None:
        """The controller reached, the journal opened with the session's
        header, and the round cycle made ready on the link."""
        config, line, plant, plan = self.config, self.line, self.plant, self.plan
        stack.callback(self.reserve.release)
        self.url = url = _controller_url(config, self.seed, line, self.adapter, self.out, stack)
        link = stack.enter_context(open_link(url, baudrate=line.baud or BAUDRATE))
        sealer = self.sealer
        self.journal = journal = stack.enter_context(LiveJournal(self.journal_path, defer_fsync=True,
                                                                 sealer=sealer, on_written=self._written))
        journal.append("session", seal=sealer.header if sealer else None, **session_header(
            game=config.game, rules=self.rules, controller=url, emulated=config.controller is None,
            misbehave=config.misbehave, phases=vars(config.phases), seed=self.seed, rounds=config.rounds,
            plant=plant.name, design=plant.design_path, **_twin_field(plant),
            **({"camera": plant.header()} if config.camera is not None else {}),
            realtime=config.realtime, staging=[c.id for c in plan.classes] if plan else None,
            line=line.budget.to_json() if line.budget else None, **adapter_fields(self.adapter),
            **game_file_fields(config.game), **config.labels))
        journal.sync()
        if config.progress and hasattr(plant, "on_note"):
            plant.on_note(_say)      # a stale staging catalogue swept again, said as it happens
        env = self.env
        self.recorder = recorder = Recorder(journal, self.oracle, clock_now=lambda: env.now,
                                            max_frames=config.max_frames)
        self.session = session = self.adapter.open(link, config.game, role=BENCH, observer=recorder.on_frame)
        session.on_idle = self.idle
        oracle, failures = self.oracle, self.failures
        self.cycle = cycle = RoundCycle(
            env, session, game=config.game, rules=self.rules, plant=plant,
            players=config.players or CoveringPlayers(config.game, self.rules),
            window=line.budget.window if line.budget else WINDOW, on_greeted=self.greeted,
            reconnect=(lambda lost: _reopen(url, line.baud, config.reconnect_s, self.session.port, stack))
            if config.reconnect_s > 0 else None,
            phases=config.phases, session_seed=self.seed, on_plant=recorder.on_plant,
            on_round_end=self.round_end, software=f"tablebench/{bench.__version__}",
            plan=plan, probe_unlawful=config.probe_wagers,
            stop=(lambda: bool(oracle.violation_count or failures)) if config.stop_at_first_finding
            else (lambda: False))
        self.bar = stack.enter_context(progress.bar(total=config.rounds, unit="round", disable=not config.progress,
                                                    desc=f"{config.game}", leave=False))
        stack.callback(cycle.close)

    def idle(self) -> None:
        """While the bench waits for the controller (the session's ``on_idle``):
        the frames journalled and judged, then the report's facts gathered."""
        self.recorder.catch_up()
        self._live_catch_up()

    def _live_catch_up(self, leave: int = 0) -> None:
        if self.live is not None:
            try:
                self.live.catch_up(leave)
            except Exception as err:      # noqa: BLE001 (the report's own bookkeeping never stops a session)
                self._lose_live(err)

    def _written(self, offset: int, record: dict) -> None:
        if self.live is not None:
            try:
                self.live.written(offset, record)
            except Exception as err:      # noqa: BLE001 (as in ``idle``)
                self._lose_live(err)

    def _lose_live(self, err: Exception) -> None:
        """The report's facts could not be gathered: the report reads the journal instead."""
        self.live = None
        _lost_live(err)

    def report_facts(self, head: str) -> Callable[[], SessionFacts]:
        """What makes the session report's facts (``SessionOutcome.report_facts``):
        those gathered while the journal was written, unless the journal is not
        what the session's oracle saw (the bench crashed and stopped judging; a
        full disk kept frames out) or gathering them failed: then the journal,
        replayed. It holds the oracle and those facts, not the session."""
        live, self.live = self.live, None
        if self.ending in (CRASHED, DISK_FULL) or self.writes.missing:
            live = None
        oracle, journal, records = self.oracle, self.journal_path, self.journal.seq

        def facts():
            from bench.report.session_facts import read_session
            if live is not None:
                try:
                    return live.facts(oracle, head, records)
                except Exception as err:      # noqa: BLE001 (the journal has it all: the report reads it instead)
                    _lost_live(err)
            return read_session(journal, head)
        return facts

    def round_end(self, round_no: int, failure: str | None, **fields) -> None:
        """A round's record written (the cycle's ``on_round_end``); past the
        journal's ceiling, the session stops."""
        if failure:
            self.failures[round_no] = failure
        self.recorded_rounds.append(round_no)
        self.recorder.on_round_end(round_no, failure, **fields)
        ceiling = self.config.max_journal_bytes
        if self.journal.size > ceiling and self.stopped is None:
            raise SessionCeiling(f"the journal passed the session's ceiling of "
                                 f"{ceiling / 2**20:g} MB after round {round_no} "
                                 "(bench run --max-journal-mb N raises it)")

    def greeted(self, version: int):
        """The players the line allows once the protocol version is agreed (the cycle's ``on_greeted``)."""
        try:
            players, budget = self.line.in_version(self.config, self.rules, self.seed, version)
        except LineError as err:
            raise ProtocolViolation(f"line budget: the controller speaks protocol {version}: {err}") from None
        if budget is not None:
            self.budgets["used"] = budget.to_json()
        return players

    def run_rounds(self) -> None:
        """The rounds, until they are all played or the session stops: how it
        stopped (``stopped``, ``reason``), None if it did not."""
        bar, cycle = self.bar, self.cycle
        self.env.process(cycle.run(self.config.rounds, progress=(bar.update if bar else lambda *a: None)))
        try:
            self.env.run()
        except ProtocolViolation as err:
            self.stopped = REFUSED if cycle.current_round is None and not self.recorded_rounds else LINK_LOST
            self.reason = str(err)
        except LinkError as err:
            self.stopped, self.reason = LINK_LOST, str(err)
        except KeyboardInterrupt as err:
            self.stopped, self.reason = INTERRUPTED, f"session interrupted ({interrupt_name(err)})"
        except Exception as err:     # a failure of the bench itself: the files are still written
            if isinstance(err, OSError) and is_disk_full(err):     # (is_disk_full is only ever true of an OSError)
                self.stopped, self.reason = DISK_FULL, _disk_full(self.out, err, self.recorded_rounds)
            else:
                self.stopped, self.reason = CRASHED, f"the bench failed: {err!r}"
                out = self.out
                self.writes("crash.txt", lambda: (out / "crash.txt").write_text(traceback.format_exc()))
        self.reserve.release()            # the room kept for the session's end is the end's to use

    def close_rounds(self) -> None:
        """The round in flight of a session that stopped written as failed;
        the last frames judged, the oracle's last verdicts, and the round the
        controller opened after the last one closed as abandoned."""
        stopped, reason, writes, recorder, oracle = self.stopped, self.reason, self.writes, self.recorder, self.oracle
        if stopped is not None:
            in_flight = self.cycle.current_round
            if in_flight is not None and (not self.recorded_rounds or self.recorded_rounds[-1] != in_flight):
                # The round in flight is written as a round that failed; what
                # crossed the link after it goes into the session-end record.
                extra = {"interrupted": True} if stopped in (INTERRUPTED, CRASHED) else {}
                writes(f"round {in_flight}'s record", lambda: self.round_end(
                    in_flight, f"round {in_flight}: {reason}", judge=stopped != CRASHED, **extra))
        else:
            try:
                self.session.flush()   # the ACK of the controller's last frames goes out (version 2 holds it back)
            except LinkError:
                pass              # a controller that has gone is its own business by now; every frame is journalled
        writes("the last frames", lambda: recorder.catch_up(judge=stopped != CRASHED))  # judged before the end's verdicts
        self.finish_mono = finish_mono = time.monotonic()
        if stopped != CRASHED:
            writes("the last verdicts", lambda: recorder.verdicts(oracle.finish(finish_mono)))
        # The controller opens the next round as soon as one is cleared; the
        # session ends before it, so that round is closed here as abandoned.
        for round_no in oracle.incomplete_rounds:
            if round_no not in self.recorded_rounds:
                writes(f"round {round_no}'s record", partial(recorder.on_round_end, round_no, None, abandoned=True))

    def _stop_for_a_full_disk(self, err: OSError) -> None:
        self.stopped, self.reason = DISK_FULL, _disk_full(self.out, err, self.recorded_rounds, self.reason)

    def write_end(self) -> None:
        """The session-end record (without the last frames if they do not fit
        on a full disk, saying how many were lost), the journal's final seal."""
        writes, recorder, oracle = self.writes, self.recorder, self.oracle
        if writes.full is not None and self.stopped != DISK_FULL:
            self._stop_for_a_full_disk(writes.full)
        self.ending, self.status = verdict(self.stopped, oracle.violation_count, len(self.failures))
        end = dict(rounds=self.cycle.rounds_done, violations=oracle.violation_count, protocol=self.session.version,
                   failures=len(self.failures), sim_seconds=round(self.env.now, 3), ending=self.ending,
                   status=self.status, reason=self.reason, finish_mono=round(self.finish_mono, 6),
                   line=self.budgets.get("used"))
        judge = self.stopped != CRASHED
        if not writes("the session-end record", lambda: recorder.on_session_end(**end, judge=judge)):
            # The frames since the last record do not fit: the end is written without them,
            # saying how many were lost (replay then does not hold the verdicts to them).
            if self.stopped != DISK_FULL:
                assert writes.full is not None, "a last write fails only for a full disk, which it notes"
                self._stop_for_a_full_disk(writes.full)
                self.ending, self.status = verdict(self.stopped, oracle.violation_count, len(self.failures))
                end.update(ending=self.ending, status=self.status, reason=self.reason)
            lost = recorder.let_go()
            if writes("the session-end record", lambda: recorder.on_session_end(**end, lost=lost, judge=False)):
                writes.missing.remove("the session-end record")
        writes("the journal's final seal and fsync", self.journal.close)

    def finish(self, head: str) -> SessionOutcome:
        """``session.head``, the outcome and its summary, ``junit.xml`` and ``summary.json``."""
        config, out, writes, oracle, recorder, sealer = \
            self.config, self.out, self.writes, self.oracle, self.recorder, self.sealer
        writes("session.head", lambda: write_durably(out / "session.head", head + "\n"))
        if writes.full is not None and self.stopped != DISK_FULL:
            self._stop_for_a_full_disk(writes.full)
            self.ending, self.status = verdict(self.stopped, oracle.violation_count, len(self.failures))
        ending, reason, line = self.ending, self.reason, self.line
        outcome = SessionOutcome(config, self.seed, self.journal_path, oracle, self.failures, head,
                                 recorder.stakes_by_bet, float(self.env.now), time.monotonic() - self.started,
                                 self.rules,
                                 {"fingerprint": sealer.fingerprint, "session": sealer.session, "every": sealer.every}
                                 if sealer else None, ending=ending, status=self.status, reason=reason,
                                 missing=writes.missing,
                                 line=self.budgets.get("used") or (line.budget.to_json() if line.budget else None),
                                 twin=_twin_field(self.plant).get("twin"),
                                 staging=getattr(self.plant, "staging_report", lambda: None)(),
                                 camera={**self.plant.header(), "scores": oracle.camera.to_json()}
                                 if config.camera is not None else None,
                                 report_facts=self.report_facts(head))
        outcome.summary = summary = summarise(config.game, self.rules, oracle, self.failures,
                                              ordinary_stakes(recorder.stakes_by_bet, recorder.stakes_by_round,
                                                              self.cycle.probed),
                                              ignore_incomplete=set(oracle.incomplete_rounds) - set(self.failures),
                                              probe_rounds=self.cycle.probed, staged=self.plan is not None)
        if self.plan is not None and summary.coverage is not None:
            # Only the plan knows which staged rounds failed: the classes it could not stage, and why.
            summary.coverage.unstaged.update(self.plan.unstaged())
        writes("junit.xml", lambda: write_junit(out / "junit.xml", summary, f"bench run {config.game}",
                                                ending=ending, reason=reason))
        writes("summary.json", lambda: write_durably(out / "summary.json", json.dumps(outcome.to_json(), indent=2)))
        return outcome
