"""``bench replay``: verify a session journal and judge it again."""

from __future__ import annotations

import sys
from pathlib import Path

from bench.errors import EXIT_BAD_INPUT, EXIT_PASS, EXIT_VIOLATION, BenchError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "replay", help="verify a session journal's hash chain and re-judge every round",
        description="Verify the journal's hash chain and put every recorded frame past the oracle as the "
                    "live link did; a frame the oracle faults is decoded again from its raw bytes. "
                    "Exit status: the run's own (0 pass, 1 a violation or a failed, voided or lost round, "
                    "3 the controller or link failed, 4 interrupted, 5 the bench failed), worked out again "
                    "from the journal; 1 for a journal changed, cut off or out of order; 2 for one that "
                    "cannot be read.")
    p.add_argument("journal", metavar="JOURNAL")
    p.add_argument("--head", metavar="HASH", help="the head hash kept apart from the journal (session.head)")
    p.add_argument("--redecode", action="store_true",
                   help="decode every frame again from its raw bytes and judge that (slower; also catches a "
                        "decoder changed since the session)")
    p.add_argument("--round", type=int, metavar="N", help="simulate round N's drop or spin again from its seed")
    p.add_argument("--gif", metavar="FILE", help="with --round: draw the re-simulated drop or spin")
    p.set_defaults(func=run)


def run(args) -> int:
    from bench.replay import describe, replay, resimulate

    if args.gif:
        folder = Path(args.gif).resolve().parent
        if not folder.is_dir():
            print(f"bench replay: --gif {args.gif}: the folder {folder} does not exist", file=sys.stderr)
            return EXIT_BAD_INPUT
    try:
        outcome = replay(args.journal, expected_head=args.head, redecode=args.redecode)
    except (BenchError, OSError) as err:
        print(f"bench replay: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(describe(outcome))
    status = outcome.exit_status
    if args.round is not None:
        try:
            same, told = resimulate(args.journal, args.round, args.gif)
        except (BenchError, OSError, LookupError, TypeError, ValueError) as err:
            print(f"bench replay: --round {args.round}: the journal's record of it cannot be simulated: {err}",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
        print(told)
        if args.gif and same:
            print(f"drawn: {args.gif}")
        status = status or (EXIT_PASS if same else EXIT_VIOLATION)
    return status
