"""Memory over a long honest session: is it flat?

``bench run`` plays ``--rounds`` compliant Lightning Dice rounds (the
emulated controller in its own process, covering play, fair seeded dice as
the plant so that rounds are quick; the bench does the same work a round
whatever the plant) with the probes off. While it plays, the bench process's
resident memory (VmRSS) is read each time the journal shows another
``--every`` rounds; at the end its peak (VmHWM, which takes in writing
JUnit and the report). Samples are appended to ``--results`` as they come
(JSON lines), so a long run's progress is on disk; a finished run of the
same configuration in that file is printed instead of run again
(``--again`` runs it anyway).

Target (issue 26): memory at 1,000 and at 20,000 rounds within 10%.
``--source DIR`` runs the bench of another checkout (before a change).

    nice -n 10 python benchmarks/long_session_bench.py --rounds 20000 [--plant dice] [--results FILE]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from proc_memory import memory_mb  # noqa: E402

class RoundCounter:
    """Counts the journal's round records as the bench appends them, reading
    only what is new."""

    def __init__(self, journal: Path):
        self.journal, self.offset, self.rounds, self._tail = journal, 0, 0, b""

    def update(self) -> int:
        try:
            with open(self.journal, "rb") as handle:
                handle.seek(self.offset)
                data = handle.read()
        except OSError:
            return self.rounds
        self.offset += len(data)
        lines = (self._tail + data).split(b"\n")
        self._tail = lines.pop()
        self.rounds += sum(1 for line in lines if b'"kind":"round"' in line[:120])
        return self.rounds


def finished(results: Path, key: dict) -> dict | None:
    if not results.exists():
        return None
    for line in results.read_text().splitlines():
        record = json.loads(line)
        if record.get("kind") == "result" and all(record.get(k) == v for k, v in key.items()):
            return record
    return None


def run(args, key: dict) -> dict:
    env = dict(os.environ)
    if args.source is not None:
        env["PYTHONPATH"] = str(args.source) + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        cmd = [sys.executable, "-m", "bench.cli", "run", "--rounds", str(args.rounds), "--seed", "1",
               "--no-probes", "--plant", args.plant, "--out", str(out), "--json"]
        started = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        counter = RoundCounter(out / "session.jsonl")
        samples, next_mark = {}, args.every
        with open(args.results, "a", encoding="utf-8") as log:
            while proc.poll() is None:
                time.sleep(0.2)
                done = counter.update()
                if done >= next_mark:
                    rss = memory_mb(proc.pid, "VmRSS")
                    samples[done] = rss
                    log.write(json.dumps({"kind": "sample", **key, "rounds_done": done, "rss_mb": round(rss, 1),
                                          "seconds": round(time.monotonic() - started, 1)}) + "\n")
                    log.flush()
                    print(f"  {done:>6} rounds  RSS {rss:6.1f} MB  ({time.monotonic() - started:.0f} s)",
                          file=sys.stderr, flush=True)
                    next_mark = (done // args.every + 1) * args.every
                peak = memory_mb(proc.pid, "VmHWM")
                if peak:
                    samples["peak"] = peak
            stdout, stderr = proc.communicate(timeout=600)
        summary = json.loads(stdout.splitlines()[0]) if stdout.strip() else {}
        files = {p.name: round(p.stat().st_size / 1e6, 2) for p in sorted(out.iterdir()) if p.is_file()}
    marks = sorted(k for k in samples if isinstance(k, int))
    first = next((samples[m] for m in marks if m >= 1000), None)
    last = samples[marks[-1]] if marks else None
    return {"kind": "result", **key, "exit": proc.returncode, "ending": summary.get("ending"),
            "rounds_done": summary.get("rounds"), "seconds": round(time.monotonic() - started, 1),
            "rss_at_1000_mb": first and round(first, 1), "rss_at_end_mb": last and round(last, 1),
            "last_sample_at": marks[-1] if marks else None,
            "growth": round(last / first - 1, 4) if first and last else None,
            "peak_mb": round(samples.get("peak", 0.0), 1), "files_mb": files,
            "stderr": stderr.strip().splitlines()[-1] if stderr.strip() else ""}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000)
    parser.add_argument("--every", type=int, default=1000, help="rounds between memory samples (default 1000)")
    parser.add_argument("--plant", default="dice", choices=("dice", "physics"))
    parser.add_argument("--source", type=Path, help="run the bench from this checkout (default: this one)")
    parser.add_argument("--results", type=Path, default=Path("out/long_session_bench.jsonl"),
                        help="JSON lines of samples and results, appended to (default %(default)s)")
    parser.add_argument("--again", action="store_true", help="run even if the results file has this run")
    args = parser.parse_args()
    key = {"rounds": args.rounds, "plant": args.plant, "source": str(args.source or "this checkout")}
    args.results.parent.mkdir(parents=True, exist_ok=True)
    result = None if args.again else finished(args.results, key)
    if result is None:
        result = run(args, key)
        with open(args.results, "a", encoding="utf-8") as log:
            log.write(json.dumps(result) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
