"""``bench run``: play rounds against a controller, judge every frame, journal
everything; exit status 1 on any violation."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.archive.labels import add_label_options, labels_from
from bench.errors import BenchError
from bench.journal.wire_budget import DEFAULT_MAX_FRAMES, DEFAULT_MAX_JOURNAL_BYTES
from bench.rules import DEFAULT_GAME, game_names
from tablebench_io.commandline import Exit, add_list_option, add_progress_option, interrupt_name, terminate_as_interrupt
from tablebench_io.json_lines import JsonLines, add_json_option


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="play rounds against a controller and judge every frame",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play rounds against a game controller through a link, judge every frame with the "
                    "oracle, and journal everything. With no arguments: the emulated controller in its own "
                    "process behind a pty, 20 Lightning Dice rounds with the physics tower.",
        epilog="Writes DIR/session.jsonl (the journal), DIR/session.head (its head hash: keep it apart),\n"
               "DIR/junit.xml, DIR/summary.json and DIR/report.html (the session report, one self-contained\n"
               "page), however the session ends. DIR must not hold a session (--force moves it aside to\n"
               "DIR.old-N). Exit status: 0 all rounds compliant, 1 a violation or a failed or voided round,\n"
               "2 bad arguments or set-up, 3 the controller or link failed (or flooded it, or the session passed\n"
               "--max-frames or --max-journal-mb), 4 interrupted (SIGINT, SIGTERM), 5 the bench failed\n"
               "(traceback in DIR/crash.txt), 6 the disk is full (what fits is written; one line names the rest).")
    p.add_argument("--game", default=DEFAULT_GAME, metavar="GAME",
                   help=f"the game to play: {', '.join(game_names())}, or a game file (YAML, docs/rules.md); "
                        "default %(default)s")
    p.add_argument("--controller", metavar="URL",
                   help="device path or pyserial URL (/dev/ttyUSB0, socket://host:port, rfc2217://...); "
                        "default: start the emulated controller behind a pty")
    p.add_argument("--adapter", metavar="NAME",
                   help="the controller's wire format: an adapter's name (bench adapters lists them; default: "
                        "the bench's own protocol, docs/protocol.md); with the emulated controller, it speaks it too")
    p.add_argument("--rounds", type=int, default=20, help="rounds to play (default 20)")
    p.add_argument("--submission", metavar="FILE",
                   help="rules submission (YAML), or a shipped one by name (default: the game's default rules)")
    p.add_argument("--design", metavar="FILE",
                   help="tower or wheel design, or a shipped one by name (default: standard); "
                        "with --plant recorded, the outcomes file")
    add_list_option(p, "tower", "wheel", "submission")
    p.add_argument("--plant", default="physics", choices=("physics", "tower", "wheel", "dice", "recorded"),
                   help="where sensor readings come from (default: the game's physics twin)")
    p.add_argument("--realtime", action="store_true", help="keep the wall clock (for a real controller)")
    p.add_argument("--baud", type=baud_rate, metavar="N",
                   help="the serial line's speed (or ?baud=N on the controller's URL; a device runs at 115200 "
                        "unless told): the bench sizes each round to fit the line, or refuses at once; with "
                        "the emulated controller, it is put behind a line of that speed (bench docs protocol 17)")
    p.add_argument("--reconnect", type=float, default=0.0, metavar="S",
                   help="if the controller's device goes away (a USB-serial adapter pulled out), wait up to S "
                        "seconds for it to come back, greet the controller again, journal the round in flight "
                        "as void and play on (default 0: the session ends link-lost, exit status 3)")
    p.add_argument("--out", default="out/session", metavar="DIR",
                   help="where the journal, its head, JUnit XML and the summary go (default out/session); "
                        "refused if it holds a session")
    p.add_argument("--force", action="store_true",
                   help="if --out holds a finished or crashed session, move it aside (DIR.old-N) instead of refusing")
    p.add_argument("--seed", type=int, help="session seed (default: random, recorded in the journal)")
    p.add_argument("--misbehave", metavar="NAME", help="start the emulated controller with this misbehaviour")
    p.add_argument("--players", choices=("cover", "random"), default=None,
                   help="cover (the default): every round the players cover the layout, every winning "
                        "position at stakes that turn through small, large and odd amounts; random: a "
                        "weighted mix of bets (--bets, --wagers)")
    p.add_argument("--wagers", type=int, default=10, help="with --players random: wagers per round (default 10)")
    p.add_argument("--bets", metavar="BET=WEIGHT,...",
                   help="the players' mix, e.g. 'total:11=3,low=1' (default: a mix of every kind of bet)")
    p.add_argument("--phase", action="append", default=[], metavar="NAME=SECONDS",
                   help="a phase duration: betting, lucky, result, clear, or reply (the wall-clock wait "
                        "for each controller reply); repeatable")
    p.add_argument("--no-probes", action="store_true",
                   help="do not stage the game's outcome classes (each triple, double, no roll, Lucky win "
                        "position, pocket...: bench.play.coverage) from round 2 on")
    p.add_argument("--no-probe-wagers", action="store_true",
                   help="do not place the wagers a controller must refuse (a bet not offered, a zero stake, "
                        "a stake over the maximum or under the minimum, a duplicate id) each round")
    p.add_argument("--key", metavar="FILE",
                   help="seal the journal with this bench key (bench.key of bench key new); without it the "
                        "journal is unsealed")
    p.add_argument("--seal-every", type=int, default=10, metavar="N", help="rounds between seals (default 10)")
    p.add_argument("--max-frames", type=int, default=DEFAULT_MAX_FRAMES, metavar="N",
                   help="the session's ceiling of judged frames (messages sent and received), past which it ends "
                        "as a link fault with every file (default %(default)s)")
    p.add_argument("--max-journal-mb", type=float, default=DEFAULT_MAX_JOURNAL_BYTES / 2**20, metavar="MB",
                   help="the session's ceiling on its journal, in MiB, past which it ends as a link fault with "
                        "every file (default %(default)g)")
    cam = p.add_argument_group("the camera in the loop (docs/camera.md)")
    cam.add_argument("--camera", action="store_true",
                     help="render each round's result as a studio camera sees it: frames and labels in DIR/frames/, "
                          "their SHA-256 in the journal")
    cam.add_argument("--camera-file", metavar="FILE",
                     help="the camera (YAML); default: the design's camera section, else straight above")
    cam.add_argument("--camera-variation", default="default", metavar="LEVEL",
                     help="none, default, studio or hard, or a variation file (YAML): how light, camera, "
                          "colours, glass, blur and compression vary (docs/camera.md)")
    cam.add_argument("--camera-stream", metavar="HOST:PORT",
                     help="serve the frames as an MJPEG stream (GET /stream.mjpg), as an IP camera does")
    cam.add_argument("--recognizer", metavar="CMD",
                     help="send this recogniser's reading of each frame as the round's reading: 'reference', a "
                          "command (run as CMD IMAGE) or an http:// endpoint (see bench recognize)")
    cam.add_argument("--recognizer-stream", action="store_true",
                     help="start the recogniser command once and talk to it a line a frame")
    add_label_options(p.add_argument_group("where it is played (kept in the journal; bench archive, docs/archive.md)"))
    add_json_option(p, "run")            # the summary (as summary.json holds it) as a line, then the verdict
    add_progress_option(p)
    p.set_defaults(func=run)


MAX_PHASE_S = 3600        # an hour: a table's phases last seconds; replay holds a journal's reply deadline to it too


def parse_phases(items: list[str], game_phases=None):
    """Phases from ``--phase`` items over the game's own phase lengths (a game file's)."""
    from bench.session.cycle import Phases
    values = {f"{name}_s": seconds for name, seconds in (game_phases or {}).items()}
    names = {"betting": "betting_s", "lucky": "lucky_s", "result": "result_s", "clear": "clear_s", "reply": "reply_s"}
    for item in items:
        name, _, seconds = item.partition("=")
        if name not in names:
            raise BenchError(f"--phase {item}: unknown phase {name!r}; phases: {', '.join(names)}")
        try:
            value = float(seconds)
        except ValueError:
            raise BenchError(f"--phase {item}: {seconds!r} is not a number of seconds") from None
        if not 0 <= value <= MAX_PHASE_S or (name == "reply" and value <= 0):
            raise BenchError(f"--phase {item}: must be a number of seconds from 0 to {MAX_PHASE_S} "
                             "(reply: above 0)")
        values[names[name]] = value
    return Phases(**values)


def check_misbehaviour(name: str, game: str) -> None:
    """An unknown misbehaviour is named before any emulator starts (it would
    only exit with its usage); one that does not apply to the game says which do."""
    from bench.emulator.misbehaviours import every_misbehaviour, policy_for
    if name not in every_misbehaviour():
        raise BenchError(f"--misbehave {name!r}: the emulated controller has no such misbehaviour "
                         "(bench emulate --help lists them, with the clause each breaks)")
    # RulesError if it is not a misbehaviour of this game; the paytable it may need is the emulator's to
    # check against the submission, so any lawful one passes here.
    policy_for(name, game, "A")


def camera_options(args):
    """The camera's options (``bench.play.camera``), or None when no camera option is given."""
    from bench.play.camera import CameraOptions
    wanted = args.camera or args.camera_file or args.camera_stream or args.recognizer or args.recognizer_stream
    if not wanted:
        if args.camera_variation != "default":
            raise BenchError("--camera-variation needs --camera")
        return None
    from twin.camera.variation import load_level
    from twin.errors import DesignError
    try:                # a shipped level by name, or a lab's own variation file (docs/camera.md)
        load_level(args.camera_variation)
    except DesignError as err:
        raise BenchError(f"--camera-variation {args.camera_variation}: {err}") from None
    if args.recognizer_stream and not args.recognizer:
        raise BenchError("--recognizer-stream needs --recognizer CMD")
    if args.plant in ("dice", "recorded"):
        raise BenchError(f"--camera needs a physics plant (the tower or the wheel), not --plant {args.plant}")
    return CameraOptions(camera=args.camera_file, level=args.camera_variation, recognizer=args.recognizer,
                         stream=args.recognizer_stream, serve=args.camera_stream)


def parse_mix(text: str | None, game: str, wagers: int):
    from bench.play.players import PlayerMix
    from bench.rules import get_game
    if not text:
        return PlayerMix.default(game, wagers)
    bets = []
    for item in text.split(","):
        bet, _, weight = item.strip().partition("=")
        get_game(game).check_bet(bet)      # RulesError names the bet and the clause
        if not weight.isdigit() or int(weight) < 1:
            raise BenchError(f"--bets {item}: the weight must be a positive integer")
        bets.append((bet, int(weight)))
    return PlayerMix(tuple(bets), wagers)


def run(args) -> int:
    from bench.report.summary import format_summary
    from bench.session.runner import SessionConfig, run_session
    from bench.report.page import write_report_beside

    if args.rounds < 1:
        print("bench run: --rounds must be at least 1", file=sys.stderr)
        return Exit.BAD_INPUT
    if not 0 <= args.reconnect <= 3600:
        print("bench run: --reconnect must be from 0 to 3600 seconds", file=sys.stderr)
        return Exit.BAD_INPUT
    if args.max_frames < 1 or not 0 < args.max_journal_mb < 2**40:
        print("bench run: --max-frames and --max-journal-mb must be above 0", file=sys.stderr)
        return Exit.BAD_INPUT
    if args.misbehave and args.controller:
        print("bench run: --misbehave applies to the emulated controller only; drop --controller", file=sys.stderr)
        return Exit.BAD_INPUT
    try:
        from bench.rules import describe
        from bench.rules.variant import is_game_file, resolve_game
        game_file = args.game if is_game_file(args.game) else None
        args.game = resolve_game(args.game)
        phases = parse_phases(args.phase, describe(args.game).phases)
        if args.misbehave:
            check_misbehaviour(args.misbehave, args.game)
        random_players = args.players == "random" or (args.players is None and args.bets is not None)
        if args.players == "cover" and args.bets:
            raise BenchError("--bets is a random mix; it does not go with --players cover")
        mix = parse_mix(args.bets, args.game, args.wagers) if random_players else None
        camera = camera_options(args)
        labels = labels_from(args)
    except BenchError as err:
        print(f"bench run: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    config = SessionConfig(game=args.game, game_file=game_file, controller=args.controller, adapter=args.adapter,
                           rounds=args.rounds,
                           submission=args.submission, design=args.design, plant=args.plant,
                           realtime=args.realtime, out=args.out, seed=args.seed, misbehave=args.misbehave,
                           phases=phases, players=mix, probes=not args.no_probes,
                           probe_wagers=not args.no_probe_wagers, key=args.key, seal_every=args.seal_every,
                           force=args.force, baud=args.baud, reconnect_s=args.reconnect, camera=camera,
                           max_frames=args.max_frames, max_journal_bytes=int(args.max_journal_mb * 2**20),
                           labels=labels)
    try:
        with terminate_as_interrupt():
            outcome = run_session(config)
    except BenchError as err:
        print(f"bench run: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    except KeyboardInterrupt as err:      # before the journal started: nothing to keep
        print(f"bench run: interrupted ({interrupt_name(err)}) before the session started", file=sys.stderr)
        return Exit.INTERRUPTED
    if outcome.moved_aside:
        print(f"bench run: the earlier session in {args.out} was moved to {outcome.moved_aside}", file=sys.stderr)
    report, whole = write_report_beside(outcome.journal, f"{args.out}/report.html", outcome.head,
                                        verdict=short_verdict(outcome), facts=outcome.report_facts)
    if report is None and outcome.ending == "disk-full":
        outcome.missing.append("report.html")
    lines = JsonLines("run") if args.json else None
    if lines is not None:
        summary = outcome.to_json()
        summary.pop("passed"), summary.pop("status")        # the verdict line says them
        lines.write("summary", **summary)
        print(seal_line(outcome.seal).strip(), file=sys.stderr)
    else:
        assert outcome.summary is not None, "run_session's outcome comes with its summary"
        print(format_summary(outcome.summary, str(outcome.journal), outcome.head, ending=outcome.ending,
                             reason=outcome.reason))
        print(f"  seed {outcome.seed}; {outcome.sim_seconds:.0f} s of table time in {outcome.wall_seconds:.1f} s")
        print(seal_line(outcome.seal))
        if outcome.line:
            print(line_words(outcome.line))
        if staging_words(outcome.staging):
            print(staging_words(outcome.staging))
        if report:
            print(f"  report: {report}" + ("" if whole else " (short: the full page could not be built; "
                                                            "bench replay --report tries again)"))
    if outcome.reason:
        crash = " (traceback in crash.txt)" if outcome.ending == "crashed" else ""
        files = ""
        if outcome.missing:
            written = [name for name in ("session.jsonl", "session.head", "summary.json", "junit.xml", "report.html")
                       if name not in outcome.missing and Path(args.out, name).exists()]
            files = f"; written: {', '.join(written) or 'nothing'}; NOT written: {', '.join(outcome.missing)}"
        print(f"bench run: {outcome.ending}: {outcome.reason}{crash}{files}; exit status {outcome.status}",
              file=sys.stderr)
    if lines is not None:
        lines.verdict(passed=outcome.status == Exit.OK, status=outcome.status, ending=outcome.ending,
                      reason=outcome.reason, journal=str(outcome.journal), head=outcome.head,
                      report=str(report) if report else None)
    return outcome.status


def baud_rate(text: str) -> int:
    from bench.protocol.line_speed import LineError, parse_baud
    try:
        return parse_baud(text)
    except LineError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def line_words(line: dict) -> str:
    """The line budget the session ran with, in a line of the summary."""
    sized = (f", {line['wagers_per_round']} of the players' {line['wagers_wanted']} wagers a round"
             if line["wagers_per_round"] < line["wagers_wanted"] else "")
    return (f"  line {line['baud']} baud: window {line['window']}{sized}; betting needs "
            f"{line['betting']['seconds']:.1f} s of {line['betting']['phase_s']:g} s, settlement "
            f"{line['settlement']['seconds']:.1f} s of {line['settlement']['phase_s']:g} s")


def staging_words(staging: dict | None) -> str:
    """A line of the summary when the staging catalogue was not this twin's
    (summary.json's ``staging``); "" when it held."""
    if not staging or not staging.get("swept_again"):
        return ""
    why = []
    if staging.get("swept_by_another_twin"):
        why.append(f"it was swept by another twin (canary {staging['swept_by_another_twin']})")
    if staging.get("catalogue_stale"):
        why.append(f"its seeds for {', '.join(staging['catalogue_stale'])} no longer showed their outcome on this "
                   "twin (never staged as if they did)")
    return f"  staging: the catalogue of staged seeds was swept again: {'; '.join(why)}"


def short_verdict(outcome) -> tuple[bool, str, list[str]]:
    """The verdict a short report page carries when the full one cannot be built."""
    passed = outcome.status == Exit.OK
    headline = f"{'PASS' if passed else 'FAIL'}: exit status {int(outcome.status)} ({outcome.ending})"
    reasons = [f"{count} violation{'s' * (count != 1)} of {clause}"
               for clause, count in sorted(outcome.summary.violations_by_clause.items())]
    reasons += [f"round {number} failed: {failure}" for number, failure in sorted(outcome.round_failures.items())[:20]]
    if outcome.reason:
        reasons.append(f"the session ended early ({outcome.ending}): {outcome.reason}")
    return passed, headline, reasons


def seal_line(seal: dict | None) -> str:
    if seal is None:
        return ("  journal UNSEALED (no --key): whoever holds the file can rewrite it and compute its chain "
                "again; keep session.head apart")
    return (f"  journal sealed every {seal['every']} rounds by key {seal['fingerprint']} (session {seal['session']}): "
            f"bench replay --pubkey {seal['fingerprint']}")
