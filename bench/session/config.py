"""What a session is asked to play and where, worked out before it starts:
its configuration (``SessionConfig``), the rules it plays by, and the
controller it plays (the user's URL, or the emulated one the session starts)
over a line of what speed, with the budget of rounds that speed allows; and,
with ``--reconnect``, the device reopened when it comes back. ``run_session``
(``bench.session.runner``) plays it.
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bench.adapters.registry import adapter_args, is_native
from bench.emulator.process import emulated_controller
from bench.errors import BenchError
from bench.journal.wire_budget import DEFAULT_MAX_FRAMES, DEFAULT_MAX_JOURNAL_BYTES
from bench.play.players import CoveringPlayers, PlayerMix
from bench.protocol import Timeouts
from bench.protocol.errors import LinkError
from bench.protocol.line_speed import Line, LineError, line_baud, split_url
from bench.protocol.link import BAUDRATE, open_link
from bench.rules import DEFAULT_GAME, describe
from bench.rules.submission import default_rules, load_submission
from bench.session import line_budget
from bench.session.cycle import Phases
from bench.session.line_budget import SlicedPlayers

if TYPE_CHECKING:
    from bench.play.camera import CameraOptions
    from bench.session.line_budget import Budget

REOPEN_POLL_S = 0.25       # --reconnect: how often the device is looked for


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
    # The session's ceilings (bench.journal.wire_budget): past either it ends as a link fault with every file.
    max_frames: int = DEFAULT_MAX_FRAMES            # frames judged (sent and received messages)
    max_journal_bytes: int = DEFAULT_MAX_JOURNAL_BYTES
    camera: CameraOptions | None = None    # the result as a camera sees it
    # The line's baud rate (else the controller URL's ?baud=, else 115200 for a device, none over TCP);
    # with the emulated controller, it is put behind a serial line of that speed (bench.emulator.line).
    baud: int | None = None
    reconnect_s: float = 0.0               # a device that goes away: seconds to wait for it to come back (0: end link-lost)
    labels: dict[str, str] = field(default_factory=dict)   # its table, dealer, dice set, wheel (bench.archive.labels)


def session_rules(config: SessionConfig):
    """The rules a session plays by: its submission, checked to be for its game, or the game's default."""
    if config.submission:
        rules = load_submission(config.submission)
        if rules.game != config.game:
            raise BenchError(f"{config.submission}: game: the submission is for {rules.game}, "
                                          f"not {config.game}")
        return rules
    return default_rules(config.game, describe(config.game).default_paytable)


@dataclass(frozen=True)
class _Link:
    url: str | None                        # None: the emulated controller, started by the session
    baud: int | None                       # the line's speed, None if it has none (TCP, a bare pty)
    adapter: object                        # the controller's wire format: the bytes the budget counts
    budget: Budget | None = None           # the line's budget for the version offered

    def in_version(self, config: SessionConfig, rules, seed: int, version: int):
        """``(players, budget)``: the players the line allows once the protocol
        version is agreed (version 1 carries both directions' bytes in turn),
        and the budget, None without a line speed. LineError if none fit."""
        players = config.players or CoveringPlayers(config.game, rules)
        if self.baud is None:
            return players, None
        budget = self.plan(config, rules, players, seed, version)
        return (SlicedPlayers(players, budget.wagers_per_round) if budget.sized else players), budget

    def plan(self, config: SessionConfig, rules, players, seed: int, version: int):
        assert self.baud is not None, "a budget is planned only for a line with a speed"
        return line_budget.plan(Line(self.baud, Timeouts()), game=config.game, rules=rules, players=players,
                                phases=config.phases, version=version, probe_wagers_on=config.probe_wagers,
                                session_seed=seed, adapter=self.adapter)


def _link(config: SessionConfig, rules, seed: int, adapter) -> _Link:
    """Where the controller is and the speed of the line to it; with a speed,
    the budget of the session's rounds (BenchError if they cannot fit)."""
    url, baud = config.controller, config.baud
    try:
        if url is not None:
            url, in_url = split_url(url)
            if baud is not None and in_url is not None and baud != in_url:
                raise LineError(f"--baud {baud} and the controller URL's baud={in_url} disagree")
            baud = line_baud(url, baud if baud is not None else in_url)
        if baud is None:
            return _Link(url, None, adapter)
        link = _Link(url, baud, adapter)
        players = config.players or CoveringPlayers(config.game, rules)
        offered = 2 if is_native(adapter) else 1     # an adapter carries version 1 of the bench's messages
        return _Link(url, baud, adapter, link.plan(config, rules, players, seed, offered))
    except LineError as err:
        raise BenchError(f"line budget: {err}") from None


def _reopen(url: str, baud: int | None, within_s: float, old, stack: ExitStack):
    """The link to ``url`` again, once its device is back (polled every
    ``REOPEN_POLL_S``), or None after ``within_s`` seconds."""
    old.close()
    deadline = time.monotonic() + within_s
    while True:
        try:
            link = open_link(url, baudrate=baud or BAUDRATE)
        except LinkError:
            if time.monotonic() >= deadline:
                return None
            time.sleep(min(REOPEN_POLL_S, max(0.0, deadline - time.monotonic())))
            continue
        stack.callback(link.close)
        return link


def _controller_url(config: SessionConfig, seed: int, line: _Link, adapter, out: Path, stack: ExitStack) -> str:
    """The URL of the controller: the user's, or that of the emulated one,
    started for the session (behind a serial line of the session's speed,
    if it has one)."""
    if line.url is not None:
        return line.url
    cable = None
    if line.baud is not None:
        from bench.emulator.line import SerialLine
        cable = stack.enter_context(SerialLine(out / "line.tty", line.baud))
    announced = stack.enter_context(emulated_controller(
        config.game_file or config.game, seed=seed, submission=config.submission,
        misbehave=config.misbehave, extra=tuple(config.emulator_args) + adapter_args(adapter),
        listen=cable.controller_path if cable else None, stderr_path=str(out / "emulator.log")))
    return str(cable.device) if cable else announced
