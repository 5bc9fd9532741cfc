"""A controller that plays normally and floods the link with junk: how much
memory does ``bench run`` take, and how fast does its journal grow?

The emulated controller runs behind a TCP proxy that forwards its frames
whole and, between them, writes junk lines (or raw random bytes) towards the
bench as fast as ``--rate`` allows. ``bench run --controller socket://...``
plays through the proxy for ``--seconds`` and is then stopped with SIGTERM
(which it must survive, journal intact). Reported: the bench's peak resident
memory (VmHWM), the journal's size and its growth in MB a minute, the exit
status and the ending. Targets: under 200 MB, under 10 MB a minute.

    python benchmarks/flood_bench.py [--seconds 30] [--rate 20] [--random]
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


def peak_rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rate", type=float, default=20.0, help="junk in MB/s (default 20)")
    parser.add_argument("--random", action="store_true", help="raw random bytes instead of junk lines")
    parser.add_argument("--realtime", action="store_true", help="bench run --realtime")
    args = parser.parse_args()
    stop = threading.Event()
    with tempfile.TemporaryDirectory() as tmp, \
            emulated_controller("lightning-dice", seed=3, listen="127.0.0.1:0") as upstream:
        port = proxy(upstream, args.rate, args.random, stop)
        out = Path(tmp) / "out"
        cmd = [sys.executable, "-m", "bench.cli", "run", "--controller", f"socket://127.0.0.1:{port}",
               "--rounds", "100000", "--seed", "3", "--out", str(out), "--json"]
        if args.realtime:
            cmd.append("--realtime")
        started = time.monotonic()
        bench = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        peak = 0.0
        while bench.poll() is None and time.monotonic() - started < args.seconds:
            peak = max(peak, peak_rss_mb(bench.pid))
            time.sleep(0.2)
        peak = max(peak, peak_rss_mb(bench.pid))
        if bench.poll() is None:
            bench.send_signal(signal.SIGTERM)
        stdout, stderr = bench.communicate(timeout=60)
        elapsed = time.monotonic() - started
        stop.set()
        journal = out / "session.jsonl"
        size_mb = journal.stat().st_size / 1e6 if journal.exists() else 0.0
        summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").exists() else {}
        left_out = sum(json.loads(line).get("left_out", {}).get("bytes", 0)
                       for line in journal.read_text().splitlines()) if journal.exists() else 0
        print(f"flood: {'random bytes' if args.random else 'junk lines'} at {args.rate} MB/s for {elapsed:.1f} s"
              f"{' (realtime)' if args.realtime else ''}")
        print(f"  bench peak RSS {peak:.0f} MB (target < 200)")
        print(f"  journal {size_mb:.2f} MB = {size_mb / elapsed * 60:.2f} MB/min (target < 10); "
              f"noise left out {left_out / 1e6:.1f} MB")
        print(f"  exit status {bench.returncode}, ending {summary.get('ending')!r}, rounds {summary.get('rounds')}, "
              f"failed rounds {len(summary.get('failed_rounds', {}))}")
        print(f"  first failure: {next(iter(summary.get('failed_rounds', {}).values()), None)}")
        print(f"  stderr: {stderr.strip().splitlines()[-1] if stderr.strip() else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
