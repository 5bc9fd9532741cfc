"""Staging on the physics plants: what a catalogue sweep costs, and how long
the link waits while the plant works.

    .venv/bin/python benchmarks/staging_bench.py [--sweeps [--write fixtures/staged-seeds.json]] [--sessions]
        [--rounds 10] [--json FILE]

--sweeps: for the standard tower and wheel, each of the catalogue's start
points (``bench.play.staging.VARIANTS``) swept from a cold memo until every
outcome a staged round may ask for is found: seeds simulated, CPU seconds,
and the drops with a die cocked it keeps. --write FILE: the catalogues, as
the shipped ones are (run it again when the twin or a shipped design changes:
tests/bench/test_staging.py checks that they still hold).

--sessions: a Lightning Dice and a Lightning Roulette session of --rounds
rounds on the physics plant, cold (no staging memo, not the shipped one), against the
emulated controller in its own process, twice side by side: the plant on its
own thread (as ``bench run`` plays it) and on the link's thread (as before
issue 27). From each journal: the frames the controller sent again (each one
it waited its 0.5 s response timeout for an ACK of; the journal times an ACK
when it is queued, not when it leaves, so a resend is what shows the wait),
the controller's own verdict (the frames it gave up: its log), failed rounds,
wall and CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path


def sweeps(write: Path | None = None, plants: tuple[str, ...] = ("tower", "wheel")) -> list[dict]:
    from bench.play.plant import TowerPlant, WheelPlant
    from bench.play.staging import SeedMemo, VARIANTS
    out, shipped = [], {}
    for cls in (c for c in (TowerPlant, WheelPlant) if c.name in plants):
        for variant in range(VARIANTS):
            with tempfile.TemporaryDirectory() as cache:
                plant = cls("standard", session_seed=variant, memo=SeedMemo(Path(cache) / "memo.json", shipped=None))
                catalogue = plant.catalogue
                started, cpu = time.monotonic(), time.process_time()
                while not catalogue.complete:
                    catalogue.step()
                row = {"plant": cls.name, "variant": variant, "start": catalogue.start,
                       "simulated": catalogue.next - catalogue.start, "found": len(catalogue.found),
                       "wanted": len(catalogue.wanted), "cpu_s": round(time.process_time() - cpu, 1),
                       "wall_s": round(time.monotonic() - started, 1),
                       "cocked": {k: v for k, v in catalogue.found.items() if k.startswith("cocked")}}
                out.append(row)
                shipped[catalogue.memo_key] = catalogue.state()
                print(json.dumps(row), file=sys.stderr, flush=True)
    if write is not None:
        # Only the plants swept are replaced: the others' catalogues, read
        # again right before writing, stay as they are (another plant's
        # catalogue may have been regenerated meanwhile).
        kept = json.loads(write.read_text()) if write.exists() else {}
        kept = {k: v for k, v in kept.items() if k.split(":", 1)[0] not in plants}
        write.write_text(json.dumps({**kept, **shipped}, indent=1, sort_keys=True) + "\n")
    return out


def _resent(journal: Path) -> int:
    """Frames the controller sent again: each one an ACK it waited 0.5 s for."""
    return sum(1 for line in journal.read_text().splitlines() for row in json.loads(line).get("wire") or ()
               if row[0] == "rx" and row[1] == "duplicate")


def session(game: str, rounds: int, threaded: bool, seed: int) -> dict:
    from bench.play import plant as plants
    from bench.session.runner import SessionConfig, run_session
    from bench.play import staging
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")        # a cold staging memo ...
        kind = {"lightning-dice": plants.TowerPlant, "lightning-roulette": plants.WheelPlant}[game]
        original, shipped = kind.threaded, staging.tablebench_fixtures.staged_seeds
        kind.threaded = threaded
        staging.tablebench_fixtures.staged_seeds = lambda: None        # ... and not the shipped one
        started, cpu = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF).ru_utime
        try:
            outcome = run_session(SessionConfig(game=game, rounds=rounds, seed=seed, out=str(Path(tmp) / "s"),
                                                progress=False))
        finally:
            kind.threaded, staging.tablebench_fixtures.staged_seeds = original, shipped
        log = (Path(tmp) / "s" / "emulator.log").read_text()
        return {"game": game, "plant_thread": threaded, "rounds": rounds, "status": outcome.status,
                "failed_rounds": len(outcome.round_failures), "violations": len(outcome.oracle.violations),
                "controller_resent": _resent(outcome.journal), "controller_gave_up": log.count("not acknowledged"),
                "wall_s": round(time.monotonic() - started, 1),
                "cpu_s": round(resource.getrusage(resource.RUSAGE_SELF).ru_utime - cpu, 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweeps", action="store_true")
    parser.add_argument("--write", metavar="FILE", help="with --sweeps: the catalogues, as fixtures/staged-seeds.json")
    parser.add_argument("--plants", default="tower,wheel", help="with --sweeps: which plants, comma-separated")
    parser.add_argument("--sessions", action="store_true")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    result: dict = {}
    if args.sweeps:
        result["sweeps"] = sweeps(Path(args.write) if args.write else None, tuple(args.plants.split(",")))
        print("| plant | start | seeds simulated | outcomes found | CPU s | kept cocked drops |\n|---|---|---|---|---|---|")
        for r in result["sweeps"]:
            print(f"| {r['plant']} | {r['start']:,} | {r['simulated']} | {r['found']}/{r['wanted']} | {r['cpu_s']} | "
                  f"{', '.join(f'{v:,}' for v in r['cocked'].values()) or '-'} |")
    if args.sessions:
        result["sessions"] = []
        for game in ("lightning-dice", "lightning-roulette"):
            for threaded in (True, False):
                row = session(game, args.rounds, threaded, args.seed)
                result["sessions"].append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
        print("| game | plant works on | frames the controller sent again | frames it gave up | failed rounds | "
              "violations | wall s | CPU s |\n|---|---|---|---|---|---|---|---|")
        for r in result["sessions"]:
            print(f"| {r['game']} | {'its own thread' if r['plant_thread'] else 'the link thread'} | "
                  f"{r['controller_resent']} | {r['controller_gave_up']} | {r['failed_rounds']} | {r['violations']} | "
                  f"{r['wall_s']} | {r['cpu_s']} |")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
