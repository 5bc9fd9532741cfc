"""``twin edge``: how much a player who watches the spin (or the loading) can win."""

from __future__ import annotations

import argparse
import os
import sys

from tablebench_io.commandline import Exit, add_list_option, add_progress_option, stdout_for_result
from tablebench_io.json_lines import JsonLines, add_json_option
from twin.commands._runs import non_negative_int, positive_int
from twin.errors import TwinError
from twin.kinds import plant_kind


def _cutoffs(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds separated by commas, like 0,4,8; got {text!r}") from None


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _fraction(text: str) -> float:
    """1/60 or 0.0167."""
    try:
        if "/" in text:
            a, b = text.split("/")
            return float(a) / float(b)
        return float(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"expected seconds like 1/60 or 0.0167, got {text!r}") from None


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "edge", help="edge of a player who watches the spin up to 'no more bets' (617c.3(c)), or the tower's loading",
        description="For a wheel: for each cutoff after the launch, the expected return of a player who watched "
                    "the ball and rotor until then (a camera's timing and angle errors) and bets the straight ups "
                    "the twin predicts, fitted on even seeds and measured on odd ones; the verdict is the latest "
                    "cutoff at which the upper end of the interval stays below zero. For a tower: the edge of a "
                    "player who sees the loaded faces. Method: docs/edge.md. Exit status 0, or 2 for bad input; "
                    "with --call-time-s T: 0 when T is shown safe, 1 when it is not (too few spins to show it "
                    "counts as not shown).")
    parser.add_argument("design", help="wheel or tower design: a YAML file, or a shipped one by name "
                                       "(wheels/standard, towers/straight-chute; --list)")
    add_list_option(parser, "tower", "wheel")
    parser.add_argument("--runs", "--spins", "--drops", dest="runs", type=positive_int, default=2000, metavar="N",
                        help="spins or drops in the campaign (default 2000; half fit, half held out)")
    parser.add_argument("--cutoff-s", type=_cutoffs, metavar="LIST",
                        help="cutoffs in seconds after the launch, e.g. 0,4,8 (default 0, 0.5, 0.75, 1, 1.25, 1.5, "
                             "2, 3, then every 2 s while every ball is still on the track)")
    parser.add_argument("--observer", choices=("passages", "frames"), default="passages",
                        help="the player times ball and pockets passing a mark (default), or reads every frame")
    parser.add_argument("--frame-s", type=_fraction, default=1 / 60, metavar="S",
                        help="camera frame interval, the timing resolution (default 1/60)")
    parser.add_argument("--angle-res-deg", type=_number, default=1.0, metavar="DEG",
                        help="angle resolution of the camera (default 1)")
    parser.add_argument("--window-s", type=_number, default=4.0, metavar="S",
                        help="the observer uses what it saw in this many seconds before the cutoff (default 4)")
    parser.add_argument("--rotor-lead-s", type=_number, default=4.0, metavar="S",
                        help="the rotor is on camera this long before the launch (default 4: a studio's stream "
                             "shows the wheel turning while bets are taken; 0: only after the launch)")
    parser.add_argument("--payout", action="append", choices=("lightning", "lightning-lucky", "classic"),
                        help="straight-up payout tables (repeatable; default all three): lightning 29 to 1 "
                             "(617c.3(f)), lightning-lucky (with Lucky Numbers, 617c.3(d)-(g)), classic 35 to 1 (617a.4)")
    parser.add_argument("--game", metavar="FILE",
                        help="where the payouts come from: for a tower, a Lightning Dice game file (its paytable "
                             "and bets; fixtures/games, e.g. lightning-dice-1to3); for a wheel, a Lightning "
                             "Roulette rules submission (its Lucky draw). Default: the regulation's paytable "
                             "(625b.2(f); 617c.3(f)) and the bench's default submission")
    parser.add_argument("--lucky-mean-count", type=_number, metavar="X",
                        help="mean number of Lucky Numbers a round, 1-5 (617c.3(d); default: the submission's)")
    parser.add_argument("--lucky-mean-odds", type=_number, metavar="X",
                        help="mean odds of a Lucky Number, 49-499 (617c.3(g); default: the submission's)")
    parser.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1, metavar="K",
                        help="worker processes (default: all cores)")
    parser.add_argument("--engine", choices=("local", "ray"), default="local",
                        help="engine of the physics campaign (the predictions run on the local pool)")
    parser.add_argument("--ray-address", metavar="ADDR", help="a running Ray cluster (default: a local instance)")
    parser.add_argument("--seed", type=non_negative_int, default=0, metavar="S", help="first seed (default 0)")
    parser.add_argument("--noise-seed", type=non_negative_int, default=0, metavar="S",
                        help="seed of the observer's reading errors (default 0)")
    parser.add_argument("--confidence", type=_number, default=0.99, metavar="C", help="of the intervals (default 0.99)")
    parser.add_argument("--call-time-s", type=_number, metavar="T",
                        help="judge 'no more bets' at T seconds after the launch (added to the cutoffs): exit 0 "
                             "when it is shown safe at 29 to 1 (T no later than the latest safe call and the low "
                             "end of its interval), 1 when it is not")
    parser.add_argument("--resamples", type=non_negative_int, default=100, metavar="N",
                        help="random halvings of the spins for the latest safe call's interval (default 100; 0: none)")
    parser.add_argument("--results", metavar="FILE", help="the campaign's JSON-lines file (shared with twin validate)")
    parser.add_argument("--report", metavar="DIR", help="write DIR/index.html with the chart inline")
    add_progress_option(parser)
    add_json_option(parser, "edge")
    parser.set_defaults(func=run)


def _pct(x: float) -> str:
    return f"{100 * x:+6.1f}%"


def text_of(outcome) -> str:
    return plant_kind(outcome.kind).part("edge_text")(outcome)


def tower_text(outcome) -> str:
    t = outcome.tower
    bets = ", ".join(f"{k} {n}" for k, n in sorted(t.bets.items(), key=lambda kv: -kv[1])[:5])
    return "\n".join([
        f"{outcome.design_path}: {outcome.runs} drops from seed {outcome.first_seed} "
        f"({t.edge.fit_runs} fit, {t.edge.runs} held out, {t.no_rolls} no rolls left out)",
        f"edge from the loaded faces: {_pct(t.edge.edge)}, {100 * outcome.confidence:g}% interval "
        f"{_pct(t.edge.low)} to {_pct(t.edge.high)}; the same bets on fair dice: {_pct(t.edge.house_edge)} (625b.2(f))",
        f"bets chosen: {bets}",
        f"paytable: {outcome.paytable}",
        f"wall: campaign {outcome.campaign_s:.0f} s"])


def wheel_text(outcome) -> str:
    cam = outcome.camera
    lines = [f"{outcome.design_path}: {outcome.runs} spins from seed {outcome.first_seed} ({outcome.invalid} invalid "
             f"left out); observer: {cam.mode}, frame {cam.frame_s:.4g} s, {cam.angle_res_deg:g} deg, window "
             f"{cam.window_s:g} s, rotor seen from {cam.rotor_lead_s:g} s before the launch",
             f"{'cutoff':>7} {'payout':16} {'bet':>3} {'edge':>7}  {100 * outcome.confidence:g}% interval   "
             f"{'house':>7} {'fit/held':>9} informed  predicted at  bets"]
    for r in outcome.rows:
        e = r.edge
        lines.append(f"{r.cutoff_s:6.2f}s {r.payout:16} {r.numbers:3d} {_pct(e.edge)}  {_pct(e.low)} {_pct(e.high)}  "
                     f"{_pct(e.house_edge)} {e.fit_runs:4d}/{e.runs:<4d} {100 * r.informed:5.0f}%  {r.seen_at_s:g} s"
                     f"  {r.strategy}" + (f" ({100 * r.bet_share:.0f}% of spins)" if r.bet_share < 1 else ""))
    for p in outcome.payouts:
        safe = outcome.safe_call(p.key)
        if p.key == outcome.verdict.payout:
            lines.append(f"latest safe 'no more bets' (617c.3(c)), {p.label} ({p.clause}): {outcome.verdict.text()}")
            continue
        lines.append(f"latest safe 'no more bets' (617c.3(c)), {p.label} ({p.clause}): "
                     + ("none: the interval reaches zero even at the launch" if safe is None
                        else f"{safe:g} s after the launch"))
    if outcome.call_time_s is not None:
        shown = outcome.verdict.shows_safe(outcome.call_time_s)
        lines.append(f"'no more bets' at {outcome.call_time_s:g} s: " + ("shown safe" if shown else "NOT shown safe"))
    lines.append(f"Lucky draw: {outcome.paytable}")
    lines.append(f"wall: campaign {outcome.campaign_s:.0f} s, predictions {outcome.predict_s:.0f} s, "
                 f"resamples {outcome.resample_s:.0f} s")
    return "\n".join(lines)


def command_line(args, kind: str = "wheel") -> str:
    parts = ["twin edge", args.design, f"--runs {args.runs}", f"--seed {args.seed}"]
    if args.game:
        parts.append(f"--game {args.game}")
    if args.cutoff_s:
        parts.append("--cutoff-s " + ",".join(f"{c:g}" for c in args.cutoff_s))
    if plant_kind(kind).watched:   # the observer and the straight-up payouts are a watched wheel's
        parts += [f"--observer {args.observer}", f"--frame-s {args.frame_s:.6g}",
                  f"--angle-res-deg {args.angle_res_deg:g}", f"--window-s {args.window_s:g}",
                  f"--rotor-lead-s {args.rotor_lead_s:g}", f"--noise-seed {args.noise_seed}",
                  f"--resamples {args.resamples}"]
        parts += [f"--payout {p}" for p in args.payout or ()]
        parts += [f"--{name.replace('_', '-')} {getattr(args, name):g}" for name in ("lucky_mean_count", "lucky_mean_odds")
                  if getattr(args, name) is not None]
        if args.call_time_s is not None:
            parts.append(f"--call-time-s {args.call_time_s:g}")
    parts.append(f"--confidence {args.confidence:g}")
    return " ".join(parts)


def run(args: argparse.Namespace) -> int:
    from twin.edge.observer import Camera
    from twin.edge.pipeline import estimate_edge
    from twin.kinds import design_kind

    with stdout_for_result() as emit:
        try:
            kind = design_kind(args.design)
            camera = (Camera(args.frame_s, args.angle_res_deg, args.observer, args.window_s, args.rotor_lead_s)
                      if plant_kind(kind).watched else None)
            outcome = estimate_edge(args.design, args.runs, cutoffs=args.cutoff_s, camera=camera, payouts=args.payout,
                                    game=args.game,
                                    lucky_mean_count=args.lucky_mean_count, lucky_mean_odds=args.lucky_mean_odds,
                                    workers=args.workers, engine=args.engine, ray_address=args.ray_address,
                                    seed=args.seed, noise_seed=args.noise_seed, confidence=args.confidence,
                                    results=args.results, progress=True, call_time_s=args.call_time_s,
                                    resamples=args.resamples)
            if args.report:
                from pathlib import Path

                from twin.edge.report import write_report
                outcome.report_path = str(write_report(outcome, Path(args.report), command_line(args, kind)))
        except (TwinError, ValueError) as err:
            print(f"twin edge: {err}", file=sys.stderr)
            return Exit.BAD_INPUT
        status = Exit.OK
        if args.call_time_s is not None:
            if outcome.verdict is None:
                # Not reached: only a wheel takes a call time (a tower refuses one), and its estimate gives a verdict.
                raise AssertionError("a call time judged without a verdict")
            if not outcome.verdict.shows_safe(args.call_time_s):
                status = Exit.VIOLATION
        emit(_json_lines(outcome, status) if args.json
             else text_of(outcome) + (f"\nreport: {outcome.report_path}" if outcome.report_path else ""))
        return status


def _json_lines(outcome, status: int) -> str:
    """A "cutoff" line for each cutoff and payout (a tower has none), then
    the verdict: the estimate's figures; ``passed`` is what the exit status
    judges (the call time asked about shown safe, or no call time asked)."""
    *rows, estimate = outcome.lines_json()
    estimate.pop("verdict", None)        # lines_json's own marker of its last line; the record says it here
    lines = JsonLines.collected("edge")
    for row in rows:
        lines.write("cutoff", **row)
    lines.verdict(passed=status == Exit.OK, status=status, **estimate)
    return lines.text()
