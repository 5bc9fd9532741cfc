"""``bench monitor``'s work: what a tap hears, decoded, judged and journalled
exactly as ``bench run`` judges and journals what it says and hears.

The bytes of each direction go through the adapter's passive listener
(``bench.adapters.tap``) and become the ``FrameEvent``s the bench's session
would have made; they go to the same ``Recorder`` and the same ``Oracle`` as
in ``bench run``, so that a monitor's journal replays (``bench replay``) to
the verdicts the monitor gave live, and a monitor on the link of a ``bench
run`` gives the run's verdicts.

Judging starts at the first HELLO (either side) or OPEN the monitor hears:
frames before it (a tap attached in the middle of a round) are journalled as
``before-sync`` and not judged. A round's record ends where the next round's
OPEN begins; the journal rotates only there (``bench.monitor.series``).
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from bench.journal.ending import CRASHED, INTERRUPTED, LINK_LOST, verdict
from bench.journal.wire_budget import LinkFlooded
from bench.monitor.hourly import Hourly, line
from bench.monitor.merge import CausalMerge
from bench.monitor.series import Series
from bench.monitor.sources import CONTROLLER, HOST, Chunk
from bench.protocol import FrameEvent
from bench.protocol.greeting import mismatches

ECHOED_VIOLATIONS = 20           # violation lines printed an interval; the rest are counted in its report
BEFORE_SYNC = "before-sync"     # a frame heard before the first HELLO or OPEN: journalled, not judged
TAKE_S = 0.1                     # the longest the monitor waits for bytes before it looks at the clocks
GARBAGE_BYTES = 4096             # heard without one frame decoding: the wrong wire format, or no protocol at all


@dataclass
class Limits:
    """When a monitor stops by itself (otherwise: a signal, or a line lost)."""
    seconds: float | None = None
    rounds: int | None = None
    connections: int | None = None     # relay: stop when this many host connections have ended


@dataclass
class MonitorOutcome:
    ending: str
    status: int
    reason: str | None
    rounds: int
    voided: int
    violations: dict[str, int]
    journals: list[tuple[Path, str]]       # (file, head) of every part
    reports: int                           # interval reports written
    dropped: dict[str, int] = field(default_factory=dict)


class Watch:
    def __init__(self, source, series: Series, adapter, game: str, hourly: Hourly, *, limits: Limits = Limits(),
                 out: Path, echo=print, clock=time.monotonic, stop_requested=lambda: None):
        self.source = source
        self.game = game
        self.series = series
        self.adapter = adapter
        self.hourly = hourly
        self.limits = limits
        self.out = Path(out)
        self.echo = echo
        self.clock = clock
        # A signal asks the monitor to stop (the name of it, or None); it is
        # looked at between batches, so that no record is ever cut in two.
        self.stop_requested = stop_requested
        self.listeners = dict(zip((HOST, CONTROLLER), adapter.listeners(game)))
        self.merge = CausalMerge()          # the two directions in the order they happened
        self.synced = False
        self.round: int | None = None       # the round the last OPEN opened
        self.notes: list[str] = []          # what the next round record says of the tap (gaps, a HELLO's mismatch)
        self.ended_connections = 0
        self.stopped: str | None = None
        self.reason: str | None = None
        self.found_violations = 0
        self.decoded = 0                    # frames that decoded (messages, ACKs, NAKs)
        self._seen = (0, 0, 0)              # the part's oracle: rounds, violations, voided rounds counted so far
        self.started = clock()

    # -- the loop -----------------------------------------------------------------
    def run(self) -> MonitorOutcome:
        try:
            self.series.open()
            self.source.start()
            while not self._done():
                items = self.source.handover.take(TAKE_S)
                for item in items:
                    if isinstance(item, Chunk):
                        self._chunk(item)
                    else:
                        self._event(item)
                now = self.clock()
                if not items:
                    for listener in self.listeners.values():
                        for event in listener.expire(now):
                            self.merge.add(event)
                for event in self.merge.release(now):
                    self._frame(event)
                self._judge()
                if self.hourly.due():
                    self.echo(line(self.hourly.emit()))
        except KeyboardInterrupt as err:
            self.stopped, self.reason = INTERRUPTED, f"monitor interrupted ({err or 'SIGINT'})"
        except Exception as err:          # a bug of the monitor's: every file is still written
            self.stopped, self.reason = CRASHED, f"the monitor failed: {err!r}"
            try:
                (self.out / "crash.txt").write_text(traceback.format_exc())
            except OSError:
                pass              # the folder itself is gone: the reason is all there is
        finally:
            self.source.close()
        return self._finish()

    def _done(self) -> bool:
        limits = self.limits
        if self.stopped is None and self.stop_requested():
            self.stopped, self.reason = INTERRUPTED, f"monitor stopped ({self.stop_requested()})"
        if self.stopped is not None:
            return True
        if limits.seconds is not None and self.clock() - self.started >= limits.seconds:
            return True
        if limits.rounds is not None and self.hourly.totals.rounds >= limits.rounds:
            return True
        return limits.connections is not None and self.ended_connections >= limits.connections

    # -- what the tap hands over ------------------------------------------------------
    def _chunk(self, chunk: Chunk) -> None:
        self.hourly.count("bytes", chunk.sender, len(chunk.data))
        for event in self.listeners[chunk.sender].feed(chunk.data, chunk.mono, chunk.wall):
            self.merge.add(event)

    def _event(self, event) -> None:
        if event.what == "connected":
            self.hourly.count("connections")
            self.echo(f"monitor: {event.detail}")
        elif event.what == "closed":
            self.ended_connections += 1
            self.echo(f"monitor: {event.detail}")
        elif event.what == "lost":
            self.stopped, self.reason = LINK_LOST, event.detail
        elif event.what == "gap":
            self.notes.append(event.detail)
            self.echo(f"monitor: {event.detail}")
        dropped = self.source.handover.dropped
        for sender in (HOST, CONTROLLER):
            self.hourly.totals.dropped[sender] = dropped[sender]

    def _frame(self, event: FrameEvent) -> None:
        sender = HOST if event.direction == "tx" else CONTROLLER
        self.hourly.count("frames", sender)
        self.decoded += event.message is not None
        if event.kind == "rejected":
            self.hourly.count("rejected", sender)
        message = event.message
        judged = event.kind in ("send", "message")
        if not self.synced and judged:
            if message.type == "HELLO" or (message.type == "OPEN" and event.direction == "rx"):
                self.synced = True
            else:
                event = event._replace(kind=BEFORE_SYNC, note="heard before the first HELLO or OPEN: not judged")
        if self.synced and event.kind == "message" and message.type == "OPEN":
            self._boundary(message.get("round"))
        elif self.synced and event.kind == "message" and message.type == "HELLO":
            self._heard_hello(message)
        try:
            self.series.part.recorder.on_frame(event)
        except LinkFlooded as err:
            # The bench fails a flooded round; a listener cannot, and goes on:
            # the frame is counted, not journalled (so not judged either).
            self.hourly.count("flooded", sender)
            if self.hourly.tally.flooded[sender] == 1:
                self.echo(f"monitor: round {self.round}: {err}; frames past it are counted, not journalled")

    def _heard_hello(self, hello) -> None:
        """A controller's HELLO that says it runs other rules than the monitor
        judges by: every verdict after it would be by the wrong rules."""
        problems = mismatches(hello, game=self.game, rules=self.series.rules)
        if problems:
            note = "the controller does not run what the monitor judges by: " + "; ".join(problems)
            self.notes.append(note)
            self.hourly.count("mismatched_hellos")
            self.echo(f"monitor: WARNING: {note}")

    # -- rounds and files ------------------------------------------------------------
    def _boundary(self, opening: int | None) -> None:
        """The OPEN of round ``opening`` is about to be judged: the last
        round's record ends here, and the journal rotates if it is due and
        that round is whole (or if the controller started its numbering
        again: a restarted controller)."""
        part = self.series.part
        if self.round is not None:
            self._end_round()
        restarted = self.round is not None and isinstance(opening, int) and opening <= self.round
        whole = part.oracle.round_unfinished is None
        if restarted or (whole and self.series.due()):
            self._close_part(None, None, continued=True)
            self.series.open()
            self._seen = (0, 0, 0)
        self.round = opening if isinstance(opening, int) else self.round

    def _end_round(self, **fields) -> None:
        if self.notes:
            fields["monitor_notes"], self.notes = self.notes, []
        self.series.part.recorder.on_round_end(self.round or 0, None, **fields)

    def _judge(self) -> None:
        """Judge what has been heard, and count what the oracle found."""
        part = self.series.part
        part.recorder.catch_up()
        self._count(part.oracle)

    def _count(self, oracle) -> None:
        rounds, violations, voided = self._seen
        self.hourly.count("rounds", n=len(oracle.rounds) - rounds)
        self.hourly.count("voided", n=len(oracle.voided_rounds) - voided)
        for violation in oracle.violations[violations:]:
            self.hourly.count("violations", violation.clause)
            shown = sum(self.hourly.tally.violations.values())
            if shown <= ECHOED_VIOLATIONS:
                self.echo(f"monitor: VIOLATION [{violation.clause}] round {violation.round}: {violation.message}")
            if shown == ECHOED_VIOLATIONS:
                self.echo("monitor: more violations this interval are counted in its report, not shown")
        self.found_violations += oracle.violation_count - violations
        self._seen = (len(oracle.rounds), oracle.violation_count, len(oracle.voided_rounds))

    def _close_part(self, stopped: str | None, reason: str | None, *, continued: bool = False) -> None:
        part = self.series.part
        recorder, oracle = part.recorder, part.oracle
        judge = stopped != CRASHED
        recorder.catch_up(judge=judge)
        finish_mono = self.clock()
        if judge:
            recorder.verdicts(oracle.finish(finish_mono))
        if recorder.unwritten or (self.round is not None and not continued):
            abandoned = {"abandoned": True} if self.round in oracle.incomplete_rounds else {}
            self._end_round(judge=judge, **abandoned)
        self._count(oracle)
        ending, status = verdict(stopped, len(oracle.violations), 0)
        fields = dict(rounds=len(oracle.rounds), violations=len(oracle.violations), failures=0,
                      voided=len(oracle.voided_rounds), ending=ending, status=status, reason=reason,
                      finish_mono=round(finish_mono, 6), judge=judge,
                      merge={"reordered": self.merge.reordered, "expired_holds": self.merge.expired})
        if continued:
            fields["continued_in"] = f"monitor-{part.number + 1:04d}.jsonl"
        recorder.on_session_end(**fields)
        self.series.close()

    def _finish(self) -> MonitorOutcome:
        if self.series.part is None:        # stopped before its first journal was open: one says so
            self.series.open()
        if self.stopped != CRASHED:
            for event in self.merge.release(self.clock(), everything=True):
                self._frame(event)
        heard = sum(self.hourly.totals.bytes.values())
        if self.stopped is None and not self.decoded and heard >= GARBAGE_BYTES:
            self.stopped, self.reason = LINK_LOST, (
                f"{heard} bytes heard and not one frame of {self.adapter.label()} among them: "
                "the wrong --adapter, or no protocol at all")
        self._close_part(self.stopped, self.reason)
        if self.hourly.tally.rounds or self.hourly.tally.frames or not self.hourly.intervals:
            self.echo(line(self.hourly.emit()))         # the last, partial interval
        totals = self.hourly.totals
        ending, status = verdict(self.stopped, self.found_violations, 0)
        return MonitorOutcome(ending, int(status), self.reason, totals.rounds, totals.voided,
                              dict(sorted(totals.violations.items())), list(self.series.parts),
                              self.hourly.intervals, dict(totals.dropped))
