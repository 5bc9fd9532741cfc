"""``twin spin``: spin a roulette wheel design, one line (or JSON object) per spin."""

from __future__ import annotations

import argparse
import json
import sys

from tablebench_io.progress import bar as progress_bar, echo

from tablebench_io.commandline import Exit, add_list_option
from tablebench_io.json_lines import JsonLines
from twin.commands._runs import add_series_arguments
from twin.errors import DesignError

PROGRESS_FROM = 20   # show a progress bar on stderr from this many spins


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "spin", help="spin a roulette wheel design (58 Pa. Code 617c.3(a))",
        description="Spin a single-zero roulette wheel design: the ball rides the track (an ODE), "
                    "leaves it, and PyBullet takes it over the deflectors and frets into a pocket. "
                    "Spins use seeds N, N+1, ..., N+K-1; the same seed gives the same spin. "
                    "Exit status: 0 spun (an invalid spin is said, not failed), 2 a design that cannot be read or built.")
    parser.add_argument("design", help="wheel design: a YAML file, or the name of a shipped one (standard; --list)")
    add_list_option(parser, "wheel")
    add_series_arguments(parser, "spin", png="picture of the first spin's wheel at rest",
                         gif="animation of the first spin")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from twin.wheel import load_design, spin, trace

    try:
        design = load_design(args.design)
    except DesignError as err:
        print(f"twin spin: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    for note in design.findings:
        print(f"twin spin: warning: {note}", file=sys.stderr)

    lines = JsonLines("spin") if args.json else None
    invalid = 0
    seeds = range(args.seed, args.seed + args.count)
    for seed in progress_bar(seeds, desc="spins", unit="spin", disable=args.count < PROGRESS_FROM):
        result = spin(design, seed)
        invalid += not result.valid
        if lines is not None:
            lines.write("spin", **json.loads(result.to_json()))
        elif result.valid:
            echo(f"seed {seed}: {result.number}  (left the track at {result.leave_angle_deg:.1f} deg "
                 f"after {result.track_time_s:.1f} s, {result.ball_revolutions:.1f} revolutions; "
                 f"caught in its pocket after {result.spin_time_s:.1f} s)")
        else:
            echo(f"seed {seed}: invalid spin: {result.invalid_reason}")
    if args.count > 1:
        print(f"twin spin: {args.count} spins, {invalid} invalid", file=sys.stderr)

    if args.png or args.gif:
        from twin.wheel.picture import save_gif, save_png
        first = trace(design, args.seed)
        if args.png:
            save_png(design, first, args.png)
            print(f"twin spin: wrote {args.png}", file=sys.stderr)
        if args.gif:
            save_gif(design, first, args.gif)
            print(f"twin spin: wrote {args.gif}", file=sys.stderr)
    if lines is not None:
        lines.verdict(passed=True, status=Exit.OK, spins=args.count, invalid=invalid)
    return Exit.OK
