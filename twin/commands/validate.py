"""``twin validate``: a fairness campaign of drops or spins, judged test by test."""

from __future__ import annotations

import argparse
import os
import sys

from tablebench_io.commandline import Exit, add_list_option, add_progress_option, number_between, stdout_for_result
from tablebench_io.json_lines import JsonLines, add_json_option
from twin.commands._runs import design_of, non_negative_int, positive_int
from twin.errors import TwinError
from twin.kinds import plant_kind


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "validate", help="fairness campaign of a tower or wheel design (58 Pa. Code 625b.2(c), 617c.3(a))",
        description="Run a campaign of drops (a tower design) or spins (a wheel design) and judge whether "
                    "the design randomises: faces, totals, independence, the loaded face, serial correlation "
                    "and no rolls for a tower; pockets, sectors, leaving angles and invalid spins for a wheel. "
                    "Each test gives its statistic, p-value, Holm-adjusted p-value, verdict and the smallest "
                    "bias it could detect. Run i uses seed S+i whatever the number of workers; records are "
                    "appended to a file as they come, so an interrupted campaign resumes. Exit status: 0 the "
                    "design passes, 1 it fails, 2 the campaign could not run.")
    parser.add_argument("design", help="tower or wheel design: a YAML file, or a shipped one by name "
                                       "(towers/standard, wheels/tilted; --list)")
    add_list_option(parser, "tower", "wheel")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--drops", type=positive_int, metavar="N", help="drops of a tower design (default 2000)")
    size.add_argument("--spins", type=positive_int, metavar="N", help="spins of a wheel design (default 2000)")
    parser.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1, metavar="K",
                        help="worker processes (local) or CPUs of the local Ray instance (default: all cores)")
    parser.add_argument("--engine", choices=("local", "ray"), default="local",
                        help="local process pool (default) or Ray (pip install 'tablebench[ray]')")
    parser.add_argument("--ray-address", metavar="ADDR",
                        help="a running Ray cluster, e.g. ray://head:10001 or auto (default: a local instance)")
    parser.add_argument("--seed", type=non_negative_int, default=0, metavar="S", help="first seed (default 0)")
    parser.add_argument("--confidence", type=number_between(0.5, 1, below_high=True), default=0.99, metavar="C",
                        help="confidence of the verdicts, over the whole family of tests (default 0.99)")
    parser.add_argument("--results", metavar="FILE",
                        help="JSON-lines file of the runs, read to resume and appended to "
                             "(default .twin-validate/DESIGN-HASH-KIND-seedS.jsonl)")
    parser.add_argument("--report", metavar="DIR", help="write a self-contained HTML report (DIR/index.html: charts and examples inside it) "
                             "and DIR/validation.json")
    add_progress_option(parser)
    add_json_option(parser, "validate")
    parser.set_defaults(func=run)


def _text(outcome) -> str:
    from twin.pvalue import format_p, p_equals
    from twin.validate.verdict import meaning_of
    unit = plant_kind(outcome.kind).runs
    lines = [f"{outcome.design_path}: {outcome.runs} {unit}, seeds {outcome.first_seed}-"
             f"{outcome.first_seed + outcome.runs - 1}, {100 * outcome.confidence:g}% confidence "
             f"(Holm over the family)"]
    for c in outcome.checks:
        if c.tested:
            verdict = "pass" if c.passed else "FAIL"
            lines.append(f"  {verdict:4}  {c.title}: {p_equals(c.result.p_value)} "
                         f"(Holm {format_p(c.adjusted_p)}); "
                         f"{c.finding}; detectable: {c.detectable}")
            if not c.passed:
                lines.append(f"        why it matters: {meaning_of(c.key)}")
        else:
            lines.append(f"  info  {c.title}: {c.finding}")
    lines.append(f"{'PASS' if outcome.passed else 'FAIL'}" +
                 (f": {', '.join(outcome.failed)}" if outcome.failed else ""))
    if outcome.no_more_bets:
        from twin.edge.pipeline import call_time_text
        lines.append(call_time_text(outcome.no_more_bets))
    if outcome.report_path:
        lines.append(f"report: {outcome.report_path}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from twin.validate.pipeline import validate

    with stdout_for_result() as emit:
        try:
            # --drops takes a tower, --spins a wheel: a shipped name is looked for among that kind only
            path, kind = design_of(args.design, *(("tower",) if args.drops else ("wheel",) if args.spins else ()))
            plant = plant_kind(kind)
            if any(given and option != plant.size_option
                   for option, given in (("--drops", args.drops), ("--spins", args.spins))):
                print(f"twin validate: {args.design} is a {kind} design: use {plant.size_option}", file=sys.stderr)
                return 2
            if args.report:
                _writable_folder(args.report)        # before the campaign, not after it
            outcome = validate(path, args.drops or args.spins or 2000, kind=kind, workers=args.workers,
                               engine=args.engine, ray_address=args.ray_address, seed=args.seed,
                               confidence=args.confidence, results=args.results, report=args.report,
                               progress=True)
        except (TwinError, ValueError) as err:
            print(f"twin validate: {err}", file=sys.stderr)
            return 2
        except OSError as err:          # a results file or report folder that cannot be written
            print(f"twin validate: {err.filename or ''}: cannot write: {err.strerror or err}", file=sys.stderr)
            return 2
        if args.results is None:
            print(f"twin validate: the runs are kept in {outcome.results_path} (a later run resumes from "
                  "them; --results FILE keeps them elsewhere)", file=sys.stderr)
        status = Exit.OK if outcome.passed else Exit.VIOLATION
        emit(_json_lines(outcome, status) if args.json else _text(outcome))
        return status


def _json_lines(outcome, status: int) -> str:
    """A "check" line for each test of the family, then the verdict with the campaign's figures."""
    said = outcome.to_json()
    lines = JsonLines.collected("validate")
    for check in said.pop("checks"):
        lines.write("check", **check)
    lines.verdict(passed=said.pop("passed"), status=status, **said)
    return lines.text()


def _writable_folder(folder: str) -> None:
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise TwinError(f"--report {folder}: cannot make the folder: {err.strerror or err}") from None
    if not os.access(folder, os.W_OK):
        raise TwinError(f"--report {folder}: the folder is not writable")
