"""How ``bench monitor`` holds up over hours of a live table, and what its
relay costs the link.

**Long run** (``--rounds N``): one monitor, in this process, judges and
journals N rounds of a Lightning Dice table as fast as the machine allows,
on a simulated clock that puts ``--round-s`` seconds of table time between
rounds (40 s: a Lightning Dice round), so that the hourly reports and the
journals' rotation by age happen as they would at the table. The traffic is
a recorded ``bench run`` session (10 wagers a round from a random mix, the
probe wagers, the bench's own protocol version 2) repeated with its round and
sequence numbers carried on, so every frame is a real frame and the oracle
judges every round. Every ``--every`` rounds a line goes to the results file
(JSON lines, written as it goes) and to stderr: rounds, table hours, journal
files and megabytes, resident memory (VmRSS), CPU seconds, rounds a CPU
second. Run it with rotation (``--rotate-mb``, default 32) and without
(``--rotate-mb 100000``) to see what bounds the memory.

**Relay** (``--relay-sessions K``): K short ``bench run`` sessions straight
to the emulated controller and K through ``bench monitor --relay``,
alternating, side by side: the medians of their wall seconds.

    nice -n 10 python benchmarks/monitor_bench.py --rounds 20000 --out out/bench/monitor-rotating.jsonl
    nice -n 10 python benchmarks/monitor_bench.py --rounds 20000 --rotate-mb 100000 --out out/bench/monitor-one-file.jsonl
    nice -n 10 python benchmarks/monitor_bench.py --rounds 0 --relay-sessions 7 --out out/bench/monitor-relay.jsonl
    nice -n 10 python benchmarks/monitor_bench.py --rounds 0 --full-speed-rounds 300 --out out/bench/monitor-full.jsonl

**Full speed** (``--full-speed-rounds N``): one ``bench run`` of N rounds as
fast as the emulated controller answers, through ``bench monitor --relay``:
rounds that crossed against rounds the monitor judged, what it said it did
not judge, and its own CPU seconds (``os.wait4``).

The long run's ``rounds_per_cpu_s`` counts the CPU of making the traffic
too (encoding every frame, as the benchmark always did);
``rounds_per_monitor_cpu_s`` leaves that out.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.adapters.native import Native, NativeCodec  # noqa: E402
from bench.journal.recorder import adapter_fields, session_header  # noqa: E402
from bench.monitor.hourly import Hourly  # noqa: E402
from bench.monitor.series import Series  # noqa: E402
from bench.monitor.sources import CONTROLLER, HOST, Chunk, Event  # noqa: E402
from bench.monitor.run_records import Limits  # noqa: E402
from bench.monitor.watch import Watch  # noqa: E402
from bench.play.players import PlayerMix  # noqa: E402
from bench.protocol import Message  # noqa: E402
from bench.protocol.frame import SEQ_MODULUS  # noqa: E402
from bench.rules.submission import default_rules  # noqa: E402
from bench.session.runner import SessionConfig, run_session  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from proc_memory import memory_mb  # noqa: E402

GAME = "lightning-dice"
TEMPLATE_ROUNDS = 20


def template(folder: Path) -> list[list]:
    """The wire rows of a recorded session, from round 1's OPEN up to round 21's."""
    run = run_session(SessionConfig(game=GAME, rounds=TEMPLATE_ROUNDS, plant="dice", seed=3, out=str(folder),
                                    players=PlayerMix.default(GAME, 10), progress=False))
    rows = [row for line in run.journal.read_text().splitlines() for row in json.loads(line).get("wire") or ()]
    return rows


class Traffic:
    """The template's frames again and again, each loop's rounds and
    sequence numbers following on from the last, on a simulated clock."""

    def __init__(self, rows: list[list], rounds: int, round_s: float, clock):
        codec = NativeCodec(GAME)
        self.codec, self.rounds, self.clock = codec, rounds, clock
        first_open = next(i for i, r in enumerate(rows) if r[6] and r[6]["type"] == "OPEN")
        self.prelude, self.loop = rows[:first_open], rows[first_open:]
        ends = [i for i, r in enumerate(self.loop) if r[6] and r[6]["type"] == "OPEN" and r[6]["round"] > TEMPLATE_ROUNDS]
        self.loop = self._cleared_acked(self.loop[:ends[0]] if ends else self.loop)
        self.messages = {"tx": sum(1 for r in self.loop if r[1] == "send"),
                         "rx": sum(1 for r in self.loop if r[1] == "message")}
        # Each round starts round_s after the one before; within a round the
        # frames keep their recorded spacing (milliseconds: the replies' times
        # are what the oracle's deadlines judge, and must stay as they were).
        self.when, index, start = [], -1, 0.0
        for row in self.loop:
            if row[6] and row[6]["type"] == "OPEN" and row[1] == "message":
                index, start = index + 1, row[2]
            self.when.append(index * round_s + (row[2] - start))
        self.loop_s = round_s * TEMPLATE_ROUNDS

    @staticmethod
    def _cleared_acked(loop: list[list]) -> list[list]:
        """The bench's ACK of each round's last message (CLEARED) put right
        after it. The controller sends CLEARED and the next OPEN in one
        write and the bench ACKs both at once; moved 40 s on with the OPEN,
        that ACK would leave CLEARED unanswered for 40 s, which a monitor
        rightly calls a silent line (no bench is that slow to ACK)."""
        out: list[list] = []
        last_rx = None
        for row in loop:
            message = row[6]
            if message and message["type"] == "OPEN" and row[1] == "message" and last_rx is not None:
                out.append(Traffic._ack_of(last_rx))
            if row[0] == "rx" and row[1] == "message":
                last_rx = row
            out.append(row)
        if last_rx is not None:
            out.append(Traffic._ack_of(last_rx))
        return out

    @staticmethod
    def _ack_of(row: list) -> list:
        seq = row[6]["seq"]
        return ["tx", "ack", row[2] + 0.0005, row[3] + 0.0005, row[4], "", {"type": "ACK", "seq": seq}, None]

    def _frame(self, row, loop: int) -> bytes:
        direction, message = row[0], row[6]
        if message is None:
            return row[5].encode("latin-1")
        own = "tx" if direction == "tx" else "rx"
        other = "rx" if own == "tx" else "tx"
        if message["type"] in ("ACK", "NAK"):
            seq = (message["seq"] + loop * self.messages[other]) % SEQ_MODULUS
            return self.codec.ack(seq) if message["type"] == "ACK" else self.codec.nak(message["reason"], seq)
        seq = (message["seq"] + loop * self.messages[own]) % SEQ_MODULUS
        fields = {k: v for k, v in message.items() if k not in ("type", "seq")}
        if "round" in fields:
            fields["round"] += loop * TEMPLATE_ROUNDS
        if "lucky" in fields:
            from bench.rules.base import Lucky
            fields["lucky"] = tuple(Lucky(x["bet"], x["pays"]) for x in fields["lucky"])
        for name in ("dice", "flat"):
            if name in fields:
                fields[name] = tuple(fields[name])
        return self.codec.encode(Message(message["type"], fields), seq)

    def chunks(self):
        for row in self.prelude:
            yield Chunk(HOST if row[0] == "tx" else CONTROLLER, row[5].encode("latin-1"), 1.0, 1.0)
        loops = -(-self.rounds // TEMPLATE_ROUNDS)
        for loop in range(loops):
            for row, when in zip(self.loop, self.when):
                mono = 1.0 + loop * self.loop_s + when
                yield Chunk(HOST if row[0] == "tx" else CONTROLLER, self._frame(row, loop), mono, mono)


class Source:
    """Hands the traffic over in batches, moving the simulated clock on.
    ``cpu_s``: the CPU time spent making the traffic (encoding its frames),
    which is the benchmark's, not the monitor's. ``ordered``: hand it over
    as a relay does (arrival order is the link's: no causal merge)."""

    def __init__(self, traffic: Traffic, clock, batch: int = 64, ordered: bool = False):
        self.it, self.clock, self.batch = traffic.chunks(), clock, batch
        self.handover, self.description, self.dropped = self, "simulated traffic", {HOST: 0, CONTROLLER: 0}
        self.ended = False
        self.ordered = ordered
        self.cpu_s = 0.0

    def start(self):
        pass

    def close(self):
        pass

    def take(self, timeout: float, most: int | None = None) -> list:
        out = []
        started = time.process_time()
        for chunk in self.it:
            out.append(chunk)
            if len(out) >= self.batch:
                break
        self.cpu_s += time.process_time() - started
        if out:
            self.clock.now = out[-1].mono
            return out
        self.clock.now += timeout
        if self.ended:
            return []
        self.ended = True
        return [Event("closed", "the traffic ends", self.clock.now)]


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def long_run(args, results) -> None:
    work = Path(tempfile.mkdtemp(prefix="monitor-bench-"))
    rows = template(work / "template")
    clock = Clock()
    traffic = Traffic(rows, args.rounds, args.round_s, clock)
    rules = default_rules(GAME, None)
    header = session_header(game=GAME, rules=rules, controller="simulated", emulated=False, misbehave=None,
                            phases={"reply_s": 3.0}, runner="bench monitor (benchmark)", **adapter_fields(Native()))
    out = work / "monitor"
    out.mkdir()
    series = Series(out, header=header, game=GAME, rules=rules, reply_s=3.0, key=None, seal_every=10,
                    rotate_bytes=int(args.rotate_mb * (1 << 20)), rotate_s=args.rotate_hours * 3600, clock=clock)
    hourly = Hourly(out / "hourly.jsonl", 3600.0, clock=clock, wall=clock)
    started_cpu, started = time.process_time(), time.monotonic()
    baseline = memory_mb("self", "VmRSS")
    marks = {"next": args.every}

    def echo(text: str) -> None:
        # The traffic is one recorded session's rounds over and over, so its Lucky Numbers
        # repeat every TEMPLATE_ROUNDS rounds: the Lucky draw judged over the session
        # (bench.oracle.lucky_draw, a verdict on no round) rightly finds that no fair draw.
        if "VIOLATION" in text and "round None: Lucky draw over" not in text:
            raise SystemExit(f"the recorded traffic should be compliant: {text}")

    source = Source(traffic, clock, ordered=args.ordered)
    # (connections=1: the traffic's end stops it too, should a round not be judged whole)
    watch = Watch(source, series, Native(), GAME, hourly, limits=Limits(rounds=args.rounds, connections=1),
                  out=out, echo=echo, clock=clock)
    original = watch._judge

    def judged() -> None:
        original()
        seen = hourly.totals.rounds
        if seen >= marks["next"]:
            marks["next"] += args.every
            files = sorted(out.glob("monitor-*.jsonl"))
            rss = memory_mb("self", "VmRSS")
            cpu = time.process_time() - started_cpu
            line = dict(rounds=seen, table_hours=round(clock.now / 3600, 1), files=len(files),
                        journal_mb=round(sum(f.stat().st_size for f in files) / 2**20, 1),
                        rss_mb=round(rss, 1), rss_growth_mb=round(rss - baseline, 1),
                        cpu_s=round(cpu, 1), traffic_cpu_s=round(source.cpu_s, 1),
                        wall_s=round(time.monotonic() - started, 1), rotate_mb=args.rotate_mb,
                        hourly_reports=hourly.intervals, ordered=args.ordered)
            # rounds_per_cpu_s counts the traffic's making too (as this benchmark always did);
            # rounds_per_monitor_cpu_s leaves it out: the monitor's own cost.
            line["rounds_per_cpu_s"] = round(seen / max(cpu, 1e-9), 1)
            line["rounds_per_monitor_cpu_s"] = round(seen / max(cpu - source.cpu_s, 1e-9), 1)
            faults = getattr(watch, "faults", None)          # (none before issue 45: measured side by side)
            line["monitoring_faults"] = dict(faults.totals) if faults is not None else None
            results(dict(part="long-run", **line))
    watch._judge = judged
    outcome = watch.run()
    results(dict(part="long-run-end", status=outcome.status, rounds=outcome.rounds, files=len(outcome.journals),
                 violations=outcome.violations, faults=getattr(outcome, "faults", None),
                 unjudged_rounds=getattr(outcome, "unjudged_rounds", None),
                 hourly_reports=outcome.reports, work=str(work)))


def relay(args, results) -> None:
    """K sessions straight, K through the relay, alternating."""
    from bench.emulator.process import emulator_process
    timings = {"direct": [], "relay": []}
    cpu = {"direct": [], "relay": []}
    work = Path(tempfile.mkdtemp(prefix="monitor-relay-"))
    with emulator_process(["--game", GAME, "--seed", "5"], listen="127.0.0.1:0") as controller:
        for k in range(args.relay_sessions):
            for how in ("direct", "relay"):
                out = work / f"{how}-{k}"
                if how == "direct":
                    url, monitor = controller, None
                else:
                    monitor = subprocess.Popen(
                        [sys.executable, "-m", "bench.cli", "monitor", "--game", GAME, "--relay", "127.0.0.1:0",
                         "--to", controller, "--once", "--out", str(out / "m")], stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True)
                    url = monitor.stdout.readline().split()[1]
                before = time.process_time()
                started = time.monotonic()
                run = run_session(SessionConfig(game=GAME, controller=url, rounds=args.relay_rounds, plant="dice",
                                                seed=9, out=str(out / "run"), progress=False))
                timings[how].append(time.monotonic() - started)
                cpu[how].append(time.process_time() - before)
                if monitor is not None:
                    monitor.communicate(timeout=60)
                    assert monitor.returncode == 0 and run.status == 0
                print(f"  relay bench {k + 1}/{args.relay_sessions} {how}: {timings[how][-1]:.2f} s", file=sys.stderr)
    direct, relayed = statistics.median(timings["direct"]), statistics.median(timings["relay"])
    results(dict(part="relay", sessions=args.relay_sessions, rounds=args.relay_rounds,
                 direct_median_s=round(direct, 3), relay_median_s=round(relayed, 3),
                 ratio=round(relayed / direct, 3),
                 bench_cpu_direct_s=round(statistics.median(cpu["direct"]), 3),
                 bench_cpu_relay_s=round(statistics.median(cpu["relay"]), 3)))


def full_speed(args, results) -> None:
    """One ``bench run`` of ``--full-speed-rounds`` rounds as fast as the
    emulated controller answers, through ``bench monitor --relay --once``:
    how many rounds crossed, how many the monitor judged whole, what it
    said it did not judge (faults, bytes dropped from its copy), its CPU
    time (its own process: the relay's threads and the judge) and how long
    after the run it finished."""
    from bench.emulator.process import emulator_process
    work = Path(tempfile.mkdtemp(prefix="monitor-full-speed-"))
    with emulator_process(["--game", GAME, "--seed", "5"], listen="127.0.0.1:0") as controller:
        monitor = subprocess.Popen(
            [sys.executable, "-m", "bench.cli", "monitor", "--game", GAME, "--relay", "127.0.0.1:0", "--to", controller,
             "--once", "--out", str(work / "m")], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        url = monitor.stdout.readline().split()[1]
        started = time.monotonic()
        run = run_session(SessionConfig(game=GAME, controller=url, rounds=args.full_speed_rounds, plant="dice",
                                        seed=9, out=str(work / "run"), progress=False))
        ran = time.monotonic() - started
        _, status, usage = os.wait4(monitor.pid, 0)      # the monitor's own CPU, not the benchmark's
        finished = time.monotonic() - started
        monitor.stdout.close()
    reports = [json.loads(line) for line in (work / "m" / "hourly.jsonl").read_text().splitlines()]
    cpu = usage.ru_utime + usage.ru_stime
    judged = sum(r["rounds"] for r in reports)
    faults: dict[str, int] = {}
    for report in reports:
        for kind, n in report.get("monitoring_faults", {}).items():
            faults[kind] = faults.get(kind, 0) + n
    results(dict(part="full-speed-relay", rounds_crossed=len(run.oracle.rounds), run_status=run.status,
                 run_s=round(ran, 2), rounds_judged=judged, monitor_exit=os.waitstatus_to_exitcode(status),
                 monitor_done_after_run_s=round(finished - ran, 2), monitor_cpu_s=round(cpu, 2),
                 rounds_per_monitor_cpu_s=round(judged / max(cpu, 1e-9), 1), monitoring_faults=faults,
                 dropped_bytes=sum(sum(r["dropped_bytes"].values()) for r in reports), work=str(work)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20000)
    parser.add_argument("--round-s", type=float, default=40.0)
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--rotate-mb", type=float, default=32.0)
    parser.add_argument("--rotate-hours", type=float, default=24.0)
    parser.add_argument("--relay-sessions", type=int, default=0)
    parser.add_argument("--relay-rounds", type=int, default=10)
    parser.add_argument("--ordered", action="store_true",
                        help="hand the traffic over as a relay does (its order is the link's: no causal merge)")
    parser.add_argument("--full-speed-rounds", type=int, default=0,
                        help="one bench run of this many rounds at full speed through bench monitor --relay")
    parser.add_argument("--out", default="out/bench/monitor.jsonl")
    args = parser.parse_args()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)

    def results(line: dict) -> None:
        text = json.dumps(line)
        with open(args.out, "a", encoding="utf-8") as out:
            out.write(text + "\n")
        print(text, file=sys.stderr, flush=True)

    if args.rounds:
        long_run(args, results)
    if args.relay_sessions:
        relay(args, results)
    if args.full_speed_rounds:
        full_speed(args, results)
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
