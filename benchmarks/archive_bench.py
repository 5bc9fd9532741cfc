"""The archive at a fleet's scale (issue 44, item 5) and the fleet judgement's
false discoveries (item 6). Run by hand, under nice:

    nice -n 15 .venv/bin/python benchmarks/archive_bench.py generate --tables 1000 --rounds 50 --out out/fleet --part 0/2
    nice -n 15 .venv/bin/python benchmarks/archive_bench.py scale --journals out/fleet --archive out/fleet-archive
    nice -n 15 .venv/bin/python benchmarks/archive_bench.py fdr --fdr-seeds 20 --tables 10 --rounds 300 --out out/fdr
    nice -n 15 .venv/bin/python benchmarks/archive_bench.py null --sets 3000 --rounds 300

generate: table-days played with the emulated controller (in this process, on a
thread behind a pty) and the fair-dice plant at the game's phases, each a
journal (bench.archive.emulated_fleet); --part K/N plays every N-th table from
the K-th, so that N processes share the work. scale: bench archive ingest,
three queries and bench archive judge over them, each a process of its own,
its wall and CPU time and peak resident memory (the child's ru_maxrss).
fdr: per seed, a fleet whose one table runs lucky-favours-a-number, ingested
and judged: which tables are flagged, against the one that should be; then,
over the fair tables' tests, the share of p below 0.05, 0.01 and 0.001 by
test (a fair table's p-values are uniform, or smaller shares for a
conservative test). null: without sessions, the same draws the fair plant and
the fair emulator make from recorded seeds: the faces' chi-square over
``--sets`` fair table-days, and the Lucky family of the oracle (its
chi-squares) beside the fleet's exact one (bench.archive.lucky_exact) over
as many fair draw sets, the share of small p-values each gives.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.archive.emulated_fleet import play_table_day, table_names  # noqa: E402


def _timed(command: list[str]) -> dict:
    """Wall and CPU seconds and the peak resident memory of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    ran = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"status": ran.returncode, "wall_s": round(wall, 2),
            "cpu_s": round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 2),
            "peak_mb": round(after.ru_maxrss / 1024, 1), "stdout": ran.stdout, "stderr": ran.stderr}


def generate(args: argparse.Namespace) -> None:
    k, n = (int(x) for x in args.part.split("/"))
    out = Path(args.out)
    names = table_names(args.tables)[k::n]
    start = time.monotonic()
    for i, table in enumerate(names, 1):
        target = out / table / f"day-{args.day:02d}"
        if (target / "session.head").exists():
            continue                       # made by an earlier run: resumable
        if target.exists():
            shutil.rmtree(target)
        play_table_day(target, table, args.day, args.rounds, args.seed,
                       misbehave=args.misbehave if table == args.skewed else None)
        if i % 25 == 0:
            print(f"{i}/{len(names)} table-days, {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
    print(json.dumps({"table_days": len(names), "rounds": args.rounds, "seconds": round(time.monotonic() - start, 1)}))


def scale(args: argparse.Namespace) -> None:
    journals = sorted(str(p) for p in Path(args.journals).rglob("session.jsonl"))
    archive = Path(args.archive)
    if archive.exists():
        shutil.rmtree(archive)
    bench = [sys.executable, "-m", "bench.cli", "archive"]
    figures: dict[str, Any] = {"table_days": len(journals), "journal_mb": round(sum(Path(j).stat().st_size for j in journals) / 2**20, 1)}
    steps = {"ingest": bench + ["ingest", "--archive", str(archive), *journals, "--json"],
             "query_no_rolls_by_table": bench + ["query", "--archive", str(archive),
                                                 'SELECT "table", count(*) FILTER (WHERE no_roll) AS no_rolls, count(*) '
                                                 'AS rounds FROM rounds GROUP BY 1 ORDER BY 2 DESC', "--limit", "5"],
             "query_return_by_dealer": bench + ["query", "--archive", str(archive),
                                                "SELECT coalesce(dealer, '-') AS dealer, sum(returned) / sum(staked) AS "
                                                "observed, sum(exact_return) / sum(staked) AS exact FROM rounds WHERE "
                                                "staged IS NULL GROUP BY 1"],
             "query_lucky_total3": bench + ["query", "--archive", str(archive),
                                            "SELECT count(*) FROM lucky WHERE bet = 'total:3'"],
             "judge": bench + ["judge", "--archive", str(archive), "--json", "--report", str(archive / "fleet.html")]}
    for name, command in steps.items():
        result = _timed(command)
        figures[name] = {k: v for k, v in result.items() if k not in ("stdout", "stderr")}
        if name.startswith("query"):
            figures[name]["first_lines"] = result["stdout"].splitlines()[:4]
        if name == "judge":
            verdict = json.loads(result["stdout"].splitlines()[-1])
            figures[name]["flagged"] = verdict.get("flagged")
            figures[name]["groups"] = verdict.get("groups")
        if result["status"] not in (0, 1):
            figures[name]["stderr"] = result["stderr"][-500:]
    per = figures["table_days"] or 1
    figures["per_table_day"] = {"ingest_cpu_ms": round(1000 * figures["ingest"]["cpu_s"] / per, 1),
                                "judge_cpu_ms": round(1000 * figures["judge"]["cpu_s"] / per, 1),
                                "archive_kb": round(sum(p.stat().st_size for p in archive.rglob("*.parquet"))
                                                    / 1024 / per, 1)}
    print(json.dumps(figures, indent=1))


def fdr(args: argparse.Namespace) -> None:
    out = Path(args.out)
    rates = [float(r) for r in args.fdr.split(",")]
    found: list[dict] = []
    fair: dict[str, list[float]] = {}          # the fair tables' p-values, by test
    for seed in [int(s) for s in args.only.split(",")] if args.only else range(1, args.seeds + 1):
        fleet = out / f"seed-{seed:02d}"
        names = table_names(args.tables)
        skewed = names[seed % len(names)]
        journals = []
        for table in names:
            target = fleet / table
            if not (target / "session.head").exists():
                if target.exists():
                    shutil.rmtree(target)
                play_table_day(target, table, 1, args.rounds, 1000 + seed,
                               misbehave="lucky-favours-a-number" if table == skewed else None)
            journals.append(str(target / "session.jsonl"))
        archive = fleet / "archive"
        if archive.exists():
            shutil.rmtree(archive)
        bench = [sys.executable, "-m", "bench.cli", "archive"]
        subprocess.run(bench + ["ingest", "--archive", str(archive), *journals], capture_output=True, check=False)
        for rate in rates:
            judged = subprocess.run(bench + ["judge", "--archive", str(archive), "--json", "--fdr", str(rate)],
                                    capture_output=True, text=True)
            lines = [json.loads(line) for line in judged.stdout.splitlines()]
            flagged = lines[-1]["flagged"]
            if rate == rates[0]:
                for group in lines[:-1]:
                    for test in group["tests"] if group["table"] != skewed else ():
                        fair.setdefault(test["test"], []).append(test["p"])
            false = [t for t in flagged if t != skewed]
            found.append({"seed": seed, "fdr": rate, "skewed": skewed, "flagged": flagged,
                          "right": flagged == [skewed], "missed": skewed not in flagged,
                          "false_discovery_proportion": len(false) / len(flagged) if flagged else 0.0})
            print(json.dumps(found[-1]), flush=True)
    for rate in rates:
        at = [f for f in found if f["fdr"] == rate]
        print(json.dumps({"fdr": rate, "seeds": len(at), "exactly_the_skewed_table": sum(f["right"] for f in at),
                          "missed": sum(f["missed"] for f in at),
                          "seeds_with_a_fair_table_flagged": sum(f["false_discovery_proportion"] > 0 for f in at),
                          "mean_false_discovery_proportion": round(sum(f["false_discovery_proportion"] for f in at)
                                                                   / len(at), 3),
                          "tables": args.tables, "rounds": args.rounds}))
    print(json.dumps({"fair_tables": len(found) // len(rates) * (args.tables - 1), "shares": _shares(fair)}))


def fdr_draws(args: argparse.Namespace) -> None:
    """fdr's fleets without their sessions: each table's faces and Lucky draws made again from the
    seeds its session uses (the fair plant's from the session seed, the emulator's Lucky draw from
    the controller's, lucky-favours-a-number's too), judged with the fleet's own tests (no no-roll
    test: the fair plant never rolls one) and Benjamini-Hochberg over them, the Lucky test both
    the oracle's way (chi-squares, as main judged before the exact tests) and the fleet's."""
    import random
    from collections import Counter
    from types import SimpleNamespace

    from scipy.stats import false_discovery_control

    from bench.archive.emulated_fleet import GAME, derived_seed
    from bench.archive.fleet import _outcome_test
    from bench.archive.rules_of import lucky_test
    from bench.emulator.misbehaviours import Policy
    from bench.emulator.rng_misbehaviours import LuckyFavoursANumber
    from bench.oracle.lucky_draw import judge
    from bench.play.plant import FairDicePlant
    from bench.rules import describe
    from bench.rules.registry import get_game
    from bench.rules.submission import default_rules
    rules = default_rules(GAME, None)
    ctrl = SimpleNamespace(game=get_game(GAME), rules=rules)
    clauses = dict(describe(GAME).lucky_draw_clauses)
    rates = [float(r) for r in args.fdr.split(",")]
    summary: dict[tuple[str, float], list[dict]] = {}
    for seed in range(1, args.seeds + 1):
        names = table_names(args.tables)
        skewed = names[seed % len(names)]
        tests: list[tuple[str, str, float, float]] = []        # table, test, p (exact Lucky), p (oracle's Lucky)
        for table in names:
            plant = FairDicePlant(derived_seed(1000 + seed, table, 1))
            faces: Counter = Counter()
            for round_no in range(1, args.rounds + 1):
                faces.update(plant.read(round_no, 0, 3).dice)
            outcome = _outcome_test(faces, range(1, 7))
            assert outcome is not None
            tests.append((table, "outcome", outcome.p, outcome.p))
            policy = LuckyFavoursANumber() if table == skewed else Policy()
            controller = derived_seed(1000 + seed, table, 1, "controller")
            draws = [policy.draw_lucky(ctrl, random.Random(f"{controller}:lucky:{r}"))
                     for r in range(1, args.rounds + 1)]
            exact = lucky_test(rules, [[(x.bet, x.pays) for x in d] for d in draws])
            assert exact is not None
            oracle = min(t.adjusted for t in judge(rules.lucky, clauses, draws).tests)
            tests.append((table, "lucky", exact[0], oracle))
        for way, column in (("exact", 2), ("oracle", 3)):
            q = false_discovery_control([t[column] for t in tests], method="bh")
            for rate in rates:
                flagged = sorted({t[0] for t, qq in zip(tests, q) if qq <= rate})
                false = [f"{t[0]} {t[1]} p={t[column]:.2g}" for t, qq in zip(tests, q) if qq <= rate and t[0] != skewed]
                found = {"seed": seed, "lucky": way, "fdr": rate, "skewed": skewed, "flagged": flagged,
                         "right": flagged == [skewed], "false": false,
                         "false_discovery_proportion": sum(t != skewed for t in flagged) / max(1, len(flagged))}
                summary.setdefault((way, rate), []).append(found)
                if not found["right"]:
                    print(json.dumps(found), flush=True)
    for (way, rate), at in sorted(summary.items()):
        print(json.dumps({"lucky": way, "fdr": rate, "seeds": len(at), "exactly_the_skewed_table": sum(f["right"] for f in at),
                          "missed": sum(f["skewed"] not in f["flagged"] for f in at),
                          "mean_false_discovery_proportion": round(sum(f["false_discovery_proportion"] for f in at)
                                                                   / len(at), 3),
                          "tables": args.tables, "rounds": args.rounds}))


def _shares(by_test: dict[str, list[float]]) -> dict[str, dict]:
    """For each test, its p-values' count and the share below 0.05, 0.01 and 0.001."""
    return {name: {"n": len(ps), **{f"p<{a:g}": round(sum(p < a for p in ps) / len(ps), 4) for a in (0.05, 0.01, 0.001)}}
            for name, ps in sorted(by_test.items()) if ps}


def null(args: argparse.Namespace) -> None:
    """Fair draws made straight from the seeds a session would use, judged without a session."""
    import random
    from collections import Counter

    from scipy.stats import chisquare, kstest

    from bench.archive.emulated_fleet import derived_seed
    from bench.archive.lucky_exact import exact_family
    from bench.oracle.lucky_draw import judge
    from bench.play.plant import FairDicePlant
    from bench.rules import describe
    from bench.rules.submission import default_rules
    start = time.process_time()
    faces = []
    for n in range(args.sets):          # the fair plant's three dice, a table-day of --rounds
        plant = FairDicePlant(derived_seed(args.seed, f"N{n:05d}", 1))
        counts: Counter = Counter()
        for round_no in range(1, args.rounds + 1):
            counts.update(plant.read(round_no, 0, 3).dice)
        faces.append(float(chisquare([counts[v] for v in range(1, 7)]).pvalue))
    rules = default_rules("lightning-dice", None)
    clauses = dict(describe(rules.game).lucky_draw_clauses)
    oracle: dict[str, list[float]] = {"family (Holm, smallest)": [], "count": [], "odds": [], "positions": []}
    exact: dict[str, list[float]] = {"family (Holm, smallest)": [], "count": [], "odds": [], "positions": []}
    worst = (1.0, -1, "")
    for n in range(args.sets):          # the fair emulator's Lucky draw: one seeded RNG a round
        draws = [rules.lucky.draw(random.Random(f"null:{n}:lucky:{r}")) for r in range(args.rounds)]
        chi = judge(rules.lucky, clauses, draws).tests
        for found, into in ((chi, oracle), (exact_family(rules.lucky, clauses, draws), exact)):
            into["family (Holm, smallest)"].append(min(t.adjusted for t in found))
            for t in found:
                into[t.part].append(t.p_value)
        worst = min(worst, *((t.p_value, n, t.detail) for t in chi if t.part == "odds"))
    print(json.dumps({"sets": args.sets, "rounds": args.rounds, "seed": args.seed,
                      "faces": {**_shares({"chi-square": faces})["chi-square"],
                                "ks_uniform_p": round(float(kstest(faces, "uniform").pvalue), 4)},
                      "lucky_oracle_chi_square": _shares(oracle), "lucky_fleet_exact": _shares(exact),
                      "smallest_oracle_odds_p": {"p": worst[0], "draw_seed": f"null:{worst[1]}", "detail": worst[2]},
                      "cpu_s": round(time.process_time() - start, 1)}, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--tables", type=int, default=1000)
    g.add_argument("--rounds", type=int, default=50)
    g.add_argument("--day", type=int, default=1)
    g.add_argument("--seed", type=int, default=44)
    g.add_argument("--skewed", default=None, help="the table that runs --misbehave")
    g.add_argument("--misbehave", default="lucky-favours-a-number")
    g.add_argument("--part", default="0/1", metavar="K/N")
    g.add_argument("--out", default="out/fleet")
    s = sub.add_parser("scale")
    s.add_argument("--journals", default="out/fleet")
    s.add_argument("--archive", default="out/fleet-archive")
    f = sub.add_parser("fdr")
    f.add_argument("--seeds", "--fdr-seeds", dest="seeds", type=int, default=20)
    f.add_argument("--tables", type=int, default=10)
    f.add_argument("--rounds", type=int, default=300)
    f.add_argument("--fdr", default="0.05,0.01", help="the rates to judge at, comma-separated")
    f.add_argument("--only", default=None, metavar="S,S,...", help="these seeds only (of 1 to --seeds)")
    f.add_argument("--out", default="out/fdr")
    d = sub.add_parser("fdr-draws")
    d.add_argument("--seeds", "--fdr-seeds", dest="seeds", type=int, default=20)
    d.add_argument("--tables", type=int, default=10)
    d.add_argument("--rounds", type=int, default=300)
    d.add_argument("--fdr", default="0.05,0.01", help="the rates to judge at, comma-separated")
    n = sub.add_parser("null")
    n.add_argument("--sets", type=int, default=3000, help="fair table-days (faces) and fair draw sets (Lucky)")
    n.add_argument("--rounds", type=int, default=300)
    n.add_argument("--seed", type=int, default=44)
    args = parser.parse_args()
    {"generate": generate, "scale": scale, "fdr": fdr, "fdr-draws": fdr_draws, "null": null}[args.what](args)


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    main()
