"""The link to one game controller for a whole pytest run of the Gherkin
scenarios (``pytest features/ --controller URL``): its session, its oracle,
its journal and its wire logs, and the two ways a scenario fails on it.

- ``ControllerConnection``: the link opened once, the controller greeted,
  every frame past the oracle and into the run's journal (as ``bench run``
  writes it), the round it has open for betting;
- ``WireLog``: one scenario's frames and verdicts, the file a failure names;
- ``ControllerViolation``: the oracle found the controller breaking a clause;
- ``ControllerFailure``: the controller did not play its part (no reply in
  time, a reset of its own, the link lost).

Apart from ``bench.scenarios.controller_table`` (the table a scenario plays
on, round by round) because the connection outlives every scenario and knows
nothing of a scenario's bets.
"""

from __future__ import annotations

from pathlib import Path

from bench.adapters.native import Native
from bench.errors import BenchError
from bench.journal.chain import JournalWriter
from bench.journal.recorder import Recorder, adapter_fields, game_file_fields, session_header
from bench.journal.seal import sealer_for
from bench.oracle import Oracle, Violation
from bench.oracle.clauses import PROTOCOL, awaited_clause
from bench.protocol import BENCH, FrameEvent, LinkError, Message, make
from bench.protocol.errors import ProtocolViolation, ResponseTimeout
from bench.protocol.greeting import greet, replies_to
from bench.protocol.line_speed import line_baud, split_url, window_for
from bench.protocol.link import BAUDRATE, open_link
from bench.protocol.timeouts import DEFAULT_REPLY_S
from bench.rules import describe
from bench.rules.submission import Rules
from tablebench_io.commandline import doc_ref

REPLY_S = DEFAULT_REPLY_S   # seconds the bench waits for each controller reply (checked by the oracle too)
JUDGED_KEPT = 1000       # judged frames kept for a failure to quote (a scenario's rounds; older ones are in the log)


class ControllerViolation(AssertionError):
    """The oracle found the controller breaking a clause. Besides its text it
    carries the verdicts, the frames that revealed them (oracle frame index ->
    ``FrameEvent``) and the wire log, for the failure's report
    (``bench.scenarios.failure_report``)."""

    def __init__(self, text: str, *, violations=(), frames=None, log: Path | None = None,
                 controller: str = ""):
        super().__init__(text)
        self.violations = list(violations)
        self.frames = dict(frames or {})
        self.log = log
        self.controller = controller


class ControllerFailure(AssertionError):
    """The controller did not play its part of a round: no reply in time, a
    reset of its own, the link lost. The text starts with the clause that
    orders what was missing, or ``[protocol]`` and the section of
    docs/protocol.md, in brackets."""

    def __init__(self, text: str, *, log: Path | None = None, controller: str = ""):
        super().__init__(text)
        self.log = log
        self.controller = controller


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
                 reply_s: float = REPLY_S, description: str | None = None, journal: Path,
                 emulated: bool = False, misbehave: str | None = None, key: str | None = None, adapter=None,
                 labels: dict[str, str] | None = None):
        adapter = adapter or Native()
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
        # Indices of oracle violations found while a session started (a HELLO's exchange up to the
        # controller's OPEN, docs/protocol.md 5): they name the earlier session's round, or none the
        # table plays, so the scenario that started the session reports them (ControllerTable._fresh).
        self.session_start: list[int] = []
        self.round_in_play: int | None = None  # the round the table plays, named by a failure
        # The last frames the oracle judged, by its frame index: a failure quotes the one that revealed it.
        self.judged: dict[int, FrameEvent] = {}
        self._serial = 0
        device, baud = split_url(url)     # /dev/ttyUSB0?baud=9600: the line's speed (bench docs protocol 17)
        self.baud = line_baud(device, baud)
        self.link = open_link(device, baudrate=self.baud or BAUDRATE)   # first: an unreachable one leaves no journal
        # The run's journal (as bench run writes it: hash-chained, one record
        # per scenario here), for `bench replay` to verify and judge again.
        # Frames reach the oracle the way they do in bench run: through the Recorder.
        try:
            sealer = sealer_for(key)
            writer = JournalWriter(journal, sealer=sealer)
            writer.append("session", seal=sealer.header if sealer else None, **session_header(
                game=game, rules=rules, controller=url, emulated=emulated, misbehave=misbehave,
                phases={"reply_s": reply_s}, runner="pytest features/ --controller", **adapter_fields(adapter),
                **game_file_fields(game), **(labels or {})))
            writer.sync()
        except BaseException:
            self.link.close()
            raise
        self.recorder = Recorder(writer, self.oracle)
        self.session = adapter.open(self.link, game, role=BENCH, observer=self._on_frame)

    # -- every frame --------------------------------------------------------
    def _on_frame(self, event: FrameEvent) -> None:
        if self.log is not None:
            self.log.frame(event)
        found, frames = len(self.oracle.violations), self.oracle.frames
        self.recorder.on_frame(event)
        self.recorder.catch_up()          # a scenario's verdicts are wanted as its frames pass
        if self.oracle.frames > frames:
            self.judged[self.oracle.frames - 1] = event
            if len(self.judged) > JUDGED_KEPT:
                del self.judged[next(iter(self.judged))]
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
        if self.recorder.unwritten:
            self.recorder.on_round_end(round_no or 0, None, scenario=scenario)

    # -- talking ------------------------------------------------------------
    def send(self, type_: str, **fields) -> Message:
        return self.session.send(make(type_, **fields))

    def expect(self, *types: str) -> Message:
        """The next of ``types``. One that does not come within ``reply_s``,
        or a RESET of the controller's own instead, is a ``ControllerFailure``
        naming the clause that orders it (or the protocol's section)."""
        wanted = types if "RESET" in types else types + ("RESET",)
        try:
            message = self.session.receive(self.reply_s, expect=wanted)
        except ResponseTimeout as err:
            raise self.failure(awaited_clause(self.game, types), f"{err} ({doc_ref('protocol', 11)})") from None
        if message.type == "RESET" and "RESET" not in types:
            self.open_round = None          # it voids the round and opens the next itself
            raise self.failure(PROTOCOL, f"the controller reset ({message.get('reason')}) in the middle of the "
                                         f"round, which is void ({doc_ref('protocol', 5)})")
        return message

    def failure(self, clause: str, detail: str) -> ControllerFailure:
        where = f"round {self.round_in_play}: " if self.round_in_play is not None else ""
        return ControllerFailure(f"[{clause}] {where}{detail}", log=self.log.path if self.log else None,
                                 controller=self.description)

    def wager_id(self) -> str:
        self._serial += 1
        return f"b{self._serial}"

    def reply_to(self, wager_id: str) -> Message:
        return self.replies_to([wager_id])[wager_id]

    def replies_to(self, wager_ids) -> dict[str, Message]:
        try:
            return replies_to(self.session, wager_ids, self.reply_s)
        except ResponseTimeout as err:
            raise self.failure(awaited_clause(self.game, ("ACCEPT",)),
                               f"{err} ({doc_ref('protocol', 11)})") from None

    def handshake(self) -> None:
        """HELLO both ways; the controller must run the game and rules the
        bench judges it by (its HELLO says which); then its first round opens."""
        self.session.inbox.clear()
        found = len(self.oracle.violations)
        try:
            try:
                greet(self.session, game=self.game, rules=self.rules, software=self.software,
                      reply_s=self.reply_s, description=self.description, window=window_for(self.baud))
            except ProtocolViolation as err:
                raise BenchError(str(err)) from None
            self._take_open()
        finally:
            self.session_start.extend(range(found, len(self.oracle.violations)))

    def _take_open(self) -> int:
        """Wait for OPEN; what is still queued from earlier rounds (a voided
        round's settlement) has been seen by the oracle and is dropped. After
        a HELLO this is the OPEN that follows the controller's HELLO: the
        table follows the controller's round number, whatever it was."""
        round_no = self.open_round = self.expect("OPEN")["round"]
        stale = [m for m in self.session.inbox if m.round is not None and m.round < round_no]
        for message in stale:
            self.session.inbox.remove(message)
        return round_no

    def betting_round(self) -> int:
        if self.broken:
            raise self.failure(PROTOCOL, f"the link to {self.description} was lost earlier ({self.broken}) "
                                         f"({doc_ref('protocol', 3)})")
        if self.open_round is None:
            return self._take_open()
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
            self.recorder.verdicts(self.oracle.finish())
            self.recorder.on_session_end(protocol=self.session.version)
        finally:
            try:
                journal = self.recorder.journal
                journal.close()
                journal.path.with_suffix(".head").write_text(journal.head + "\n")
            finally:
                self.link.close()
