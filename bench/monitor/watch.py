"""Why this module is over 500 lines: it is one state machine, ``Watch``.
Nearly all of its methods read and change the same state (synced or not,
the round, the journal part open, sight lost and why, the judge failed or
not, the notes and counts of the interval) in an order that matters: a
frame taken may end a round, rotate the journal, resume judging or start a
new part. Split into modules, following one frame would take several files.
What stands apart is apart: the run's records (``Limits``,
``MonitorOutcome``) in ``bench.monitor.run_records``, and the faults, the
merge, the journal series, the intervals and the sources in their modules.

``bench monitor``'s work: what a tap hears, decoded, judged and journalled
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

**Losing sight.** When the tap misses what the link carried (a message the
receiver took that the tap did not hear intact, a silent tap line, bytes the
copy dropped while the judge was behind) the judge would blame the
controller for what the tap missed. So the monitor says it as a monitoring
fault (``bench.monitor.faults``) and stops judging there: the rest of that
round is journalled as ``unjudged`` frames. Judging starts again at the next
HELLO or OPEN heard with every line carrying bytes again; if the journal's
oracle was inside the lost round, a new journal part starts there (its
oracle fresh, as at a rotation), the old one ending where sight was lost, so
that each part replays on its own to the verdicts given live.

**The judge's own faults.** A full disk or a failure of the monitor's own
stops the judging, never the link: a relay goes on forwarding the host's
connection until it ends, the handed-over bytes counted and let go; the
journal gets its session-end record and head if they can be written (the
``Reserve`` kept on the disk for them is let go first).
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path

from bench.adapters.tap import UNHEARD, Pair
from bench.journal.ending import CRASHED, DISK_FULL, INTERRUPTED, LINK_LOST, verdict
from bench.journal.wire_budget import LinkFlooded
from bench.monitor.faults import (COPY_DROPPED, JUDGE_FAILED, LAGGING_LINE, NOISE, SILENT_LINE, STOPPED_BEHIND,
                                  Faults, Silence)
from bench.monitor.faults import UNHEARD as UNHEARD_FAULT
from bench.monitor.hourly import Hourly, line
from bench.monitor.merge import COPY_GAP, COPY_GAP_END, HOLD_S, OTHER, SIDE, CausalMerge
from bench.monitor.run_records import Limits, MonitorOutcome
from bench.monitor.series import Part, Series
from bench.monitor.sources import CONTROLLER, HOST, Chunk
from bench.protocol import FrameEvent, Message
from bench.protocol.greeting import mismatches
from tablebench_io.commandline import is_disk_full

ECHOED_VIOLATIONS = 20           # violation lines printed an interval; the rest are counted in its report
ECHOED = 20                      # other lines (notes, faults, connections) printed an interval; the rest counted
NOTES_PER_ROUND = 20             # notes a round's record keeps; the rest are counted
BEFORE_SYNC = "before-sync"     # a frame heard before the first HELLO or OPEN: journalled, not judged
UNJUDGED = "unjudged"           # a frame heard after the tap lost sight of its round: journalled, not judged
TAKE_S = 0.1                     # the longest the monitor waits for bytes before it looks at the clocks
SLICE = 512                      # items taken at a time: a stop, a report, a clock is looked at between slices
GARBAGE_BYTES = 4096             # heard without one frame decoding: the wrong wire format, or no protocol at all
NOISE_BYTES = 4096               # rejected bytes in a row on one line said as noise
LAG_S = 0.25                     # a line this far behind the other is said as lagging
DRAIN_S = 5.0                    # at a stop, the longest spent judging what was handed over before it
DRAIN_SLICE = 32                 # items judged between two looks at that deadline


class Watch:
    def __init__(self, source, series: Series, adapter, game: str, hourly: Hourly, *, limits: Limits = Limits(),
                 out: Path, echo=print, clock=time.monotonic, stop_requested=lambda: None, reserve=None,
                 hold_s: float = HOLD_S):
        self.source = source
        self.game = game
        self.series = series
        self.adapter = adapter
        self.hourly = hourly
        self.limits = limits
        self.out = Path(out)
        self.echo = echo
        self.clock = clock
        self.reserve = reserve              # room kept on the disk for the journal's end (bench.session.out_folder)
        # A signal asks the monitor to stop (the name of it, or None); it is
        # looked at between slices, so that no record is ever cut in two.
        self.stop_requested = stop_requested
        self.listeners = dict(zip((HOST, CONTROLLER), adapter.listeners(game)))
        self.pair = Pair(self.listeners[HOST], self.listeners[CONTROLLER])
        # A relay's arrival order is the link's; a Y-cable's two lines need the causal merge.
        ordered = getattr(source, "ordered", False)
        self.merge = CausalMerge(hold_s, causal=not ordered, modulus=getattr(self.listeners[HOST], "modulus", None))
        self.silence = None if ordered else Silence()
        self.faults = Faults()
        self.synced = False
        self.round: int | None = None       # the round the last OPEN opened
        self.notes: list[str] = []          # what the next round record says of the tap (gaps, a HELLO's mismatch)
        self.notes_more = 0
        self.blind: dict | None = None      # since when, and why, the judge has lost sight of the round
        self.judging = True                 # False once the judge itself failed: bytes counted, nothing judged
        self.ended_connections = 0
        self.stopped: str | None = None
        self.reason: str | None = None
        self.found_violations = 0
        self.decoded = 0                    # frames that decoded (messages, ACKs, NAKs)
        self.unjudged_rounds = 0
        self.missing: list[str] = []
        self._seen = (0, 0, 0)              # the part's oracle: rounds, violations, voided rounds counted so far
        self._said = 0                      # lines said this interval (``ECHOED``)
        self._stream_now = float("-inf")    # the arrival time of the latest byte taken
        self._counted = {"bytes": {HOST: 0, CONTROLLER: 0}, "frames": {HOST: 0, CONTROLLER: 0}}
        self._last_wall = time.time()       # and its wall-clock time
        self._dropped_seen = {HOST: 0, CONTROLLER: 0}
        self._noise = {HOST: 0, CONTROLLER: 0}      # rejected bytes since the line's last frame
        self._lagging = 0.0                 # the lag last said (0: none)
        self._dropping = False              # the copy is dropping bytes (between a gap and its end)
        self._resumes: str | None = None   # why sight was lost, when judging has just resumed
        self._released_at = {"tx": float("-inf"), "rx": float("-inf")}   # the latest time released, each way
        self.started = clock()

    @property
    def part(self) -> Part:
        """The journal part being written (one is open from the start to the end)."""
        part = self.series.part
        if part is None:
            raise RuntimeError("the monitor has no journal part open")
        return part

    # -- the loop -----------------------------------------------------------------
    def run(self) -> MonitorOutcome:
        started = False
        try:
            try:
                self.series.open()
            except Exception as err:
                self._failed(err)           # before anything was listened to: nothing to relay either
            if self.judging:
                self.source.start()
                started = True
            while not self._done():
                items = self.source.handover.take(TAKE_S, SLICE)
                if not self.judging:
                    self._count_only(items)
                    if self.hourly.due():
                        try:
                            self._report()      # the intervals go on, counting what is not judged
                        except OSError:
                            pass                # the disk that stopped the judge: the end says it
                    continue
                try:
                    self._step(items)
                except Exception as err:   # a full disk, or a bug of the monitor's: the link goes on
                    self._failed(err)
        except KeyboardInterrupt as err:
            if self.stopped is None:
                self.stopped, self.reason = INTERRUPTED, f"monitor interrupted ({err or 'SIGINT'})"
        finally:
            if started:
                self.source.close()
        if self.judging:
            self._drain()
        return self._finish()

    def _done(self) -> bool:
        limits = self.limits
        asked = self.stop_requested()
        if not self.judging:
            # The judge has failed: the monitor waits only for the link it relays to end.
            return bool(asked) or not getattr(self.source, "relaying", False) or self._time_up()
        if self.stopped is None and asked:
            self.stopped, self.reason = INTERRUPTED, f"monitor stopped ({asked})"
        if self.stopped is not None:
            return True
        if self._time_up():
            return True
        if limits.rounds is not None and self.hourly.totals.rounds >= limits.rounds:
            return True
        return limits.connections is not None and self.ended_connections >= limits.connections

    def _time_up(self) -> bool:
        return self.limits.seconds is not None and self.clock() - self.started >= self.limits.seconds

    def _step(self, items: list, caught_up: bool | None = None) -> None:
        for item in items:
            if isinstance(item, Chunk):
                self._chunk(item)
            else:
                self._event(item)
        # Everything handed over by now is in hand unless the slice was full (or a
        # backlog is being drained): then the clock is the stream's own, for the
        # bytes still waiting may answer what the merge and the listeners hold.
        if caught_up is None:
            caught_up = len(items) < SLICE
        now = self.clock() if caught_up else self._stream_now
        for event in (self.pair.expire(now) if not items else self.pair.overdue(now)):
            self._heard(event)
        if self.silence is not None:
            for side, seconds, owed, since in self.silence.check(now, self._wire_offsets()):
                other = CONTROLLER if side == HOST else HOST
                # Sight was lost where the silence began (the first message it left unanswered),
                # not when it was noticed: replies owed after that are not the controller's lateness.
                self._fault(SILENT_LINE, f"the {side}'s line has carried nothing for {seconds:.1f} s while the "
                                         f"{other} sent {owed} message{'s' if owed > 1 else ''} it acknowledges: the "
                                         "tap does not hear that line; nothing is judged until it carries bytes again",
                            side=side, mono=since)
        for event in self.merge.release(now):
            self._frame(event)
        self._watch_lag()
        self._judge()
        self._count_dropped()
        self._flush_counts()
        if self.hourly.due():
            self._report()

    def _flush_counts(self) -> None:
        """The bytes and frames counted since the last look, into the interval's
        tally (counted here a frame at a time, handed on once a slice)."""
        for attribute, by_side in self._counted.items():
            for side, n in by_side.items():
                if n:
                    self.hourly.count(attribute, side, n)
                    by_side[side] = 0

    def _wire_offsets(self) -> dict[str, float]:
        offsets = self.merge.offsets
        return {HOST: offsets["tx"], CONTROLLER: offsets["rx"]}

    def _report(self) -> None:
        self.echo(line(self.hourly.emit()))
        if self._said > ECHOED:
            self.echo(f"monitor: {self._said - ECHOED} more notes in that interval were counted, not shown")
        self._said = 0

    # -- what the tap hands over ------------------------------------------------------
    def _chunk(self, chunk: Chunk) -> None:
        sender = chunk.sender
        self._counted["bytes"][sender] += len(chunk.data)
        if chunk.mono > self._stream_now:
            self._stream_now = chunk.mono
        self._last_wall = chunk.wall
        if self.silence is not None:
            # On the wire's time (the merge's offsets taken off): a late line's answers came before it.
            ended = self.silence.heard(sender, chunk.mono - self.merge.offsets["tx" if sender == HOST else "rx"])
            if ended is not None:
                self._note(f"the {sender}'s line carries bytes again after {ended:.1f} s of silence")
        for event in self.pair.feed(self.listeners[sender], chunk.data, chunk.mono, chunk.wall):
            self._heard(event)

    def _heard(self, event: FrameEvent) -> None:
        """A listener's event, before the merge puts the two lines in order."""
        if self.silence is not None and event.kind in ("send", "message"):
            self.silence.message(HOST if event.direction == "tx" else CONTROLLER,
                                 event.mono - self.merge.offsets[event.direction])
        self.merge.add(event)

    def _event(self, event) -> None:
        if event.what == "connected":
            self.hourly.count("connections")
            self._say(f"monitor: {event.detail}")
        elif event.what == "closed":
            self.ended_connections += 1
            self._say(f"monitor: {event.detail}")
        elif event.what == "lost":
            self.stopped, self.reason = LINK_LOST, event.detail
        elif event.what in ("gap", "gap-end"):
            # Said where it happened among the frames (the merge places it by its time), not
            # when it was handed over: frames read before it may still wait in the merge.
            kind = COPY_GAP if event.what == "gap" else COPY_GAP_END
            self.merge.add(FrameEvent("rx", kind, b"", None, event.detail, event.mono, self._last_wall))

    def _count_dropped(self) -> None:
        """What the copy dropped since the last look, into the interval's tally."""
        dropped = getattr(self.source.handover, "dropped", None) or {}
        for sender in (HOST, CONTROLLER):
            now = dropped.get(sender, 0)
            if now > self._dropped_seen[sender]:
                self.hourly.count("dropped", sender, now - self._dropped_seen[sender])
                self._dropped_seen[sender] = now

    def _frame(self, event: FrameEvent) -> None:
        kind = event.kind
        sender = HOST if event.direction == "tx" else CONTROLLER
        released = self._released_at
        if event.mono > released[event.direction]:
            released[event.direction] = event.mono
        if kind == UNHEARD:
            self.hourly.count("unheard", sender, n=max(1, len(getattr(event, "accounts", ()))))
            if self.synced and self.blind is None:
                self._fault(UNHEARD_FAULT, event.note or "a message not heard", side=sender, mono=event.mono)
            self._journal(event, sender)
            return
        if kind == COPY_GAP or kind == COPY_GAP_END:
            self._dropping = kind == COPY_GAP
            if self._dropping:
                self._fault(COPY_DROPPED, event.note or "bytes dropped from the copy", mono=event.mono)
            else:
                self._note(event.note or "the copy takes bytes again")
            self._journal(event, sender)
            return
        self._counted["frames"][sender] += 1
        message = event.message
        if message is not None:
            self.decoded += 1
            if self._noise[sender] >= NOISE_BYTES:
                self._note(f"the noise on the {sender}'s line ended after {self._noise[sender]} bytes")
            self._noise[sender] = 0
        elif kind == "rejected":
            self.hourly.count("rejected", sender)
            self._noisy(sender, event)
        if message is not None and (kind == "send" or kind == "message"):
            event = self._taken(event, message, sender)
        self._journal(event, sender)

    def _taken(self, event: FrameEvent, message: Message, sender: str) -> FrameEvent:
        """A message the receiver took: where judging starts, resumes, or
        (out of sight) is not done; the frame as it is journalled."""
        if not self.synced:
            if message.type == "HELLO" or (message.type == "OPEN" and event.direction == "rx"):
                self.synced = True
            else:
                return event._replace(kind=BEFORE_SYNC, note="heard before the first HELLO or OPEN: not judged")
        opening = event.kind == "message" and message.type == "OPEN"
        if self.blind is not None and (opening or message.type == "HELLO") and self._may_resume(event):
            self._resume()
        if self._resumes is not None:
            at = f"the OPEN of round {message.get('round')}" if opening else f"the {sender}'s HELLO"
            self._note(f"judging resumes at {at} (sight was lost: {self._resumes})")
            self._resumes = None
        if opening:
            if self.blind is None:
                self._boundary(message.get("round"))
            else:
                self._blind_boundary(message.get("round"))
        elif event.kind == "message" and message.type == "HELLO" and self.blind is None:
            self._heard_hello(message)
        blind = self.blind
        if blind is None:
            return event
        number = message.get("round")
        if isinstance(number, int) and (self.round is None or number > self.round):
            # A round whose OPEN the tap did not hear: its frames name it, and get a record of their own.
            self._blind_boundary(number)
        return event._replace(kind=UNJUDGED, note=f"the tap lost sight of this round ({blind['why']}): not judged")

    def _journal(self, event: FrameEvent, sender: str) -> None:
        try:
            self.part.recorder.on_frame(event)
        except LinkFlooded as err:
            # The bench fails a flooded round; a listener cannot, and goes on:
            # the frame is counted, not journalled (so not judged either).
            self.hourly.count("flooded", sender)
            if self.hourly.tally.flooded[sender] == 1:
                self._say(f"monitor: round {self.round}: {err}; frames past it are counted, not journalled")

    def _noisy(self, sender: str, event: FrameEvent) -> None:
        """A run of rejected bytes on one line: said once, when it passes
        ``NOISE_BYTES``, and its length when a frame ends it (not a
        monitoring loss by itself: the frames inside it are missed, and what
        the receiver took of them shows as unheard)."""
        before = self._noise[sender]
        self._noise[sender] = before + (event.size if event.size is not None else len(event.raw))
        if before < NOISE_BYTES <= self._noise[sender]:
            self._fault(NOISE, f"{self._noise[sender]} bytes on the {sender}'s line and not one frame among them",
                        side=sender, mono=event.mono, blind=False)

    def _heard_hello(self, hello) -> None:
        """A controller's HELLO that says it runs other rules than the monitor
        judges by: every verdict after it would be by the wrong rules."""
        problems = mismatches(hello, game=self.game, rules=self.series.rules)
        if problems:
            note = "the controller does not run what the monitor judges by: " + "; ".join(problems)
            self._keep_note(note)
            self.hourly.count("mismatched_hellos")
            self._say(f"monitor: WARNING: {note}")

    # -- what is said ------------------------------------------------------------------
    def _say(self, text: str) -> None:
        """One line on stdout, at most ``ECHOED`` an interval (the rest are counted)."""
        self._said += 1
        if self._said <= ECHOED:
            self.echo(text)

    def _keep_note(self, text: str) -> None:
        if len(self.notes) < NOTES_PER_ROUND:
            self.notes.append(text)
        else:
            self.notes_more += 1

    def _note(self, text: str) -> None:
        self._keep_note(text)
        self._say(f"monitor: {text}")

    def _fault(self, kind: str, detail: str, *, side: str | None = None, mono: float | None = None,
               blind: bool = True) -> None:
        """A monitoring fault: said, journalled with the round, counted; and
        (``blind``) the judge stops judging the round here."""
        self.faults.add(kind, detail, side=side, round_no=self.round, mono=mono)
        self.hourly.count("faults", kind)
        where = f" round {self.round}:" if self.round is not None else ""
        self._say(f"monitor: MONITORING FAULT [{kind}]{where} {detail}")
        if blind and self.synced and self.blind is None and self.judging:
            self.blind = {"since": mono if mono is not None else self._stream_now, "why": kind}

    def _watch_lag(self) -> None:
        direction, seconds = self.merge.lag
        side = SIDE[direction]
        if seconds >= LAG_S and seconds >= 2 * self._lagging:
            self._lagging = seconds
            other = CONTROLLER if side == HOST else HOST
            self._fault(LAGGING_LINE, f"the {side}'s line delivers its bytes {seconds:.2f} s after the {other}'s "
                                      f"ACKs show they were on the wire: its frames are timed {seconds:.2f} s "
                                      "earlier from here on", side=side, blind=False)
        elif self._lagging and seconds < LAG_S / 2:
            self._lagging = 0.0
            self._note(f"the {side}'s line has caught up (behind by {seconds:.3f} s)")

    # -- losing and regaining sight ----------------------------------------------------
    def _may_resume(self, event: FrameEvent) -> bool:
        """Sight is back at ``event`` (a HELLO or an OPEN): the copy drops
        nothing; and (a Y-cable) no line is silent, each has carried bytes
        since sight was lost, and nothing the other side said after
        ``event`` has been released before it (a line found late shows its
        frames after the other's answers to them: judging restarts at a
        frame the merge has put back in its place)."""
        if self._dropping or self.blind is None:
            return False
        if event.mono < self._released_at[OTHER[event.direction]] - LAG_S:
            return False
        silence = self.silence
        if silence is None:
            return True
        since = self.blind["since"]
        return not silence.any_silent() and all(last is not None and last >= since for last in silence.last.values())

    def _unjudged_fields(self, blind: dict) -> dict:
        return {"unjudged": {"why": blind["why"], "since_mono": round(blind["since"], 6)}}

    def _resume(self) -> None:
        """Judging starts again at the frame being released (a HELLO or an
        OPEN). The round the tap lost sight of is recorded as not judged; if
        the part's oracle judged anything (it may be inside that round, or
        wait for a reply the tap did not hear), the part ends where sight
        was lost and a new one starts here, its oracle fresh."""
        blind, part = self.blind, self.part
        if blind is None:
            return
        self.blind = None
        fields = self._unjudged_fields(blind)
        # What the part's oracle has judged includes the frames journalled and not yet taken in
        # (the recorder judges a slice at a time): judging resumed at an OPEN, sight lost again
        # within the same slice, the OPEN's part looked empty and was kept, and replay judged
        # that OPEN's round ended without its SETTLED (a false 625b.2(d)(6) violation).
        self._judge()
        if part.oracle.frames:
            self._close_part(None, None, continued=True, finish_mono=blind["since"], round_fields=fields)
            self.series.open()
            self._seen = (0, 0, 0)
        elif self.round is not None or part.recorder.unwritten:
            self._end_round(**fields)
        self.round = None
        self._resumes = blind["why"]

    def _blind_boundary(self, opening: int | None) -> None:
        """A new round while the tap cannot see: the round before is recorded,
        not judged. (Out of sight a late line's frames of an earlier round
        may follow the other's of a later one: they join the record in hand,
        for a journal's rounds never go back.)"""
        if not isinstance(opening, int) or (self.round is not None and opening <= self.round):
            return
        if self.round is not None and self.blind is not None:
            self._end_round(**self._unjudged_fields(self.blind))
        self.round = opening

    # -- rounds and files ------------------------------------------------------------
    def _boundary(self, opening: int | None) -> None:
        """The OPEN of round ``opening`` is about to be judged: the last
        round's record ends here, and the journal rotates if it is due and
        that round is whole (or if the controller started its numbering
        again: a restarted controller)."""
        part = self.part
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
        if self.notes_more:
            fields["monitor_notes_more"], self.notes_more = self.notes_more, 0
        fields.update(self.faults.take_round())
        if "unjudged" in fields:
            self.unjudged_rounds += 1
            self.hourly.count("unjudged_rounds")
        self.part.recorder.on_round_end(self.round or 0, None, **fields)

    def _judge(self) -> None:
        """Judge what has been heard, and count what the oracle found."""
        part = self.part
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

    def _close_part(self, stopped: str | None, reason: str | None, *, continued: bool = False,
                    finish_mono: float | None = None, round_fields: dict | None = None) -> None:
        """The part's last round record and its session-end record; the part
        closed (its head beside it). ``finish_mono``: when the oracle's
        overdue replies are judged (where sight was lost, for a part that
        ends there: what came later was not heard)."""
        part = self.part
        recorder, oracle = part.recorder, part.oracle
        judge = stopped != CRASHED
        recorder.catch_up(judge=judge)
        finish_mono = self.clock() if finish_mono is None else finish_mono
        if judge:
            recorder.verdicts(oracle.finish(finish_mono))
        if round_fields is not None or recorder.unwritten or (self.round is not None and not continued):
            fields = dict(round_fields or {})
            if self.blind is not None and "unjudged" not in fields:
                fields.update(self._unjudged_fields(self.blind))
            if self.round in oracle.incomplete_rounds:
                fields["abandoned"] = True
            self._end_round(judge=judge, **fields)
        self._count(oracle)
        ending, status = verdict(stopped, len(oracle.violations), 0)
        end = dict(rounds=len(oracle.rounds), violations=len(oracle.violations), failures=0,
                   voided=len(oracle.voided_rounds), ending=ending, status=status, reason=reason,
                   finish_mono=round(finish_mono, 6), judge=judge,
                   merge={"reordered": self.merge.reordered, "expired_holds": self.merge.expired,
                          "late": self.merge.late,
                          "offsets_s": {SIDE[d]: round(s, 6) for d, s in self.merge.offsets.items()}},
                   monitoring_faults_by_kind=dict(sorted(self.faults.totals.items())),
                   dropped_bytes=dict(self._dropped_seen))
        if continued:
            end["continued_in"] = f"monitor-{part.number + 1:04d}.jsonl"
        self._end_session(recorder, end)
        self.series.close()

    def _end_session(self, recorder, end: dict) -> None:
        """The session-end record; on a full disk, the reserve let go and the
        record written without the frames kept for it (saying how many)."""
        try:
            recorder.on_session_end(**end)
        except OSError as err:
            if not is_disk_full(err):
                raise
            self._disk_full(err)
            end.update(zip(("ending", "status"), verdict(self.stopped, end["violations"], 0)), reason=self.reason)
            lost = recorder.let_go()
            recorder.on_session_end(**end, lost=lost)

    # -- the judge's own faults, and the end -------------------------------------------
    def _failed(self, err: BaseException) -> None:
        """The judge cannot go on: said, and the judging stops; a relay goes
        on forwarding (``_done``)."""
        if isinstance(err, OSError) and is_disk_full(err):
            self._disk_full(err)
        else:
            self.stopped, self.reason = CRASHED, f"the monitor failed: {err!r}"
            try:
                (self.out / "crash.txt").write_text(traceback.format_exc())
            except OSError:
                pass              # the folder itself is gone: the reason is all there is
        if self.blind is None and self.synced:
            # Nothing after this is heard by the judge: the round's replies still owed are not overdue.
            self.blind = {"since": self._stream_now, "why": JUDGE_FAILED}
        self.judging = False
        self.faults.add(JUDGE_FAILED, self.reason or "", side=None, round_no=self.round, mono=None)
        relaying = getattr(self.source, "relaying", False)
        self.echo(f"monitor: {self.reason}: judging stops"
                  + ("; the relay goes on forwarding until the host's connection ends" if relaying else ""))

    def _disk_full(self, err: OSError) -> None:
        if self.stopped != DISK_FULL:
            before = f"; the monitor had already stopped: {self.reason}" if self.reason else ""
            self.stopped = DISK_FULL
            self.reason = f"the disk holding {self.out} is full ({err.strerror}){before}"
        if self.reserve is not None:
            self.reserve.release()      # the room kept for the journal's end is the end's to use

    def _count_only(self, items: list) -> None:
        """After the judge failed: what is handed over is counted and let go."""
        for item in items:
            if isinstance(item, Chunk):
                self.hourly.count("unjudged_bytes", item.sender, len(item.data))
            elif item.what == "closed":
                self.ended_connections += 1

    def _drain(self) -> None:
        """At a stop, what was handed over before it is judged (for at most
        ``DRAIN_S``: a stop must not wait on a long backlog); what is left
        is counted and said, never silently lost."""
        deadline = time.monotonic() + DRAIN_S
        left = {HOST: 0, CONTROLLER: 0}
        try:
            while True:
                # Small slices: the deadline is looked at often, however slow the judge.
                items = self.source.handover.take(0, DRAIN_SLICE)
                if not items:
                    break
                if time.monotonic() >= deadline:
                    for item in items:
                        if isinstance(item, Chunk):
                            left[item.sender] += len(item.data)
                        else:
                            self._event(item)      # a gap in the copy is said even if not reached
                    continue
                self._step(items, caught_up=False)
        except Exception as err:
            self._failed(err)
            return
        if any(left.values()):
            self.hourly.count("unjudged_bytes", HOST, left[HOST])
            self.hourly.count("unjudged_bytes", CONTROLLER, left[CONTROLLER])
            self._fault(STOPPED_BEHIND, f"the monitor stopped {left[HOST]} bytes of the host's and "
                                        f"{left[CONTROLLER]} of the controller's behind the link: heard, not judged",
                        mono=self._stream_now)

    def _finish(self) -> MonitorOutcome:
        try:
            if self.series.part is None:        # stopped before its first journal was open: one says so
                self.series.open()
            if self.judging and self.stopped != CRASHED:
                for event in self.merge.release(self.clock(), everything=True):
                    self._frame(event)
            self._count_dropped()
            self._flush_counts()
            heard = sum(self.hourly.totals.bytes.values())
            if self.stopped is None and not self.decoded and heard >= GARBAGE_BYTES:
                self.stopped, self.reason = LINK_LOST, (
                    f"{heard} bytes heard and not one frame of {self.adapter.label()} among them: "
                    "the wrong --adapter, or no protocol at all")
            if self._dropping:
                self._note(f"the copy was dropping bytes when the monitor stopped "
                           f"({sum(self._dropped_seen.values())} dropped since the start)")
            # A journal that ends out of sight judges its overdue replies where sight was lost.
            blind = self.blind
            self._close_part(self.stopped, self.reason, finish_mono=blind["since"] if blind is not None else None)
        except Exception as err:
            self._last_words(err)
        try:
            if self.hourly.tally.rounds or self.hourly.tally.frames or not self.hourly.intervals \
                    or sum(self.hourly.tally.faults.values()):
                self.echo(line(self.hourly.emit()))         # the last, partial interval
        except OSError as err:
            if is_disk_full(err):
                self._disk_full(err)
            self.missing.append("hourly.jsonl (the last interval)")
        totals = self.hourly.totals
        ending, status = verdict(self.stopped, self.found_violations, 0)
        return MonitorOutcome(ending, int(status), self.reason, totals.rounds, totals.voided,
                              dict(sorted(totals.violations.items())), list(self.series.parts),
                              self.hourly.intervals, dict(self._dropped_seen), dict(sorted(self.faults.totals.items())),
                              self.unjudged_rounds, self.missing)

    def _last_words(self, err: BaseException) -> None:
        """The journal's end failed: the reason kept, and the part closed if it can be."""
        if isinstance(err, OSError) and is_disk_full(err):
            self._disk_full(err)
        elif self.stopped != CRASHED:
            self.stopped, self.reason = CRASHED, f"the monitor failed at its end: {err!r}"
            try:
                (self.out / "crash.txt").write_text(traceback.format_exc())
            except OSError:
                pass
        part = self.series.part
        if part is None:
            # The part was closed: what failed was its final seal or its head.
            self.missing.append(self.series.parts[-1][0].with_suffix(".head").name if self.series.parts
                                else "the journal")
            return
        try:
            lost = part.recorder.let_go()
            ending, status = verdict(self.stopped, len(part.oracle.violations), 0)
            part.recorder.on_session_end(rounds=len(part.oracle.rounds), violations=len(part.oracle.violations),
                                         failures=0, voided=len(part.oracle.voided_rounds), ending=ending,
                                         status=status, reason=self.reason, finish_mono=round(self.clock(), 6),
                                         judge=False, lost=lost,
                                         monitoring_faults_by_kind=dict(sorted(self.faults.totals.items())))
        except Exception:
            self.missing.append(f"{part.path.name}'s session-end record")
        try:
            self.series.close()
        except Exception:
            self.missing.append(part.head_path.name)
