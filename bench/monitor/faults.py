"""Monitoring faults: what went wrong with the listening, never with the
controller (docs/monitor.md, "Monitoring faults").

A fault of the tap is said as one (on stdout, in the round's journal
record, counted in the interval report and the session's end) and is never
turned into a verdict against the controller: a round the judge lost sight
of is journalled and not judged (``bench.monitor.watch``). Every way of
saying one is bounded, so that a tap spewing noise for hours costs a few
lines, not one a chunk: ``PER_ROUND`` records a round (the rest counted by
kind), and the monitor's stdout says at most ``bench.monitor.watch.ECHOED``
notes an interval.

``Silence`` tells a tap line that has gone quiet from a table that has: in
every supported format the receiver acknowledges each message within its
response timeout (0.5 s for the bench's protocol), so a line that carries
nothing for ``SILENT_S`` after the other side sent it a message is not
being heard, whatever the endpoints are doing.
"""

from __future__ import annotations

from collections import Counter

from bench.monitor.sources import CONTROLLER, HOST

UNHEARD = "unheard"             # a message crossed the link but not intact to the tap
SILENT_LINE = "silent-line"     # a tap line carried nothing while the other side waited on it
LAGGING_LINE = "lagging-line"   # a tap line delivers its bytes later than the other, by a measured time
COPY_DROPPED = "copy-dropped"   # the judge fell behind the link: bytes dropped from its copy (never from the link)
NOISE = "noise"                 # a run of bytes on a line with no frame in it
STOPPED_BEHIND = "stopped-behind"   # bytes handed over and not judged when the monitor stopped
JUDGE_FAILED = "judge-failed"   # the monitor could not go on judging (a full disk, a failure of its own)

PER_ROUND = 20                  # fault records a round's record keeps; the rest are counted by kind
SILENT_S = 3.0                  # a line silent this long after the other side's message is not being heard


class Faults:
    """The faults found so far: this round's records (bounded) and the totals by kind."""

    def __init__(self) -> None:
        self.round: list[dict] = []
        self.round_more: Counter[str] = Counter()
        self.totals: Counter[str] = Counter()

    def add(self, kind: str, detail: str, *, side: str | None, round_no: int | None, mono: float | None) -> dict:
        record = {"fault": kind, "side": side, "round": round_no,
                  "mono": None if mono is None else round(mono, 6), "detail": detail}
        self.totals[kind] += 1
        if len(self.round) < PER_ROUND:
            self.round.append(record)
        else:
            self.round_more[kind] += 1
        return record

    def take_round(self) -> dict:
        """The fields a round's record carries of the faults in it (none if none), and a fresh round."""
        fields: dict = {}
        if self.round:
            fields["monitoring_faults"] = self.round
        if self.round_more:
            fields["monitoring_faults_more"] = dict(sorted(self.round_more.items()))
        self.round, self.round_more = [], Counter()
        return fields


class Silence:
    """Which tap line is silent: one that carries no byte for ``silent_s``
    after the other side sent a message it must acknowledge."""

    def __init__(self, silent_s: float = SILENT_S) -> None:
        self.silent_s = silent_s
        self.last: dict[str, float | None] = {HOST: None, CONTROLLER: None}     # its last byte's arrival
        self.owed: dict[str, list | None] = {HOST: None, CONTROLLER: None}      # [first unanswered message, count]
        self.silent: dict[str, float | None] = {HOST: None, CONTROLLER: None}   # silent since (declared)

    def heard(self, side: str, mono: float) -> float | None:
        """Bytes on ``side``'s line at ``mono``: the length of the silence
        they end, if the line had been declared silent."""
        self.last[side] = mono
        self.owed[side] = None
        since = self.silent[side]
        if since is None:
            return None
        self.silent[side] = None
        return mono - since

    def message(self, sender: str, mono: float) -> None:
        """``sender`` sent a message at ``mono``: the other line owes its
        acknowledgement, unless it has carried bytes since (a line found late
        delivers its messages after the answers to them)."""
        other = CONTROLLER if sender == HOST else HOST
        last = self.last[other]
        if last is not None and last >= mono:
            return
        owed = self.owed[other]
        if owed is None:
            self.owed[other] = [mono, 1]
        else:
            owed[1] += 1

    def check(self, now: float, offsets: dict[str, float] | None = None) -> list[tuple[str, float, int, float]]:
        """Lines newly silent at ``now`` (the monitor's clock; ``offsets``:
        how far behind the wire each line's arrivals are, the times given
        to ``heard`` and ``message`` being the wire's): (side, seconds it
        has been silent, messages owed, when the silence began: the first
        message it did not answer, on the wire's time)."""
        found = []
        for side, owed in self.owed.items():
            wire_now = now - (offsets or {}).get(side, 0.0)
            if owed is None or self.silent[side] is not None or wire_now - owed[0] < self.silent_s:
                continue
            last = self.last[side]
            since = owed[0] if last is None else last
            self.silent[side] = since
            found.append((side, wire_now - since, owed[1], owed[0]))
        return found

    def any_silent(self) -> bool:
        return any(since is not None for since in self.silent.values())
