"""``bench certify``: a lab's whole plan run against a controller and a design,
filed as one sealed dossier, clause by clause (docs/certify.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tablebench_io.commandline import Exit

MAX_PROBLEMS_SHOWN = 40        # a dossier rewritten wholesale: the first problems, the rest counted


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "certify", help="run a lab's certification plan and file one sealed dossier, clause by clause",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run everything a certification plan names against a controller and a design, in order "
                    "(link conformance first: a failed link stops the rest), and file one folder: an index page "
                    "with the verdict, the clause matrix (every testable clause of the jurisdiction's regulations: "
                    "what exercised it, how much, the verdict, the page and journal lines; what was not exercised "
                    "and why), every page and journal, and a manifest of every file's SHA-256 signed with the "
                    "bench key. Started again after an interruption, it goes on where it stopped.",
        epilog="bench certify --init plan.yaml           a commented plan to start from\n"
               "bench certify lightning-dice-standard --out dossier --key keys/bench/bench.key\n"
               "bench certify --verify dossier --pubkey keys/bench/bench.pub\n\n"
               "Exit status: 0 every clause exercised passed (and --verify: the dossier is intact), 1 a clause broken,\n"
               "a clause unexplained, or (--verify) a file changed, added or removed, 2 a bad plan, key or folder,\n"
               "3 the controller's link failed, 4 interrupted (run it again to go on), 5 a step failed to run.")
    p.add_argument("plan", nargs="?", metavar="PLAN", help="the plan (YAML), or a shipped one by name (--list)")
    p.add_argument("--out", metavar="DIR", help="the dossier's folder (made if missing; resumed if it holds this plan's)")
    p.add_argument("--key", metavar="FILE",
                   help="the bench key (bench.key of bench key new) sealing the journals and signing the manifest; "
                        "default: the plan's key")
    p.add_argument("--init", metavar="PATH", help="write a commented plan to PATH and exit")
    p.add_argument("--force", action="store_true", help="with --init: overwrite PATH")
    p.add_argument("--verify", metavar="DIR", help="check a dossier: signature, every file, every journal's chain and seals")
    p.add_argument("--pubkey", metavar="FILE|FINGERPRINT", help="with --verify: the bench key the dossier must be signed by")
    p.add_argument("--list", action="store_true", help="list the shipped plans and jurisdiction profiles and exit")
    p.add_argument("--step-timeout", type=float, default=6 * 3600.0, metavar="S",
                   help="the longest one step may run before it is stopped (default %(default)g s)")
    p.add_argument("--json", action="store_true",
                   help="JSON lines (tablebench.certify/1): a line per step and per clause, then the verdict")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.list:
        from bench.certify.plan import PLAN_PACKAGE, PROFILE_PACKAGE, shipped_names
        for name in shipped_names(PLAN_PACKAGE):
            print(f"{name:32s} plan")
        for name in shipped_names(PROFILE_PACKAGE):
            print(f"{name:32s} jurisdiction profile")
        return Exit.OK
    if args.init:
        return _init(args.init, args.force)
    if args.verify:
        return _verify(args)
    if not args.plan or not args.out:
        print("bench certify: give a PLAN and --out DIR (or --init PATH, --verify DIR, --list)", file=sys.stderr)
        return Exit.BAD_INPUT
    return _certify(args)


def _init(path: str, force: bool) -> int:
    from bench.certify.plan import EXAMPLE_PLAN, PLAN_PACKAGE, shipped
    target = Path(path)
    if target.exists() and not force:
        print(f"bench certify: {path}: already exists (--force overwrites it)", file=sys.stderr)
        return Exit.BAD_INPUT
    example = shipped(PLAN_PACKAGE, EXAMPLE_PLAN)
    assert example is not None, "the example plan ships with tablebench"
    try:
        target.write_bytes(example.read_bytes())
    except OSError as err:
        print(f"bench certify: {path}: cannot write: {err.strerror}", file=sys.stderr)
        return Exit.BAD_INPUT
    print(f"wrote {path}: the compliant emulated controller and the standard tower under Pennsylvania; "
          f"edit it, then: bench certify {path} --out DOSSIER")
    return Exit.OK


def _verify(args) -> int:
    from bench.certify.manifest import verify
    from tablebench_io.json_lines import JsonLines

    folder = Path(args.verify)
    if not args.pubkey:
        print("bench certify: --verify: give --pubkey (the bench key's bench.pub or its fingerprint)", file=sys.stderr)
        return Exit.BAD_INPUT
    if not folder.is_dir():
        print(f"bench certify: {args.verify}: not a folder", file=sys.stderr)
        return Exit.BAD_INPUT
    result = verify(folder, args.pubkey)
    status = Exit.OK if result.ok else Exit.VIOLATION
    if args.json:
        lines = JsonLines("certify")
        for problem in result.problems:
            lines.write("problem", problem=problem)
        lines.verdict(passed=result.ok, status=status, dossier=str(folder), files=result.files,
                      journals=result.journals, sealed_journals=result.sealed_journals, fingerprint=result.fingerprint)
        return status
    for problem in result.problems[:MAX_PROBLEMS_SHOWN]:
        print(f"  {problem}")
    if len(result.problems) > MAX_PROBLEMS_SHOWN:
        print(f"  … and {len(result.problems) - MAX_PROBLEMS_SHOWN} more")
    if result.ok:
        print(f"dossier {folder}: intact: {result.files} files as the manifest lists them, signed by "
              f"{result.fingerprint}; {result.journals} journal(s) ({result.sealed_journals} sealed) whole in chain "
              "and seals")
    else:
        print(f"dossier {folder}: NOT intact: {len(result.problems)} problem(s)")
    return status


def _certify(args) -> int:
    import importlib.util

    from bench.certify import dossier, matrix, runner
    from bench.certify.manifest import write_manifest
    from bench.certify.plan import load_plan
    from bench.certify.steps import plan_steps
    from bench.journal.keys import load_state
    from tablebench_io.json_lines import JsonLines
    from tablebench_io.progress import echo

    plan = load_plan(args.plan)
    key = args.key or plan.key
    if key:
        load_state(key)                       # a key that cannot sign is said now, not after an hour of steps
        plan = _with_key(plan, str(Path(key).resolve()))
    rng_available = importlib.util.find_spec("bench.commands.rng") is not None
    steps = plan_steps(plan, rng_available)
    out = Path(args.out)
    lines = JsonLines(dossier.KIND)

    def told(done) -> None:
        if args.json:
            return
        how = "already done" if not done.ran_now else f"{done.seconds:.1f} s"
        echo(f"{done.name:<34} {dossier.STATE_WORDS.get(done.outcome.status, done.outcome.status):<8} "
             f"{done.outcome.summary} ({how})")

    runner.prepare(out, plan)
    with runner.locked(out):
        finished = runner.run_plan(steps, out, args.step_timeout, told)
        stopped = (f"{finished[-1].name}: {finished[-1].outcome.summary}"
                   if finished and finished[-1].outcome.stop else None)
        rows = matrix.build(plan, finished, rng_available, stopped)
        error_status = next((s for f in finished if f.outcome.status == "error" for s in f.statuses if s not in (0, 1)),
                            None)
        verdict = dossier.judge(finished, rows, stopped, error_status)
        dossier.write_index(out, plan, finished, rows, verdict)
        records = dossier.json_records(plan, finished, rows, verdict, out)
        import json
        runner.write_atomically(out / dossier.LINES, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
        write_manifest(out, plan.digest, key)
    if args.json:
        for record in records:
            if record["record"] == "verdict":
                lines.verdict(**{k: v for k, v in record.items() if k not in ("schema", "record")})
            else:
                lines.write(record["record"], **{k: v for k, v in record.items() if k not in ("schema", "record")})
        return verdict.status
    for row in rows:
        if row.state in (matrix.UNEXPLAINED,) or row.state == "fail":
            echo(f"  {dossier.STATE_WORDS[row.state]:<12} {row.clause}: "
                 + "; ".join(f"{ev.what} ({ev.note})" if ev.note else ev.what
                             for _, ev in row.evidence if ev.verdict == "fail")[:300])
    echo(verdict.headline)
    for reason in verdict.reasons:
        echo(f"  {reason}")
    echo(f"dossier: {out / dossier.INDEX}" + ("" if key else " (UNSIGNED: no bench key; --verify cannot say who filed it)"))
    return verdict.status


def _with_key(plan, key: str):
    from dataclasses import replace
    return replace(plan, key=key)
