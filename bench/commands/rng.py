"""``bench rng FILES...``: the Lucky Number RNG battery of 58 Pa. Code
§ 810a.5 on collections and journals; ``bench rng --collect N --controller
URL --out DIR``: raw and scaled values collected from a controller over the
link (docs/rng.md, docs/protocol.md "Raw RNG output")."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from tablebench_io.commandline import Exit
from tablebench_io.json_lines import JsonLines, add_json_option

DESCRIPTION = """\
Judges the random number generator that draws the Lucky Numbers as a
laboratory does under 58 Pa. Code 810a.5: every test 810a.5(c) names
(chi-square, equi-distribution, gap, overlaps, poker, coupon collector,
permutation, Kolmogorov-Smirnov, adjacency criterion, order statistic, runs
and recurrence, interplay correlation, serial correlation, subsequences,
Poisson), each with its statistic, p-value, verdict at the profile's
confidence and the smallest deviation it could detect at this N (80% power);
on the raw words of a collection also NIST SP 800-22's bit tests. FILES are
collections (bench rng --collect) and journals of any kind (bench run, pytest,
bench monitor): their Lucky draws, whether a Lucky winner comes again, the
draws across sessions (non-repeatability, 810a.5(a)(1)) and, as a family of
its own, the dice faces or wheel pockets (staged probe rounds left out).

The family is read by Holm's rule at the profile's level: a fair generator
fails it with chance at most 5% (Pennsylvania, 95%) or 1% (--profile 99).

Exit status: 0 pass, 1 a test of the family failed or the files are too few
to run every test (the N needed is said), 2 a file could not be read.
"""


def register(subparsers) -> None:
    parser = subparsers.add_parser("rng", help="the 810a.5 RNG battery on collections and journals; --collect",
                                   description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", metavar="FILE", help="collections and journals (.jsonl)")
    parser.add_argument("--profile", choices=("pennsylvania", "99"), default="pennsylvania",
                        help="the confidence: pennsylvania (95%%, 810a.5(c); the default) or 99 (25 CFR 547.14)")
    parser.add_argument("--report", metavar="HTML", help="also write the report page here")
    parser.add_argument("--collect", type=int, metavar="N",
                        help="collect N raw words and N scaled values from --controller into --out")
    parser.add_argument("--controller", metavar="URL", help="the controller's link (with --collect)")
    parser.add_argument("--out", metavar="DIR", help="where the collection's journal goes (with --collect)")
    parser.add_argument("--game", default="lightning-dice", help="the game the controller runs (with --collect)")
    parser.add_argument("--seed", type=int, default=1, help="the bench's seed in the HELLO (with --collect)")
    add_json_option(parser, "rng")
    parser.set_defaults(func=run)


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def run(args) -> int:
    from bench.rng.outcome import PROFILES
    if args.collect is not None:
        from bench.rng.collect import run_collect
        return run_collect(args)
    if not args.files:
        print("bench rng: name FILES to judge, or --collect N --controller URL --out DIR", file=sys.stderr)
        return Exit.BAD_INPUT
    from bench.rng.judge import judge
    from bench.rng.sources import SourceError, read
    profile = PROFILES[args.profile]
    lines = JsonLines("rng") if args.json else None
    try:
        judgement = judge([read(path) for path in args.files], profile)
    except (SourceError, ValueError) as err:
        print(f"bench rng: {err}", file=sys.stderr)
        if lines is not None:
            lines.verdict(passed=False, status=Exit.BAD_INPUT, error=str(err))
        return Exit.BAD_INPUT
    verdict = judgement.verdict()
    status = Exit.OK if verdict == "pass" else Exit.VIOLATION
    if args.report:
        from bench.rng.page import write_page
        try:
            write_page(judgement, verdict, args.report)
        except OSError as err:
            message = f"--report {args.report}: {err.strerror or err}"
            print(f"bench rng: {message}", file=sys.stderr)
            if lines is not None:
                lines.verdict(passed=False, status=Exit.BAD_INPUT, error=message)
            return Exit.BAD_INPUT
    if lines is not None:
        for name, fam in judgement.families():
            for outcome, adjusted in zip(fam.outcomes, fam.adjusted):
                lines.write("test", family=name, **outcome_json(outcome, adjusted, profile))
            for reason in fam.too_short:
                lines.write("too-short", family=name, reason=reason)
        for note in judgement.notes:
            lines.write("note", note=note)
        lines.verdict(passed=status == Exit.OK, status=status, verdict=verdict, profile=profile.name,
                      confidence=profile.confidence, rule=judgement.rng.rule(),
                      failed=[f"{o.source} {o.test} ({o.clause})" for o, _ in judgement.failures()])
    else:
        print(text(judgement, verdict))
    return status


def outcome_json(outcome, adjusted: float, profile) -> dict[str, Any]:
    return {"test": outcome.test, "clause": outcome.clause, "source": outcome.source,
            "statistic": _finite(outcome.statistic), "dof": outcome.dof, "n": outcome.n,
            "p": outcome.p_value, "p_holm": adjusted, "passed": outcome.passed_at(profile),
            "family_passed": adjusted >= profile.alpha, "detectable": outcome.detectable.to_json(),
            "detail": outcome.detail, "reference": outcome.reference}


def text(judgement, verdict: str) -> str:
    profile = judgement.profile
    out = [f"bench rng: {len(judgement.files)} file(s), profile {profile.name} ({profile.confidence:.0%}, "
           f"{profile.clause})"]
    for name, fam in judgement.families():
        out.append("")
        out.append(f"{'the RNG' if name == 'rng' else 'the physical randomiser'}: {fam.rule()}")
        head = ("source", "test", "clause", "N", "statistic", "p", "Holm p", "at 95/99", "detects (80% power)")
        rows = [(o.source, o.test, o.clause, str(o.n), f"{o.statistic:.4g}" + (f" ({o.dof} df)" if o.dof else ""),
                 f"{o.p_value:.3g}", f"{a:.3g}", "pass" if o.passed_at(profile) else "FAIL",
                 _detectable(o)) for o, a in zip(fam.outcomes, fam.adjusted)]
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        for row in [head, *rows]:
            out.append("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        for reason in fam.too_short:
            out.append(f"  not run: {reason}")
    for note in judgement.notes:
        out.append(f"note: {note}")
    out.append("")
    failed = judgement.failures()
    if verdict == "fail":
        out.append("FAIL: " + "; ".join(f"{o.test} on {o.source} ({o.clause}), Holm p = {a:.3g}" for o, a in failed))
    elif verdict == "too-short":
        out.append("TOO SHORT: no test failed, but the files are too few for every test (see 'not run')")
    else:
        out.append("PASS")
    return "\n".join(out)


def _detectable(outcome) -> str:
    d = outcome.detectable
    value = "-" if not math.isfinite(d.value) else f"{d.value:.3g}"
    return f"{value} {d.measure}"
