"""A monitor fed with the bytes of a recorded ``bench run`` session, in this
process and on a simulated clock (no tap, no threads): each direction's
frames handed over as its line carried them, a few at a time, the clock
moved on with them. ``chunks`` turns a journal into those bytes (one frame
every ``STEP`` seconds, in the order the run journalled them); ``watch``
runs a ``Watch`` over them and gives its outcome and every line it said."""

from __future__ import annotations

from bench.adapters.native import Native
from bench.journal.recorder import adapter_fields, session_header
from bench.monitor.hourly import Hourly
from bench.monitor.series import Series
from bench.monitor.sources import CONTROLLER, HOST, Chunk, Event
from bench.monitor.run_records import Limits
from bench.monitor.watch import Watch
from bench.rules.submission import default_rules
from tests.monitor.conftest import records

GAME = "lightning-dice"
STEP = 0.02     # a frame every 20 ms: rounds of 2-3 s, each reply within a second, as at a (brisk) table


class SimClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Recorded:
    """A source handing over a recorded session's bytes a few frames at a
    time, each direction as its line carried it, moving the clock on."""

    def __init__(self, rows, clock: SimClock, batch: int = 8):
        self.rows, self.clock, self.batch = rows, clock, batch
        self.description = "a recorded session"
        self.handover = self                 # (the Watch takes from ``source.handover``)
        self.dropped = {HOST: 0, CONTROLLER: 0}
        self.ended = False

    def start(self):
        pass

    def close(self):
        pass

    def take(self, timeout: float, most: int | None = None) -> list:
        if self.rows:
            batch, self.rows = self.rows[:self.batch], self.rows[self.batch:]
            self.clock.now = batch[-1].mono
            return batch
        self.clock.now += timeout
        if self.ended:
            return []
        self.ended = True
        return [Event("closed", "the recording ends", self.clock.now)]


def chunks(journal, *, step: float = STEP, slow: float | None = None) -> list[Chunk]:
    """Every frame the journal holds, as the bytes its line carried, in order:
    one frame every ``step`` seconds, or (``slow``) at the recorded times
    spread that many times wider. The recording's own times are those of a
    fast run on a shared machine: a pause of its process, stretched, would
    be a late reply, so the tests take the even spacing."""
    rows = [row for record in records([journal]) for row in record.get("wire") or ()]
    t0 = rows[0][2]
    return [Chunk(HOST if row[0] == "tx" else CONTROLLER, row[5].encode("latin-1"),
                  1.0 + (n * step if slow is None else (row[2] - t0) * slow), row[3]) for n, row in enumerate(rows)]


def watch(tmp_path, rows, *, rotate_bytes=1 << 30, rotate_s=1e9, every_s=3600.0, limits=Limits(connections=1),
          rules=None, key=None, adapter=None, game=GAME, batch=8):
    clock = SimClock()
    tmp_path.mkdir(parents=True, exist_ok=True)
    adapter = adapter or Native()
    rules = rules or default_rules(game, None)
    header = session_header(game=game, rules=rules, controller="recorded", emulated=False, misbehave=None,
                            phases={"reply_s": 3.0}, runner="bench monitor", **adapter_fields(adapter))
    series = Series(tmp_path, header=header, game=game, rules=rules, reply_s=3.0, key=key, seal_every=2,
                    rotate_bytes=rotate_bytes, rotate_s=rotate_s, clock=clock)
    hourly = Hourly(tmp_path / "hourly.jsonl", every_s, clock=clock, wall=clock)
    said = []
    outcome = Watch(Recorded(rows, clock, batch), series, adapter, game, hourly, limits=limits, out=tmp_path,
                    echo=said.append, clock=clock).run()
    return outcome, said
