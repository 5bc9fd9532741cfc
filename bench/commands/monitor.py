"""``bench monitor``: listen to a live table's link without sending a byte,
judge every round by the oracle and journal it, as ``bench run`` does
(docs/monitor.md)."""

from __future__ import annotations

import argparse
import signal
import sys
from contextlib import contextmanager

from bench.archive.labels import add_label_options, labels_from
from bench.errors import BenchError
from bench.monitor.merge import HOLD_S, MAX_HOLD_S
from tablebench_io.commandline import Exit
from tablebench_io.json_lines import JsonLines, add_json_option


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "monitor", help="listen to a live link (a Y-cable's two lines, or a relay) and judge every round",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="A passive tap on a live link between a host and a game controller: the bytes of both "
                    "directions are decoded through the bench's protocol or an adapter, judged by the oracle and "
                    "journalled as bench run journals them (bench replay verifies and judges the journals), "
                    "sealed if a key is given. Nothing is ever sent: the two lines of a Y-cable are only read, "
                    "and a relay forwards every byte unchanged and adds none.",
        epilog="Writes DIR/monitor-NNNN.jsonl (journals, rotated by --rotate-mb and --rotate-hours at a round's\n"
               "boundary; each with its .head), DIR/hourly.jsonl (one report an interval: rounds, violations by\n"
               "clause, frames, bytes the copy dropped). With --relay the first line on stdout says where the\n"
               "host connects ('listening socket://127.0.0.1:7002'). Stops at --duration, --rounds, --once, or\n"
               "SIGINT/SIGTERM. Exit status: 0 no violation, 1 a violation, 2 bad arguments or set-up, 3 a line\n"
               "or the controller lost, or only undecodable bytes heard (the wrong --adapter?), 4 interrupted,\n"
               "5 the monitor failed (traceback in DIR/crash.txt), 6 the disk filled up. A fault of the monitor's\n"
               "own (5, 6) stops the judging, never a relayed link: the relay forwards the connection to its end.\n"
               "Monitoring faults (a silent or lagging tap line, a message the tap did not hear, bytes dropped\n"
               "while the judge was behind) are said and journalled, never judged as the controller's.\n"
               "What can and cannot be judged from traffic alone: docs/monitor.md.")
    p.add_argument("--game", required=True, metavar="GAME", help="the game the table plays (a name or a game file)")
    p.add_argument("--submission", metavar="FILE", help="the rules submission the controller runs")
    p.add_argument("--paytable", help="the paytable without a submission (Sic Bo A/B, Dice-Ology 1/2)")
    p.add_argument("--adapter", metavar="NAME",
                   help="the link's wire format (bench adapters; default: the bench's own protocol)")
    tap = p.add_argument_group("where to listen (one of)")
    tap.add_argument("--relay", metavar="LISTEN",
                     help="relay the host's connections (HOST:PORT, port 0 for any free one, or 'pty') to --to")
    tap.add_argument("--to", metavar="URL", help="with --relay: the controller's link (a pyserial URL or device)")
    tap.add_argument("--host-line", metavar="URL", help="the line carrying what the host sends (read only)")
    tap.add_argument("--controller-line", metavar="URL", help="the line carrying what the controller sends (read only)")
    p.add_argument("--out", default="out/monitor", metavar="DIR", help="where the journals go (default out/monitor)")
    p.add_argument("--key", metavar="FILE", help="seal the journals with this bench key (bench key new); "
                                                 "each journal takes one of its session keys")
    p.add_argument("--seal-every", type=int, default=10, metavar="N", help="rounds between seals (default 10)")
    p.add_argument("--reply-s", type=float, default=3.0, metavar="S",
                   help="the deadline for each controller reply the oracle judges (default 3 s, as bench run)")
    p.add_argument("--rotate-mb", type=float, default=32.0, metavar="MB",
                   help="start a new journal past this size, at the next round's boundary (default 32)")
    p.add_argument("--rotate-hours", type=float, default=24.0, metavar="H",
                   help="start a new journal past this age, at the next round's boundary (default 24)")
    p.add_argument("--report-every", type=float, default=3600.0, metavar="S",
                   help="seconds between interval reports (default 3600: one an hour)")
    p.add_argument("--hold-s", type=float, default=HOLD_S, metavar="S",
                   help=f"on a Y-cable, how long an ACK waits for the message it names to come on the other "
                        f"line before that message is said unheard (default {HOLD_S:g}; at most {MAX_HOLD_S:g}: "
                        "a host that is slow to read its two lines needs longer)")
    p.add_argument("--duration", type=float, metavar="S", help="stop after S seconds")
    p.add_argument("--rounds", type=int, metavar="N", help="stop after N rounds seen whole")
    p.add_argument("--once", action="store_true", help="with --relay: stop when the first host connection ends")
    add_label_options(p.add_argument_group("where it is played (kept in each journal; bench archive, docs/archive.md)"))
    add_json_option(p, "monitor")        # "listening", a "note" for each line it says, the "summary", the verdict
    p.set_defaults(func=run)


def _source(args):
    from bench.monitor.sources import Relay, TwoLines
    lines = (args.host_line, args.controller_line)
    if args.relay and any(lines):
        raise BenchError("--relay and --host-line/--controller-line: listen one way, not both")
    if args.relay:
        if not args.to:
            raise BenchError("--relay needs --to URL: the controller's link")
        return Relay(args.relay, args.to)
    if args.to or args.once:
        raise BenchError(f"{'--to' if args.to else '--once'} goes with --relay")
    if not all(lines):
        raise BenchError("say where to listen: --relay LISTEN --to URL, or --host-line URL --controller-line URL")
    return TwoLines(*lines)


@contextmanager
def signals_noted():
    """SIGINT and SIGTERM noted (their names, in the yielded list) instead of
    raised: the monitor stops at its next look, between two batches of
    frames, and writes every file whole."""
    asked: list[str] = []

    def note(signum, frame):
        asked.append(signal.Signals(signum).name)
    previous = {}
    try:
        for number in (signal.SIGINT, signal.SIGTERM):
            previous[number] = signal.signal(number, note)
    except ValueError:            # not the main thread: signals are left alone
        pass
    try:
        yield asked
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@contextmanager
def _released(reserve):
    try:
        yield
    finally:
        reserve.release()


def run(args) -> int:
    from pathlib import Path

    from bench.adapters.registry import get_adapter
    from bench.commands.emulate import rules_from_options
    from bench.journal.recorder import adapter_fields, game_file_fields, session_header
    from bench.journal.keys import load_state
    from bench.monitor.hourly import Hourly
    from bench.monitor.series import PREFIX, Series
    from bench.monitor.watch import Limits, Watch
    from bench.protocol import LinkError
    from bench.rules.variant import resolve_game
    from bench.session.out_folder import Reserve, claimed

    out = Path(args.out)
    lines = JsonLines("monitor") if args.json else None

    def say(text: str) -> None:
        if lines is not None:
            lines.write("note", text=text)
        else:
            print(text, flush=True)
    try:
        if args.rounds is not None and args.rounds < 1:
            raise BenchError("--rounds must be at least 1")
        if args.duration is not None and not args.duration > 0:
            raise BenchError("--duration must be a positive number of seconds")
        if not 0 < args.reply_s <= 3600:
            raise BenchError("--reply-s must be from 0 to 3600 seconds")
        if not 0 < args.hold_s <= MAX_HOLD_S:
            raise BenchError(f"--hold-s must be from 0 to {MAX_HOLD_S:g} seconds")
        if args.key is not None:
            load_state(args.key)        # a key that cannot seal stops the monitor before it listens
        args.game = resolve_game(args.game)
        rules = rules_from_options(args)
        adapter = get_adapter(args.adapter)
        header = session_header(game=args.game, rules=rules, controller=None, emulated=False, misbehave=None,
                                phases={"reply_s": args.reply_s, "hold_s": args.hold_s},
                                runner="bench monitor",
                                **adapter_fields(adapter), **game_file_fields(args.game), **labels_from(args))
        limits = Limits(seconds=args.duration, rounds=args.rounds, connections=1 if args.once else None)
        with claimed(out) as _:
            taken = sorted(out.glob(f"{PREFIX}*.jsonl"))
            if taken:
                raise BenchError(f"{out}: --out: the folder holds monitor journals ({taken[0].name} ...); "
                                 "choose another --out")
            series = Series(out, header=header, game=args.game, rules=rules, reply_s=args.reply_s, key=args.key,
                            seal_every=args.seal_every, rotate_bytes=int(args.rotate_mb * (1 << 20)),
                            rotate_s=args.rotate_hours * 3600)
            hourly = Hourly(out / "hourly.jsonl", args.report_every)
            # Room kept on the disk for the journal's end: a full disk ends the judging, and the
            # session-end record and head still fit (the reserve is let go for them).
            reserve = Reserve(out)
            with signals_noted() as asked, _released(reserve):
                source = _source(args)            # last: it binds the port or opens the lines
                header["controller"] = source.description
                if hasattr(source, "address"):
                    if lines is not None:
                        lines.write("listening", address=str(source.address))
                    else:
                        print(f"listening {source.address}", flush=True)
                print(f"bench monitor: {args.game}, {adapter.label()}, {source.description}; journals in {out}",
                      file=sys.stderr, flush=True)
                outcome = Watch(source, series, adapter, args.game, hourly, limits=limits, out=out,
                                echo=say, hold_s=args.hold_s,
                                stop_requested=lambda: asked[0] if asked else None, reserve=reserve).run()
    except (BenchError, ValueError, LinkError) as err:
        print(f"bench monitor: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    except OSError as err:
        print(f"bench monitor: {err.strerror or err}: {getattr(err, 'filename', None) or args.relay or ''}",
              file=sys.stderr)
        return Exit.BAD_INPUT
    except KeyboardInterrupt as err:
        print(f"bench monitor: interrupted ({err or 'SIGINT'}) before listening", file=sys.stderr)
        return Exit.INTERRUPTED
    said = ", ".join(f"{clause} x{n}" for clause, n in outcome.violations.items()) or "none"
    faults = ", ".join(f"{kind} x{n}" for kind, n in outcome.faults.items()) or "none"
    if lines is None:
        print(f"monitor: {outcome.rounds} rounds seen whole, {outcome.voided} voided; violations: {said}; "
              f"monitoring faults: {faults} ({outcome.unjudged_rounds} rounds not judged)")
        for path, head in outcome.journals:
            print(f"  journal: {path} (head {head[:16]}…)")
    report = None
    if outcome.journals:     # the page of the folder (bench.report.monitor_page); the journals stand without it
        from bench.report.monitor_page import write_monitor_page
        try:
            report = write_monitor_page(out, out / 'report.html')
            if lines is None:
                print(f"report: {report}")
        except (BenchError, OSError) as err:
            print(f"bench monitor: warning: the report was not written: {err}", file=sys.stderr)
    if outcome.missing:
        print(f"bench monitor: not written: {', '.join(outcome.missing)}", file=sys.stderr)
    if outcome.reason:
        print(f"bench monitor: {outcome.ending}: {outcome.reason}; exit status {outcome.status}", file=sys.stderr)
    if lines is not None:
        _json_end(lines, args, outcome, report)
    return outcome.status


def _json_end(lines: JsonLines, args, outcome, report) -> None:
    """The monitor's totals as a "summary" line, then the verdict (docs/json.md)."""
    lines.write("summary", game=args.game, rounds=outcome.rounds, voided=outcome.voided,
                violations_by_clause=dict(outcome.violations), faults=dict(outcome.faults),
                unjudged_rounds=outcome.unjudged_rounds,
                journals=[{"path": str(path), "head": head} for path, head in outcome.journals],
                reports=outcome.reports, dropped=dict(outcome.dropped), missing=list(outcome.missing),
                ending=outcome.ending, reason=outcome.reason, out=str(args.out),
                report=str(report) if report else None)
    lines.verdict(passed=outcome.status == Exit.OK, status=outcome.status)
