"""What a monitor costs when its lines carry nothing but noise (issue 45:
30 s of random bytes on both lines made 470 MB, a 67.6 MB journal line and
741,936 stdout lines while ``hourly.jsonl`` said ``dropped_bytes: 0``). A
second of random bytes, as fast as two pseudo-terminals carry them, with a
small copy bound and a judge that is held for its first 0.3 s (as a slow
disk would hold it), so that it falls behind on any machine, however fast
it judges (CI's once kept up with a bound of 256 KiB): every output stays
bounded and every byte read is accounted for (judged, dropped from the copy
or left unjudged), in the interval report too."""

from __future__ import annotations

import json
import os
import random
import threading
import time
import tracemalloc

from bench.adapters.native import Native
from bench.journal.recorder import adapter_fields, session_header
from bench.monitor.hourly import Hourly
from bench.monitor.series import Series
from bench.monitor.sources import CONTROLLER, HOST, Handover, TwoLines
from bench.monitor.run_records import Limits
from bench.monitor.watch import Watch
from bench.protocol.link import open_pty_pair
from bench.rules.submission import default_rules

GAME = "lightning-dice"
NOISE_S = 1.0              # how long each line carries random bytes
COPY_BOUND = 256 * 1024    # the copy's bound
STALL_S = 0.3              # the judge takes nothing for this long: the pty carries far more than COPY_BOUND meanwhile


class HeldJudge(Handover):
    """A hand-over whose first take waits ``STALL_S``: the judge behind
    for a moment, as a fsync on a slow disk holds it, on any machine."""

    def __init__(self, max_pending: int):
        super().__init__(max_pending)
        self._held = False

    def take(self, timeout: float, most: int | None = None) -> list:
        if not self._held:
            self._held = True
            time.sleep(STALL_S)
        return super().take(timeout, most)


def test_random_bytes_on_both_lines_cost_bounded_output_and_every_byte_is_counted(tmp_path):
    import twin.stats  # noqa: F401  (the session-end's Lucky-draw test imports it: not the monitor's memory)
    lines = {side: open_pty_pair() for side in (HOST, CONTROLLER)}
    written = {HOST: 0, CONTROLLER: 0}

    def pump(side):
        block = random.Random(side).randbytes(1 << 16)
        until = time.monotonic() + NOISE_S
        while time.monotonic() < until:
            written[side] += os.write(lines[side][0], block)

    rules = default_rules(GAME, None)
    header = session_header(game=GAME, rules=rules, controller="noise", emulated=False, misbehave=None,
                            phases={"reply_s": 3.0}, runner="bench monitor", **adapter_fields(Native()))
    series = Series(tmp_path, header=header, game=GAME, rules=rules, reply_s=3.0, key=None, seal_every=10,
                    rotate_bytes=32 << 20, rotate_s=86400)
    hourly = Hourly(tmp_path / "hourly.jsonl", 3600)
    source = TwoLines(lines[HOST][2], lines[CONTROLLER][2], handover=HeldJudge(COPY_BOUND))
    pumps = [threading.Thread(target=pump, args=(side,)) for side in lines]
    said: list[str] = []
    tracemalloc.start()
    try:
        for thread in pumps:
            thread.start()
        outcome = Watch(source, series, Native(), GAME, hourly, limits=Limits(seconds=NOISE_S + 1.0), out=tmp_path,
                        echo=said.append).run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        for thread in pumps:
            thread.join(timeout=10)
        for master, slave, _ in lines.values():
            os.close(master)
            os.close(slave)
    dropped = source.handover.dropped
    assert sum(dropped.values()) > 0, "the judge kept up with the noise though held: the test needs a smaller COPY_BOUND"
    # Bounded: a few lines on stdout, a journal of at most the noise it keeps, memory of the copy's bound.
    assert len(said) < 30, said[:40]
    journals = sorted(tmp_path.glob("monitor-*.jsonl"))
    assert sum(path.stat().st_size for path in journals) < 1_500_000
    assert max(len(line) for path in journals for line in path.read_bytes().splitlines()) < 1_200_000
    assert peak < 32 * 2**20, peak
    # Every byte read is counted once, in the interval reports: judged, dropped from the copy, or left unjudged.
    reports = [json.loads(line) for line in (tmp_path / "hourly.jsonl").read_text().splitlines()]
    for side in (HOST, CONTROLLER):
        assert sum(r["dropped_bytes"][side] for r in reports) == dropped[side]
        assert sum(r["bytes"][side] + r["dropped_bytes"][side] + r["unjudged_bytes"][side] for r in reports) \
            == written[side]
    assert outcome.faults.get("copy-dropped", 0) >= 1 and outcome.faults.get("noise") == 2
    assert outcome.violations == {} and outcome.status == 3      # nothing but noise: no protocol heard
