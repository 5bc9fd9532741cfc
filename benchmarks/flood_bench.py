"""A controller that floods the link: how much memory does ``bench run``
take, how large do its files grow, and how does the session end?

Two floods:

- ``junk`` (the default): the emulated controller runs behind a TCP proxy
  that forwards its frames whole and, between them, writes junk lines (or
  raw random bytes, ``--random``) towards the bench as fast as ``--rate``
  allows. ``bench run`` plays through the proxy for ``--seconds`` and is then
  stopped with SIGTERM (which it must survive, journal intact).
  Targets: under 200 MB, under 10 MB of journal a minute.
- ``--settle-flood N``: a controller that plays by the rules except that it
  settles each round's first wager N more times (valid frames, in sequence,
  each one judged: issue 26 probed it at 49,000 a round). ``bench run
  --rounds R`` plays it to its end.

Reported: the bench's peak resident memory (VmHWM, the bench process alone),
every file's size, the exit status and the ending. ``--source DIR`` runs the
bench from another checkout (the same flood, the bench before a change).

    python benchmarks/flood_bench.py [--seconds 30] [--rate 20] [--random]
    python benchmarks/flood_bench.py --settle-flood 49000 --rounds 30 [--results FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.emulator.process import emulated_controller  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from proc_memory import memory_mb  # noqa: E402

SERVE_FLAG = "--serve-settle-flood"


def _pump(src: socket.socket, dst: socket.socket, lock: threading.Lock, whole_lines: bool) -> None:
    buffer = b""
    try:
        while data := src.recv(65536):
            if not whole_lines:
                dst.sendall(data)
                continue
            buffer += data
            cut = buffer.rfind(b"\n") + 1
            if cut:
                with lock:
                    dst.sendall(buffer[:cut])
                buffer = buffer[cut:]
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _flood(dst: socket.socket, lock: threading.Lock, rate_mb_s: float, raw: bool, stop: threading.Event) -> None:
    rng = random.Random(7)
    line = b"JUNK " + b"x" * 194 + b"\n"
    chunk = 16 * 1024
    sent, started = 0, time.monotonic()
    while not stop.is_set():
        data = rng.randbytes(chunk).replace(b"\n", b"?") if raw else line * (chunk // len(line))
        try:
            with lock:
                dst.sendall(data)
        except OSError:
            return
        sent += len(data)
        ahead = sent / (rate_mb_s * 1e6) - (time.monotonic() - started)
        if ahead > 0:
            time.sleep(ahead)


def proxy(upstream: str, rate_mb_s: float, raw: bool, stop: threading.Event) -> int:
    host, port = upstream.removeprefix("socket://").rsplit(":", 1)
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        bench_side, _ = listener.accept()
        controller = socket.create_connection((host, int(port)))
        lock = threading.Lock()
        threading.Thread(target=_pump, args=(bench_side, controller, lock, False), daemon=True).start()
        threading.Thread(target=_pump, args=(controller, bench_side, lock, True), daemon=True).start()
        threading.Thread(target=_flood, args=(bench_side, lock, rate_mb_s, raw, stop), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1]


def serve_settle_flood(extra: int) -> int:
    """This script as the flooding controller (in its own process, so that
    the bench's memory is measured alone): a compliant emulated controller
    whose every round settles its first wager ``extra`` more times."""
    from bench.emulator.controller import EmulatedController
    from bench.emulator.misbehaviours import Policy
    from bench.emulator.server import serve
    from bench.protocol import Session, Timeouts
    from bench.protocol.session import CONTROLLER
    from bench.rules.submission import default_rules

    class SettleFlood(Policy):
        name = "settle-flood"

        def settle_frames(self, ctrl, wagers, returned):
            frames = super().settle_frames(ctrl, wagers, returned)
            return frames + frames[:1] * extra

    rules = default_rules("lightning-dice")

    def on_connection(link) -> None:
        session = Session(link, "lightning-dice", role=CONTROLLER, timeouts=Timeouts())
        EmulatedController(session, game="lightning-dice", rules=rules, seed=3, policy=SettleFlood()).serve()

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    serve("127.0.0.1:0", on_connection, announce=lambda line: print(line, flush=True))
    return 0


def bench_command(source: Path | None, *args: str) -> tuple[list[str], dict]:
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source) + os.pathsep + env.get("PYTHONPATH", "")
    return [sys.executable, "-m", "bench.cli", *args], env


def watch(cmd: list[str], env: dict, seconds: float | None) -> tuple[subprocess.Popen, float, float, str, str]:
    """Run the bench; its peak memory (sampled, and VmHWM at the end); SIGTERM after ``seconds``."""
    started = time.monotonic()
    bench = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak = 0.0
    while bench.poll() is None and (seconds is None or time.monotonic() - started < seconds):
        peak = max(peak, memory_mb(bench.pid))
        time.sleep(0.2)
    if bench.poll() is None:
        bench.send_signal(signal.SIGTERM)
    stdout, stderr = bench.communicate(timeout=600)
    return bench, peak, time.monotonic() - started, stdout, stderr


def files_mb(out: Path) -> dict[str, float]:
    return {path.name: round(path.stat().st_size / 1e6, 3) for path in sorted(out.iterdir()) if path.is_file()}


def left_out_mb(journal: Path) -> float:
    total = 0
    if journal.exists():
        with open(journal, "rb") as handle:
            for line in handle:
                total += json.loads(line).get("left_out", {}).get("bytes", 0)
    return total / 1e6


def settle_flood(args) -> dict:
    with tempfile.TemporaryDirectory() as tmp, _flooding_controller(args.settle_flood) as url:
        out = Path(tmp) / "out"
        cmd, env = bench_command(args.source, "run", "--controller", url, "--rounds", str(args.rounds), "--seed",
                                 "3", "--no-probes", "--plant", "dice", "--out", str(out), "--json")
        bench, peak, elapsed, stdout, stderr = watch(cmd, env, None)
        summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").exists() else {}
        return {"flood": f"settle x{args.settle_flood}", "rounds_asked": args.rounds,
                "source": str(args.source or "this checkout"), "seconds": round(elapsed, 1),
                "peak_rss_mb": round(peak, 1), "files_mb": files_mb(out), "exit": bench.returncode,
                "ending": summary.get("ending"), "rounds": summary.get("rounds"),
                "violations": sum((summary.get("violations_by_clause") or {}).values()),
                "reason": summary.get("reason"),
                "stderr": stderr.strip().splitlines()[-1] if stderr.strip() else ""}


class _flooding_controller:
    """This script in --serve-settle-flood mode, in its own process; yields its URL."""

    def __init__(self, extra: int):
        self.extra = extra

    def __enter__(self) -> str:
        self.proc = subprocess.Popen([sys.executable, __file__, SERVE_FLAG, str(self.extra)],
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening "):
            raise RuntimeError(f"the flooding controller did not start: {line!r}")
        return line.split(" ", 1)[1]

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def junk_flood(args) -> dict:
    stop = threading.Event()
    with tempfile.TemporaryDirectory() as tmp, \
            emulated_controller("lightning-dice", seed=3, listen="127.0.0.1:0") as upstream:
        port = proxy(upstream, args.rate, args.random, stop)
        out = Path(tmp) / "out"
        cmd, env = bench_command(args.source, "run", "--controller", f"socket://127.0.0.1:{port}",
                                 "--rounds", "100000", "--seed", "3", "--out", str(out), "--json",
                                 *(["--realtime"] if args.realtime else []))
        bench, peak, elapsed, stdout, stderr = watch(cmd, env, args.seconds)
        stop.set()
        journal = out / "session.jsonl"
        size_mb = journal.stat().st_size / 1e6 if journal.exists() else 0.0
        summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").exists() else {}
        return {"flood": f"{'random bytes' if args.random else 'junk lines'} at {args.rate} MB/s",
                "source": str(args.source or "this checkout"), "seconds": round(elapsed, 1),
                "peak_rss_mb": round(peak, 1), "journal_mb_per_min": round(size_mb / elapsed * 60, 2),
                "files_mb": files_mb(out), "left_out_mb": round(left_out_mb(journal), 1),
                "exit": bench.returncode, "ending": summary.get("ending"), "rounds": summary.get("rounds"),
                "failed_rounds": len(summary.get("failed_rounds", {})),
                "first_failure": next(iter(summary.get("failed_rounds", {}).values()), None),
                "stderr": stderr.strip().splitlines()[-1] if stderr.strip() else ""}


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == SERVE_FLAG:
        return serve_settle_flood(int(sys.argv[2]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="junk flood: how long (default 30)")
    parser.add_argument("--rate", type=float, default=20.0, help="junk in MB/s (default 20)")
    parser.add_argument("--random", action="store_true", help="raw random bytes instead of junk lines")
    parser.add_argument("--realtime", action="store_true", help="bench run --realtime")
    parser.add_argument("--settle-flood", type=int, metavar="N",
                        help="a controller that settles each round's first wager N more times")
    parser.add_argument("--rounds", type=int, default=30, help="--settle-flood: rounds to play (default 30)")
    parser.add_argument("--source", type=Path, help="run the bench from this checkout (default: this one)")
    parser.add_argument("--results", type=Path, help="append the result as a JSON line to this file")
    args = parser.parse_args()
    result = settle_flood(args) if args.settle_flood is not None else junk_flood(args)
    print(json.dumps(result, indent=2))
    if args.results:
        with open(args.results, "a", encoding="utf-8") as out:
            out.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
