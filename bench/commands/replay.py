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
    p.add_argument("--pubkey", metavar="FILE|FINGERPRINT",
                   help="the bench key's public key file (bench.pub) or its fingerprint (sha256:...): verify "
                        "every seal; without it the seals are not checked")
    p.add_argument("--redecode", action="store_true",
                   help="decode every frame again from its raw bytes and judge that (slower; also catches a "
                        "decoder changed since the session)")
    p.add_argument("--round", type=int, metavar="N", help="simulate round N's drop or spin again from its seed")
    p.add_argument("--gif", metavar="FILE", help="with --round: draw the re-simulated drop or spin")
    p.set_defaults(func=run)


def run(args) -> int:
    from bench.keys import trusted_fingerprint
    from bench.replay import describe, replay, resimulate

    try:
        pubkey = trusted_fingerprint(args.pubkey) if args.pubkey else None
        outcome = replay(args.journal, expected_head=args.head, redecode=args.redecode, pubkey=pubkey)
    except (BenchError, OSError) as err:
        print(f"bench replay: {err}", file=sys.stderr)
        return 2
    print(describe(outcome))
    status = 0 if outcome.passed else 1
    if args.round is not None:
        same, told = resimulate(args.journal, args.round, args.gif)
        print(told)
        if args.gif and same:
            print(f"drawn: {args.gif}")
        status = status or (0 if same else 1)
    return status
