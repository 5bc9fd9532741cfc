"""``bench replay``: verify a session journal and judge it again."""

from __future__ import annotations

import re
import sys

from bench.errors import BenchError
from tablebench_io.commandline import Exit
from tablebench_io.json_lines import JsonLines, add_json_option
from twin.errors import TwinError

HEAD = re.compile(r"[0-9a-f]{64}")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "replay", help="verify a session journal's hash chain and re-judge every round",
        description="Verify the journal's hash chain and put every recorded frame past the oracle as the "
                    "live link did; a frame the oracle faults is decoded again from its raw bytes. The journal "
                    "carries the rules submission and the design the session ran with, so it replays on any "
                    "machine, from any directory. Exit status: the run's own, worked out again from the journal "
                    "(0 pass, 1 a violation or a failed, voided or lost round, 3 the controller or link failed, "
                    "4 interrupted, 5 the bench failed, 6 the disk filled); 1 for a journal changed, cut off or out of "
                    "order, or sealed and missing its final seal; 2 bad input (no such journal or round, a --head "
                    "that is not a hash, a --design or --submission that is not the session's); 4 if replay itself "
                    "is interrupted.")
    p.add_argument("journal", metavar="JOURNAL", help="a session journal (session.jsonl, or a pytest run's journal)")
    p.add_argument("--head", metavar="HASH", help="the head hash kept apart from the journal (session.head)")
    p.add_argument("--pubkey", metavar="FILE|FINGERPRINT",
                   help="the bench key's public key file (bench.pub) or its fingerprint (sha256:...): verify "
                        "every seal; without it the seals are not checked")
    p.add_argument("--redecode", action="store_true",
                   help="decode every frame again from its raw bytes and judge that (slower; also catches a "
                        "decoder changed since the session)")
    p.add_argument("--round", type=int, metavar="N",
                   help="simulate round N's drop or spin again from its seed, saying first whether this machine's "
                        "twin is the one that recorded the journal (its fingerprint: versions and canary)")
    p.add_argument("--gif", metavar="FILE", help="with --round: draw the re-simulated drop or spin")
    p.add_argument("--png", metavar="FILE", help="with --round: picture the re-simulated drop or spin at rest")
    p.add_argument("--design", metavar="FILE",
                   help="with --round: simulate on this design file, which must be the one the session ran with "
                        "(default: the copy the journal carries)")
    p.add_argument("--submission", metavar="FILE",
                   help="judge by this rules submission, which must be the one the session ran with "
                        "(default: the copy the journal carries)")
    p.add_argument("--report", metavar="FILE",
                   help="write the session report (one self-contained HTML page, as bench run writes it) to FILE")
    # JSON Lines: a "replay" line (the chain, seals and what vouches for the journal, every violation,
    # the judgement: pass, fail, or caution, a pass with no --head and no seal checked), a "summary"
    # line (the session's, probe rounds apart), with --round a "resimulated" line, then the verdict.
    add_json_option(p, "replay")
    p.set_defaults(func=run)


def run(args) -> int:
    from datetime import datetime, timezone

    from bench.journal.keys import trusted_fingerprint
    from bench.journal.disputed_round import camera_calls, describe_camera_call, resimulate
    from bench.journal.replay import describe, replay

    if args.head is not None:
        args.head = args.head.strip().lower()     # as pasted from session.head, or typed in capitals
    if args.head is not None and not HEAD.fullmatch(args.head):
        print(f"bench replay: --head {args.head[:80]!r}: not a head hash (64 hex digits, as session.head holds)",
              file=sys.stderr)
        return Exit.BAD_INPUT
    if (args.gif or args.png) and args.round is None:
        print(f"bench replay: {'--gif' if args.gif else '--png'} needs --round N", file=sys.stderr)
        return Exit.BAD_INPUT
    try:
        pubkey = trusted_fingerprint(args.pubkey) if args.pubkey else None
        facts = None
        if args.report or args.json:        # the summary (and the page) need the journal read once more
            from bench.report.session_facts import read_session   # not the page: matplotlib is for --report
            facts = read_session(args.journal, args.head, redecode=args.redecode, submission=args.submission,
                                 pubkey=pubkey, replaying=True)
            outcome = facts.replayed
        else:
            outcome = replay(args.journal, expected_head=args.head, redecode=args.redecode,
                             submission=args.submission, pubkey=pubkey)
    except (BenchError, OSError) as err:
        print(f"bench replay: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    said = outcome.to_json() if args.json else None
    if said is not None:
        said["replayed_at"] = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        assert facts is not None, "--json reads the session's facts"
        summary = facts.summary.to_json()
    else:
        print(describe(outcome))
    if args.report:
        from bench.report.page import write_facts_report
        assert facts is not None, "--report reads the session's facts"
        try:
            written = write_facts_report(facts, args.report)
        except OSError as err:
            print(f"bench replay: {args.report}: cannot write the report: {err.strerror}", file=sys.stderr)
            return Exit.BAD_INPUT
        if said is not None:
            said["report"] = str(written)
        else:
            print(f"report: {written}")
    status = outcome.exit_status
    if args.round is not None:
        try:
            same, told, twin = resimulate(args.journal, args.round, args.gif, design=args.design, png=args.png)
        except (BenchError, TwinError, OSError) as err:
            print(f"bench replay: {err}", file=sys.stderr)
            return Exit.BAD_INPUT
        except (LookupError, TypeError, ValueError) as err:     # a record that is not what a bench writes
            print(f"bench replay: --round {args.round}: the journal's record of it cannot be simulated: {err!r}",
                  file=sys.stderr)
            return Exit.BAD_INPUT
        try:
            calls = camera_calls(args.journal, args.round)
        except BenchError as err:
            print(f"bench replay: {err}", file=sys.stderr)
            return Exit.BAD_INPUT
        drawn = [d for d in (args.gif, args.png) if d and same]
        if said is not None:
            said["resimulated"] = {"round": args.round, "same": same, "told": told, "drawn": drawn,
                                   "twin": twin.to_json(), **({"camera": calls} if calls else {})}
        else:
            print(twin.told)
            print(told)
            if calls:
                from bench.rules.registry import get_game
                kind = get_game(outcome.header["game"]).descriptor.outcome
                for call in calls:
                    print("\n".join(describe_camera_call(args.round, call, kind)))
            for picture in drawn:
                print(f"drawn: {picture}")
        status = status or (Exit.OK if same else Exit.VIOLATION)
    if said is not None:
        _json_lines(said, summary, status)
    return status


def _json_lines(said: dict, summary: dict, status: int) -> None:
    """The replay's lines (docs/json.md): what the journal's verification
    found, the session's summary, a re-simulated round, then the verdict."""
    lines = JsonLines("replay")
    report, resimulated = said.pop("report", None), said.pop("resimulated", None)
    said.pop("status")
    passed = said.pop("passed") and status == Exit.OK       # a round simulated again to another outcome fails it
    said["judgement"] = said.pop("verdict")          # pass, fail or caution: the verdict line says passed/status
    lines.write("replay", **said)
    lines.write("summary", **summary)
    if resimulated is not None:
        lines.write("resimulated", **resimulated)
    lines.verdict(passed=passed, status=status, judgement=said["judgement"], anchors=said["anchors"],
                  **({"report": report} if report else {}))
