"""Benchmark of a session over a serial line with a speed: rounds per minute
and the phase margin at 9,600, 19,200 and 115,200 baud, with covering play.

    nice -n 10 .venv/bin/python benchmarks/line_bench.py [--rounds 6] [--realtime-rounds 3] [--json FILE]

For each baud rate and game (Lightning Dice: 20 wagers a round covering the
layout; Lightning Roulette: 108), ``bench run --baud B`` puts the emulated
controller behind a serial line of that speed (``bench.emulator.line``: two
ptys joined by a relay that carries 10 bits a byte each way at once) and
plays with the fair-dice plant, probes on, so that only the line limits the
pace. Per setting:

- the line budget the bench chose before the first round (window, wagers a
  round, its predicted seconds of betting and settlement);
- measured, from the journal's timestamps, median over the rounds: betting
  (the first WAGER sent to the last reply taken) and settlement (the RESULT to
  the CLEARED), and each one's margin: the share of its phase left over
  (betting 15 s; settlement, the result and clear phases, 3 + 5 s);
- rounds per minute in virtual time (the phases cost nothing: the line is the
  only limit) and, with ``--realtime-rounds``, at the table's pace
  (``--realtime``: every phase kept on the wall clock).

Results go to --json as they come, one line per setting (a setting already
there is not run again). Not a timed test: the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.journal.chain import WIRE_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
BAUDS = (9600, 19200, 115200)
GAMES = ("lightning-dice", "lightning-roulette")
KIND, MONO, RAW = (WIRE_COLUMNS.index(c) for c in ("frame", "mono", "raw"))


def exchanges(journal: Path) -> tuple[list[float], list[float]]:
    """Per round: seconds of betting (first WAGER sent to the last reply
    taken before CLOSE) and of settlement (RESULT or NOROLL to CLEARED)."""
    betting, settlement = [], []
    for line in journal.read_text().splitlines():
        record = json.loads(line)
        if record.get("kind") != "round" or record.get("failure"):
            continue
        wire = record["wire"]
        first_wager = next((f[MONO] for f in wire if f[KIND] == "send" and " WAGER " in f[RAW]), None)
        close = next((i for i, f in enumerate(wire) if f[KIND] == "send" and " CLOSE " in f[RAW]), None)
        replies = [f[MONO] for f in wire[:close] if f[KIND] == "message" and (" ACCEPT " in f[RAW] or " REFUSE " in f[RAW])]
        result = next((f[MONO] for f in wire if f[KIND] == "message" and (" RESULT " in f[RAW] or " NOROLL " in f[RAW])), None)
        cleared = next((f[MONO] for f in wire if f[KIND] == "message" and " CLEARED " in f[RAW]), None)
        if first_wager is not None and replies:
            betting.append(replies[-1] - first_wager)
        if result is not None and cleared is not None:
            settlement.append(cleared - result)
    return betting, settlement


def run(game: str, baud: int, rounds: int, realtime: bool, folder: Path) -> dict:
    out = folder / f"{game}-{baud}-{'rt' if realtime else 'vt'}"
    cmd = [sys.executable, "-m", "bench.cli", "run", "--game", game, "--baud", str(baud), "--rounds", str(rounds),
           "--plant", "dice", "--out", str(out), "--seed", "11", "--json", "--no-progress"]
    if realtime:
        cmd.append("--realtime")
    started = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=3600)
    wall = time.monotonic() - started
    if not done.stdout.strip():
        raise SystemExit(f"{' '.join(cmd)}: {done.stderr[-2000:]}")
    summary = json.loads(done.stdout.splitlines()[0])       # the "summary" line, before the verdict (docs/json.md)
    session = json.loads((out / "session.jsonl").read_text().splitlines()[-1])   # the session-end record
    started_play = json.loads((out / "session.jsonl").read_text().splitlines()[1])["wire"][0][MONO]
    ended_play = session["finish_mono"]
    betting, settlement = exchanges(out / "session.jsonl")
    line = summary["line"]
    return {"game": game, "baud": baud, "realtime": realtime, "rounds": summary["rounds"], "status": done.returncode,
            "violations": summary["violations_by_clause"], "failed_rounds": len(summary["failed_rounds"]),
            "window": line["window"], "wagers_per_round": line["wagers_per_round"],
            "wagers_wanted": line["wagers_wanted"],
            "predicted_betting_s": line["betting"]["seconds"], "predicted_settlement_s": line["settlement"]["seconds"],
            "betting_phase_s": line["betting"]["phase_s"], "settlement_phase_s": line["settlement"]["phase_s"],
            "betting_s": statistics.median(betting) if betting else None,
            "settlement_s": statistics.median(settlement) if settlement else None,
            "rounds_per_min": 60 * summary["rounds"] / (ended_play - started_play),
            "wall_s": round(wall, 1)}


def margin(seconds, phase_s) -> str:
    return "–" if seconds is None else f"{1 - seconds / phase_s:.0%}"


def table(results: list[dict]) -> str:
    rows = ["| game | baud | window | wagers a round | betting s (budget) | margin | settlement s (budget) | margin "
            "| rounds/min, line-bound | rounds/min, table pace |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    by_key = {(r["game"], r["baud"], r["realtime"]): r for r in results}
    for game in GAMES:
        for baud in BAUDS:
            r = by_key.get((game, baud, False))
            if r is None:
                continue
            rt = by_key.get((game, baud, True))
            wagers = (f"{r['wagers_per_round']} of {r['wagers_wanted']}" if r["wagers_per_round"] < r["wagers_wanted"]
                      else str(r["wagers_per_round"]))
            paced = f"{rt['rounds_per_min']:.2f}" if rt else "–"
            rows.append(f"| {game} | {baud:,} | {r['window']} | {wagers} | {r['betting_s']:.2f} "
                        f"({r['predicted_betting_s']:.1f}) | {margin(r['betting_s'], r['betting_phase_s'])} | "
                        f"{r['settlement_s']:.2f} ({r['predicted_settlement_s']:.1f}) | "
                        f"{margin(r['settlement_s'], r['settlement_phase_s'])} | {r['rounds_per_min']:.1f} | {paced} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6, help="rounds per setting in virtual time (default 6)")
    parser.add_argument("--realtime-rounds", type=int, default=3,
                        help="rounds per setting at the table's pace, --realtime (default 3; 0: skip)")
    parser.add_argument("--json", type=Path, default=Path("line_bench.jsonl"), help="results, one line a setting")
    args = parser.parse_args()
    done = [json.loads(line) for line in args.json.read_text().splitlines()] if args.json.exists() else []
    have = {(r["game"], r["baud"], r["realtime"]) for r in done}
    with tempfile.TemporaryDirectory() as folder:
        for realtime, rounds in ((False, args.rounds), (True, args.realtime_rounds)):
            if rounds < 1:
                continue
            for game in GAMES:
                for baud in BAUDS:
                    if (game, baud, realtime) in have:
                        continue
                    print(f"{game} at {baud} baud, {'table pace' if realtime else 'virtual time'}, {rounds} rounds",
                          file=sys.stderr, flush=True)
                    result = run(game, baud, rounds, realtime, Path(folder))
                    done.append(result)
                    with args.json.open("a") as out:
                        out.write(json.dumps(result) + "\n")
    print(table(done))


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    main()
