"""Benchmark of the whole conformance kit on a line with a speed: checks
passed and the time the run takes, the emulated controller behind a serial
line of each baud rate and over TCP (docs/protocol.md section 17).

    nice -n 10 .venv/bin/python benchmarks/conformance_line_bench.py [--baud 9600 --baud 115200 ...] [--json FILE]

Each setting is one ``bench conformance --controller emulated [--baud B]
--json`` in a subprocess, as a user runs it: without a baud rate the
emulator listens on a TCP port on the loopback (no line speed); with one
``bench conformance`` puts it behind a paced serial line of that speed
(``bench.emulator.line``, 10 bits a byte each way at once). Per setting: the
checks passed, failed and skipped out of those run, the line the kit sized
itself to (the window its HELLO announces, the long line's length), the
wall time of the run, and its slowest checks. The test suite runs the
checks a slow line broke (tests/conformance/test_slow_line.py); this runs
them all. Not a timed test: the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BAUDS = (0, 9600, 19200, 115200)      # 0: over TCP, no line speed
RUN_TIMEOUT_S = 1800                           # the hang guard of one run (about 2 minutes at 9,600 baud)


def run(baud: int, game: str) -> dict:
    command = [sys.executable, "-m", "bench.cli", "conformance", "--controller", "emulated", "--game", game,
               "--json"] + (["--baud", str(baud)] if baud else [])
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    wall = time.monotonic() - started
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines or lines[-1].get("record") != "verdict":         # JSON Lines, the verdict last (docs/json.md)
        raise SystemExit(f"conformance at {baud or 'TCP'}: no verdict (exit {done.returncode}): "
                         f"{done.stderr.strip()[-500:]}")
    checks, verdict = lines[:-1], lines[-1]
    slowest = sorted(checks, key=lambda c: -c["seconds"])[:3]
    return {"game": game, "baud": baud or None, "status": done.returncode, "checks": len(checks),
            "pass": verdict["pass"], "fail": verdict["fail"], "optional_fail": verdict["optional_fail"],
            "skip": verdict["skip"], "failed": verdict["failed"], "line": verdict.get("line"),
            "wall_s": round(wall, 1), "checks_s": verdict["seconds"],
            "slowest": [(c["check"], c["seconds"]) for c in slowest]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baud", type=int, action="append", help="a baud rate (repeatable; 0: TCP); default "
                        + ", ".join(map(str, DEFAULT_BAUDS)))
    parser.add_argument("--game", default="lightning-dice")
    parser.add_argument("--json", metavar="FILE", help="append one line per setting")
    args = parser.parse_args(argv)
    rows = []
    print("| line | window | long line | passed | failed | skipped | run, wall s | slowest checks |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for baud in args.baud or DEFAULT_BAUDS:
        row = run(baud, args.game)
        rows.append(row)
        line = row["line"] or {}
        slowest = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in row["slowest"])
        print(f"| {f'{baud:,} baud' if baud else 'TCP'} | {line.get('window', '?')} | "
              f"{line.get('long_line_bytes', 0):,} B | {row['pass']} of {row['checks']} | {row['fail']} | "
              f"{row['skip']} | {row['wall_s']:.1f} | {slowest} |", flush=True)
        if args.json:
            with open(args.json, "a", encoding="utf-8") as out:
                out.write(json.dumps(row, sort_keys=True) + "\n")
    return 0 if all(r["status"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
