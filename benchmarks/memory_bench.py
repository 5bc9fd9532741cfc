"""Resident memory of a long session and of its replay (issue 42, item 6): is
it flat after the first thousand rounds?

    nice -n 15 .venv/bin/python benchmarks/memory_bench.py --marks 1000,10000,100000 --out out/bench/memory.jsonl
    nice -n 15 .venv/bin/python benchmarks/memory_bench.py --source /tmp/main    # another checkout

One fair-dice ``bench run`` (no physics: the rounds cost memory, not the
twin) of the last mark's rounds, its VmRSS read as its journal reaches each
mark; then the journal cut at each mark (whole rounds and the session-end
record are not needed: replay says the session was cut off and judges what
is there) replayed in a process of its own, its peak VmHWM. Each line of
--out (JSON lines, written as it goes) gives the figures at a mark and the
KB a round added since the first mark.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
from long_session_bench import RoundCounter  # noqa: E402
from proc_memory import memory_mb  # noqa: E402

TIMEOUT_S = 6 * 3600


def session(root: Path, env: dict[str, str], marks: list[int], out: Path, emit) -> Path:
    """Runs the session, emitting its VmRSS at each mark; the journal's path."""
    # Past the last mark by a margin: a session of exactly that many rounds ended (and its memory
    # went) between two looks at its journal, and the last mark was never read.
    length = marks[-1] + max(200, marks[-1] // 50)
    proc = subprocess.Popen([sys.executable, "-m", "bench.cli", "run", "--plant", "dice", "--rounds",
                             str(length), "--seed", "1", "--no-probes", "--max-frames", str(200 * length),
                             "--max-journal-mb", str(max(1024, length // 25)), "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=root, env=env)
    counter, waiting, started = RoundCounter(out / "session.jsonl"), list(marks), time.monotonic()
    first: float | None = None
    while proc.poll() is None and waiting:
        rounds = counter.update()
        if rounds >= waiting[0]:
            mark = waiting.pop(0)
            rss = memory_mb(proc.pid, "VmRSS")
            first = rss if first is None else first
            emit({"part": "session", "rounds": mark, "rss_mb": round(rss, 1),
                  "kb_per_round_since_first": round((rss - first) * 1024 / max(1, mark - marks[0]), 3),
                  "wall_s": round(time.monotonic() - started, 1)})
        print(f"\r  session: {rounds} rounds", end="", file=sys.stderr, flush=True)
        time.sleep(0.2)
    print(file=sys.stderr)
    if waiting:      # e.g. stopped by a wire budget (the default 1 GiB journal: 64,770 rounds)
        print(f"memory_bench: the session ended at {counter.update()} rounds, before the marks {waiting}",
              file=sys.stderr)
    proc.wait(timeout=TIMEOUT_S)
    return out / "session.jsonl"


def cut(journal: Path, rounds: int, into: Path) -> tuple[Path, int]:
    """The journal's lines up to its ``rounds``-th round record, and how many rounds that is
    (fewer where the session ended short)."""
    seen = 0
    with open(journal, "rb") as source, open(into, "wb") as target:
        for line in source:
            target.write(line)
            if b'"kind":"round"' in line[:120]:
                seen += 1
                if seen >= rounds:
                    break
    return into, seen


def replay_peak(root: Path, env: dict[str, str], journal: Path) -> float:
    code = ("import sys; from bench.journal.replay import replay; replay(sys.argv[1]); "
            "print(open('/proc/self/status').read())")
    done = subprocess.run([sys.executable, "-c", code, str(journal)], capture_output=True, text=True, cwd=root,
                          env=env, timeout=TIMEOUT_S, check=True)
    line = next(line for line in done.stdout.splitlines() if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--marks", default="1000,10000,100000", help="rounds at which memory is read")
    parser.add_argument("--source", type=Path, help="another checkout to measure (default: this one)")
    parser.add_argument("--out", type=Path, default=Path("out/bench/memory.jsonl"))
    args = parser.parse_args()
    marks = sorted(int(m) for m in args.marks.split(","))
    root = (args.source or HERE.parents[1]).resolve()
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def emit(line: dict) -> None:
        line["source"] = str(root)
        print(json.dumps(line), flush=True)
        with open(args.out, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")

    with tempfile.TemporaryDirectory(prefix="memory-bench-") as tmp:
        journal = session(root, env, marks, Path(tmp) / "session", emit)
        first: float | None = None
        for mark in marks:
            part, rounds = cut(journal, mark, Path(tmp) / f"cut-{mark}.jsonl")   # the session ran past the last
            peak = replay_peak(root, env, part)
            first = peak if first is None else first
            emit({"part": "replay", "rounds": rounds, "peak_mb": round(peak, 1),
                  "kb_per_round_since_first": round((peak - first) * 1024 / max(1, rounds - marks[0]), 3)})
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
