"""``bench replay``: verify a session journal and judge it again."""

from __future__ import annotations

import sys

from bench.errors import BenchError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "replay", help="verify a session journal's hash chain and re-judge every round",
        description="Verify the journal's hash chain and put every recorded frame past the oracle as the "
                    "live link did; a frame the oracle faults is decoded again from its raw bytes. "
                    "Exit status 1 on tampering or any violation.")
    p.add_argument("journal", metavar="JOURNAL")
    p.add_argument("--head", metavar="HASH", help="the head hash kept apart from the journal (session.head)")
    p.add_argument("--redecode", action="store_true",
                   help="decode every frame again from its raw bytes and judge that (slower; also catches a "
                        "decoder changed since the session)")
    p.add_argument("--round", type=int, metavar="N", help="simulate round N's drop or spin again from its seed")
    p.add_argument("--gif", metavar="FILE", help="with --round: draw the re-simulated drop or spin")
    p.add_argument("--report", metavar="FILE",
                   help="write the session report (one self-contained HTML page, as bench run writes it) to FILE")
    p.set_defaults(func=run)


def run(args) -> int:
    from bench.replay import describe, replay, resimulate

    try:
        if args.report:
            from bench.session_report import read_session, write_facts_report
            facts = read_session(args.journal, args.head, redecode=args.redecode)
            outcome = facts.replayed
        else:
            outcome = replay(args.journal, expected_head=args.head, redecode=args.redecode)
    except (BenchError, OSError) as err:
        print(f"bench replay: {err}", file=sys.stderr)
        return 2
    print(describe(outcome))
    if args.report:
        try:
            print(f"report: {write_facts_report(facts, args.report)}")
        except OSError as err:
            print(f"bench replay: {args.report}: cannot write the report: {err.strerror}", file=sys.stderr)
            return 2
    status = 0 if outcome.passed else 1
    if args.round is not None:
        same, told = resimulate(args.journal, args.round, args.gif)
        print(told)
        if args.gif and same:
            print(f"drawn: {args.gif}")
        status = status or (0 if same else 1)
    return status
