"""``bench conformance``: the link and session layers of a controller, checked
against docs/protocol.md before any regulation scenario is run."""

from __future__ import annotations

import sys

from bench.commands.run import baud_rate
from bench.errors import BenchError
from bench.protocol.messages import PROTOCOL_VERSIONS
from bench.rules import DEFAULT_GAME, game_names
from bench.protocol.timeouts import Timeouts
from tablebench_io.commandline import Exit
from tablebench_io.json_lines import JsonLines, add_json_option


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "conformance", help="check a controller's link and session layers against docs/protocol.md",
        description="Run the protocol conformance checks against a controller: frames and CRC both ways, "
                    "ACK and NAK, duplicates and gaps, retransmission and give-up, the byte, frame and "
                    "response timeouts, over-long lines, version 2's window and cumulative ACK, version "
                    "fallback, RESET in every phase, the HELLO variants. The bench injects the faults on its "
                    "own side of the link. Each check names the section of docs/protocol.md it tests. "
                    "Exit status 0 when every required check passes, 1 when one fails, 2 on bad input or a "
                    "link that cannot be opened.")
    p.add_argument("--controller", metavar="URL",
                   help="device path or pyserial URL (/dev/ttyUSB0, socket://HOST:PORT, rfc2217://...); "
                        "'emulated[:OPTIONS]' starts bench emulate (OPTIONS, comma-separated: protocol=N, "
                        "seed=N, fault=NAME=VALUE, link=NAME, or a misbehaviour's name)")
    p.add_argument("--baud", type=baud_rate, metavar="N",
                   help="the serial line's speed (or ?baud=N on the controller's URL; a device runs at 115200 "
                        "unless told), as for bench run: the window the bench announces and the long line's "
                        "length are sized to it, and a line too slow for the checks is refused at once; with "
                        "the emulated controller, it is put behind a line of that speed (bench docs protocol 17)")
    p.add_argument("--adapter", metavar="NAME",
                   help="the controller's wire format (bench adapters): the session-layer checks run through it, "
                        "with the adapter's own link checks; default: the bench's own protocol, every check")
    p.add_argument("--game", default=DEFAULT_GAME, choices=sorted(game_names()),
                   help="the game the controller runs (default %(default)s)")
    p.add_argument("--submission", metavar="FILE",
                   help="the rules submission the controller runs (its digest is checked against its HELLO)")
    p.add_argument("--paytable", help="the controller's paytable without a submission (Sic Bo A/B, Dice-Ology 1/2)")
    p.add_argument("--protocol", type=int, choices=PROTOCOL_VERSIONS, action="append", metavar="VERSION",
                   help="test only this version (repeatable); default: 1, and 2 if the controller speaks it")
    p.add_argument("--check", action="append", default=[], metavar="NAME",
                   help="run only the checks whose name starts with NAME (repeatable)")
    p.add_argument("--list", action="store_true", help="list the checks and the sections they test, and exit")
    p.add_argument("--junit", metavar="FILE",
                   help="write the results as a JUnit XML file (the suite's properties: tool version, controller, "
                        "its HELLO, time)")
    p.add_argument("--report", metavar="FILE.html",
                   help="write the conformance report: one self-contained HTML page (verdict, provenance, each "
                        "check by section with its time, a failure's wire log)")
    add_json_option(p, "conformance")     # a "check" line as each finishes, then the verdict
    defaults = Timeouts()
    p.add_argument("--byte-timeout", type=float, default=None, metavar="S",
                   help=f"the controller's byte timeout (default {defaults.byte}, as documented; with --adapter, "
                        "the adapter's)")
    p.add_argument("--frame-timeout", type=float, default=None, metavar="S",
                   help=f"the controller's frame timeout (default {defaults.frame})")
    p.add_argument("--response-timeout", type=float, default=None, metavar="S",
                   help="the controller's response timeout: how long it waits for an ACK before resending "
                        f"(default {defaults.response})")
    p.add_argument("--retries", type=int, default=None, metavar="N",
                   help=f"how many times the controller resends before it gives up (default {defaults.retries})")
    p.set_defaults(func=run)


def run(args) -> int:
    import time
    from datetime import datetime, timezone

    from bench.adapters.registry import get_adapter, is_native
    from bench.commands.emulate import link_timeouts
    from bench.conformance.checks import largest_frame
    from bench.conformance.report import ConformanceRun, command_line, write_report
    from bench.conformance.speed import CheckLine, refuse_if_too_slow, with_baud
    from bench.conformance.suite import EMULATED, checks_for, connect, controller_url, junit, line, run_suite
    from bench.protocol import LinkError
    from bench.protocol.line_speed import LineError
    from bench.rules import describe
    from bench.rules.submission import default_rules, load_submission

    try:
        adapter = get_adapter(args.adapter)
    except BenchError as err:
        print(f"bench conformance: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    checks = checks_for(adapter)          # through an adapter: the session layer's and the adapter's own
    if args.list:
        for check in checks:
            kind = "optional" if check.optional else "required"
            played_in = (",".join(f"v{v}" for v in check.versions) if is_native(adapter) else "") or "once"
            print(f"{check.name:<40} {played_in:<6} {kind:<9} {check.section}: {check.summary}")
        return Exit.OK
    if not args.controller:
        print("bench conformance: --controller: say which controller to check (a device path, a pyserial URL "
              "or 'emulated')", file=sys.stderr)
        return Exit.BAD_INPUT
    try:
        timeouts = link_timeouts(args, adapter.timeouts)
        if args.protocol and not is_native(adapter):
            raise BenchError(f"--protocol: versions are the bench protocol's; adapter {adapter.name} has its own "
                             "wire format")
        if args.submission:
            rules = load_submission(args.submission)
            if rules.game != args.game:
                raise BenchError(f"{args.submission}: game: the submission is for {rules.game}, not {args.game}")
        else:
            rules = default_rules(args.game, args.paytable or describe(args.game).default_paytable)
        names = {c.name for c in checks}
        unknown = [n for n in args.check if not any(name.startswith(n) for name in names)]
        if unknown:
            raise BenchError(f"--check: no check is called {unknown[0]!r} (bench conformance --list)")
        # The line the checks run over, as every check's connection will see it: worked out
        # before an emulator is started or a check run (a line too slow is the user's to fix).
        if args.controller == EMULATED or args.controller.startswith(EMULATED + ":"):
            speed = CheckLine(args.baud, timeouts)
        else:
            try:
                speed = CheckLine.of(with_baud(args.controller, args.baud), timeouts)
            except LineError as err:
                raise BenchError(f"--controller {args.controller}: {err}") from None
        if is_native(adapter):          # (an adapter's frames are its own: its link checks size themselves)
            try:
                refuse_if_too_slow(speed, largest_frame(args.game, rules))
            except LineError as err:
                raise BenchError(f"line budget: {err}") from None
    except (BenchError, ValueError, OSError) as err:
        print(f"bench conformance: {err}", file=sys.stderr)
        return Exit.BAD_INPUT

    def selected(check) -> bool:
        return not args.check or any(check.name.startswith(n) for n in args.check)

    versions = tuple(sorted(set(args.protocol))) if args.protocol else None
    run_record = ConformanceRun(args.controller, args.game, args.submission,
                                None if args.submission else (args.paytable or describe(args.game).default_paytable),
                                timeouts, versions, command=command_line(), line=speed,
                                adapter=None if is_native(adapter) else f"{adapter.name} {adapter.version}")
    hello_told: list[dict] = []
    lines = JsonLines("conformance") if args.json else None

    def show(result) -> None:
        run_record.results.append(result)
        if lines is not None:
            lines.write("check", **run_record.check_json(result))
            return
        if result.hello and not hello_told:
            hello_told.append(result.hello)
            print(f"controller's HELLO: {ConformanceRun.hello_words(result.hello)}", flush=True)
        print(line(result), flush=True)
        if result.status == "fail" and result.wire_log:
            print("    wire log (> bench to controller, < controller to bench, seconds from the check's start):")
            print("\n".join("    " + text for text in result.wire_log.splitlines()), flush=True)

    try:
        with controller_url(args.controller, args.game, timeouts, adapter, baud=args.baud) as url:
            run_record.url = url
            connect(url).close()        # a link that does not open is the user's to fix, not a failed check
            if not args.json:
                planned = (sum(len([v for v in c.versions or (versions or (1,))[:1] if versions is None or v in versions])
                               for c in checks if selected(c)) if is_native(adapter)
                           else sum(1 for c in checks if selected(c)))      # an adapter's: once each, in version 1
                print(run_record.header(planned), flush=True)
            run_suite(url, game=args.game, rules=rules, timeouts=timeouts, versions=versions, only=selected,
                      on_result=show, adapter=adapter)
    except (BenchError, LinkError) as err:
        print(f"bench conformance: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    run_record.finished = time.time()
    results = run_record.results
    if args.junit:
        try:
            junit(results, args.junit, properties=run_record.junit_properties(),
                  timestamp=datetime.fromtimestamp(run_record.started, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S"))
        except OSError as err:
            print(f"bench conformance: {args.junit}: cannot write the JUnit file: {err}", file=sys.stderr)
            return Exit.BAD_INPUT
    status = Exit.OK if run_record.passed else Exit.VIOLATION
    report = None
    if args.report:
        try:
            report = str(write_report(run_record, args.report))
        except OSError as err:
            print(f"bench conformance: {args.report}: cannot write the report: {err.strerror}", file=sys.stderr)
            return Exit.BAD_INPUT
    if lines is not None:
        said = run_record.verdict_json(int(status), report)
        said.pop("verdict", None)     # the page's marker of its last line: "record": "verdict" says it here
        lines.verdict(passed=said.pop("passed"), status=said.pop("status"), **said)
    else:
        print("\n".join(run_record.summary_lines()))
        if report:
            print(f"report: {report}")
    return status
