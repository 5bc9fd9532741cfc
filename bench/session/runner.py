"""A bench session: open the link to the controller (starting the emulated one
in its own process when no URL is given), journal every frame, judge every
frame with the oracle, and drive the rounds with the simpy cycle.
"""

from __future__ import annotations

import json
import random
import time
import traceback
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import simpy
import simpy.rt
from tablebench_io import progress

import bench
from bench.emulator.process import emulated_controller
from bench.session.cycle import Phases, RoundCycle
from bench.errors import BenchError
from bench.journal.chain import JournalWriter
from bench.protocol.link import open_link
from bench.oracle import Oracle
from bench.play.plant import make_plant
from bench.play.players import CoveringPlayers, PlayerMix
from bench.play.coverage import CoveragePlan
from bench.protocol import BENCH
from bench.adapters.registry import adapter_args, get_adapter
from bench.journal.ending import COMPLETED, CRASHED, INTERRUPTED, LINK_LOST, REFUSED, verdict, write_durably
from bench.session.out_folder import claimed
from bench.protocol.errors import LinkError, ProtocolViolation
from bench.report.summary import Summary, stakes_of_rounds, summarise, write_junit
from bench.journal.recorder import Recorder, adapter_fields, game_file_fields, session_header
from bench.rules import DEFAULT_GAME, describe
from bench.rules.submission import default_rules, load_submission
from bench.journal.seal import sealer_for


@dataclass
class SessionConfig:
    game: str = DEFAULT_GAME
    game_file: str | None = None           # the game file ``game`` was loaded from (a variant)
    controller: str | None = None          # a device path or pyserial URL; None: the emulated controller
    adapter: str | None = None             # the controller's wire format (bench.adapters); None: the bench's own
    rounds: int = 20
    submission: str | None = None
    design: str | None = None              # tower / wheel design, or recorded outcomes with plant="recorded"
    plant: str = "physics"
    realtime: bool = False
    out: str = "out/session"
    seed: int | None = None
    misbehave: str | None = None           # for the emulated controller only
    # further ``bench emulate`` options for the emulated controller, e.g.
    # ("--protocol", "1") for a version-1-only controller, ("--fault", "delay=0.5:0.2")
    emulator_args: tuple[str, ...] = ()
    phases: Phases = field(default_factory=Phases)
    players: PlayerMix | None = None       # default: CoveringPlayers (the layout covered every round)
    probes: bool = True                    # stage the game's outcome classes (bench.play.coverage) from round 2
    probe_wagers: bool = True              # place the wagers of bench.play.probe_wagers every round
    stop_at_first_finding: bool = False    # end the session after the first round with a violation or failure
    progress: bool = True
    force: bool = False                    # move a session already in ``out`` aside instead of refusing
    key: str | None = None                 # the bench key state (bench.key) that seals the journal; None: unsealed
    seal_every: int = 10                   # rounds an epoch of seals (bench.journal.seal)
    camera: object | None = None           # bench.play.camera.CameraOptions: the result as a camera sees it


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
    ending: str = COMPLETED
    status: int = 0
    reason: str | None = None            # why the session stopped early
    summary: Summary | None = None
    moved_aside: Path | None = None       # where --force moved the folder's earlier session

    def to_json(self) -> dict:
        """summary.json: the summary, how the session ended and its exit status."""
        return {"tablebench": bench.__version__, **self.summary.to_json(), "ending": self.ending,
                "status": self.status, "reason": self.reason, "passed": self.status == 0, "seed": self.seed,
                "journal": str(self.journal), "head": self.head, "sim_seconds": round(self.sim_seconds, 1),
                "wall_seconds": round(self.wall_seconds, 2), "seal": self.seal}


def _rules(config: SessionConfig):
    if config.submission:
        rules = load_submission(config.submission)
        if rules.game != config.game:
            raise BenchError(f"{config.submission}: game: the submission is for {rules.game}, "
                                          f"not {config.game}")
        return rules
    return default_rules(config.game, describe(config.game).default_paytable)


def run_session(config: SessionConfig) -> SessionOutcome:
    """Play the session and write its files (journal with its ``session-end``
    record, ``session.head``, ``summary.json``, ``junit.xml``) however it ends:
    every round played, the controller or link lost, SIGINT or SIGTERM
    (``KeyboardInterrupt``), or a failure of the bench itself. Only bad input
    found before the journal starts raises (BenchError)."""
    seed = config.seed if config.seed is not None else random.SystemRandom().randrange(2**31)
    rules = _rules(config)
    adapter = get_adapter(config.adapter)      # an adapter not installed is bad input: nothing started yet
    out = Path(config.out)
    with claimed(out, force=config.force) as moved:
        plant = make_plant(config.plant, game=config.game, session_seed=seed, design=config.design)
        if config.camera is not None:
            from bench.play.camera import CameraPlant
            plant = CameraPlant(plant, config.camera, out)
        try:
            outcome = _play(config, seed, rules, plant, out, adapter)
        finally:
            getattr(plant, "close", lambda: None)()
        outcome.moved_aside = moved
    return outcome


def _play(config: SessionConfig, seed: int, rules, plant, out: Path, adapter) -> SessionOutcome:
    journal_path = out / "session.jsonl"
    oracle = Oracle(config.game, rules, response_timeout=config.phases.reply_s)
    # strict=False: talking to the controller happens inside simpy steps and
    # takes real time; a strict clock would call every slow reply a crash. The
    # reply deadline (Phases.reply_s) is what bounds a slow controller.
    env = simpy.rt.RealtimeEnvironment(strict=False) if config.realtime else simpy.Environment()
    failures: dict[int, str] = {}
    # Recorded outcomes cannot be staged.
    plan = CoveragePlan(config.game, rules, seed) if config.probes and config.plant != "recorded" else None
    started = time.monotonic()
    stopped = reason = None
    sealer = sealer_for(config.key, config.seal_every)     # before anything starts: a bad key stops the session

    with ExitStack() as stack:
        if config.controller:
            url = config.controller
        else:
            url = stack.enter_context(emulated_controller(
                config.game_file or config.game, seed=seed, submission=config.submission, misbehave=config.misbehave,
                extra=tuple(config.emulator_args) + adapter_args(adapter),
                stderr_path=str(out / "emulator.log")))
        link = stack.enter_context(open_link(url))
        journal = stack.enter_context(JournalWriter(journal_path, defer_fsync=True, sealer=sealer))
        journal.append("session", seal=sealer.header if sealer else None, **session_header(
            game=config.game, rules=rules, controller=url, emulated=config.controller is None,
            misbehave=config.misbehave, phases=vars(config.phases), seed=seed, rounds=config.rounds,
            plant=plant.name, design=plant.design_path,
            **({"camera": plant.header()} if config.camera is not None else {}),
            realtime=config.realtime, staging=[c.id for c in plan.classes] if plan else None,
            **adapter_fields(adapter), **game_file_fields(config.game)))
        journal.sync()
        recorder = Recorder(journal, oracle, clock_now=lambda: env.now)
        session = adapter.open(link, config.game, role=BENCH, observer=recorder.on_frame)
        session.on_idle = recorder.catch_up
        recorded_rounds: list[int] = []

        def round_end(round_no: int, failure: str | None, **fields) -> None:
            if failure:
                failures[round_no] = failure
            recorded_rounds.append(round_no)
            recorder.on_round_end(round_no, failure, **fields)

        cycle = RoundCycle(env, session, game=config.game, rules=rules, plant=plant,
                           players=config.players or CoveringPlayers(config.game, rules),
                           phases=config.phases, session_seed=seed, on_plant=recorder.on_plant,
                           on_round_end=round_end, software=f"tablebench/{bench.__version__}",
                           plan=plan, probe_unlawful=config.probe_wagers,
                           stop=(lambda: bool(oracle.violations or failures)) if config.stop_at_first_finding
                           else (lambda: False))
        bar = stack.enter_context(progress.bar(total=config.rounds, unit="round", disable=not config.progress,
                                               desc=f"{config.game}", leave=False))
        stack.callback(cycle.close)
        env.process(cycle.run(config.rounds, progress=(bar.update if bar else lambda *a: None)))
        try:
            env.run()
        except ProtocolViolation as err:
            stopped, reason = (REFUSED if cycle.current_round is None and not recorded_rounds else LINK_LOST), str(err)
        except LinkError as err:
            stopped, reason = LINK_LOST, str(err)
        except KeyboardInterrupt as err:
            stopped, reason = INTERRUPTED, f"session interrupted ({err or 'SIGINT'})"
        except Exception as err:     # a failure of the bench itself: the files are still written
            stopped, reason = CRASHED, f"the bench failed: {err!r}"
            (out / "crash.txt").write_text(traceback.format_exc())
        if stopped is not None:
            in_flight = cycle.current_round
            if in_flight is not None and (not recorded_rounds or recorded_rounds[-1] != in_flight):
                # The round in flight is written as a round that failed; what
                # crossed the link after it goes into the session-end record.
                extra = {"interrupted": True} if stopped in (INTERRUPTED, CRASHED) else {}
                round_end(in_flight, f"round {in_flight}: {reason}", judge=stopped != CRASHED, **extra)
        else:
            try:
                session.flush()   # the ACK of the controller's last frames goes out (version 2 holds it back)
            except LinkError:
                pass              # a controller that has gone is its own business by now; every frame is journalled
        recorder.catch_up(judge=stopped != CRASHED)     # every frame judged before the end's verdicts
        finish_mono = time.monotonic()
        if stopped != CRASHED:
            recorder.verdicts(oracle.finish(finish_mono))
        # The controller opens the next round as soon as one is cleared; the
        # session ends before it, so that round is closed here as abandoned.
        for round_no in oracle.incomplete_rounds:
            if round_no not in recorded_rounds:
                recorder.on_round_end(round_no, None, abandoned=True)
        ending, status = verdict(stopped, len(oracle.violations), len(failures))
        recorder.on_session_end(rounds=cycle.rounds_done, violations=len(oracle.violations), protocol=session.version,
                                failures=len(failures), sim_seconds=round(env.now, 3), ending=ending,
                                status=status, reason=reason, finish_mono=round(finish_mono, 6),
                                judge=stopped != CRASHED)
        head = journal.head
    write_durably(out / "session.head", head + "\n")
    outcome = SessionOutcome(config, seed, journal_path, oracle, failures, head, recorder.stakes_by_bet,
                             float(env.now), time.monotonic() - started, rules,
                             {"fingerprint": sealer.fingerprint, "session": sealer.session, "every": sealer.every}
                             if sealer else None, ending=ending, status=status, reason=reason)
    outcome.summary = summarise(config.game, rules, oracle, failures,
                                stakes_of_rounds(recorder.stakes_by_round, cycle.probed),
                                ignore_incomplete=set(oracle.incomplete_rounds) - set(failures),
                                probe_rounds=cycle.probed, staged=plan is not None)
    write_junit(out / "junit.xml", outcome.summary, f"bench run {config.game}", ending=ending, reason=reason)
    write_durably(out / "summary.json", json.dumps(outcome.to_json(), indent=2))
    return outcome
