"""``twin drop``: drop the dice through a Lightning Dice tower design, one line (or JSON object) per drop."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from tablebench_io.progress import bar as progress_bar, echo

from tablebench_io.commandline import Exit, add_list_option
from tablebench_io.json_lines import JsonLines
from twin.commands._runs import add_series_arguments
from twin.errors import DesignError

PROGRESS_FROM = 20   # show a progress bar on stderr from this many drops


def _faces(text: str) -> tuple[int, ...]:
    try:
        faces = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected faces like 1,2,3, got {text!r}") from None
    if len(faces) != 3 or not all(1 <= f <= 6 for f in faces):
        raise argparse.ArgumentTypeError(f"expected three faces from 1 to 6, got {text!r}")
    return faces


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "drop", help="drop the dice through a Lightning Dice tower design (58 Pa. Code 625b.2(c),(d))",
        description="Drop three dice through a tower design: they wait in the compartment, are released, "
                    "tumble against the obstacles and come to rest in the tray; a die not flat makes a "
                    "'no roll' (625b.2(d)(5)). Drops use seeds N, N+1, ..., N+K-1; the same seed and load "
                    "give the same drop. Exit status: 0 dropped, 2 a design that cannot be read or built.")
    parser.add_argument("design", help="tower design: a YAML file, or the name of a shipped one (standard; --list)")
    add_list_option(parser, "tower")
    add_series_arguments(parser, "drop", png="picture of the first drop's tray from above",
                         gif="side-view animation of the first drop")
    parser.add_argument("--loaded", type=_faces, metavar="A,B,C",
                        help="top faces as the dealer set the dice in the compartment (625b.2(d)(6)); "
                             "default: the design's loading")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from twin.tower import drop, drop_traced, load_design
    from twin.tower.picture import drop_gif, tray_png

    try:
        design = load_design(args.design)
    except DesignError as err:
        print(f"twin drop: {err}", file=sys.stderr)
        return Exit.BAD_INPUT

    lines = JsonLines("drop") if args.json else None
    no_roll = unsettled = 0
    faces: Counter[int] = Counter()
    seeds = range(args.seed, args.seed + args.count)
    for seed in progress_bar(seeds, desc="drops", unit="drop", disable=args.count < PROGRESS_FROM):
        if seed == args.seed and args.gif:
            result, trace = drop_traced(design, seed, args.loaded)
            drop_gif(design, result, trace, args.gif)
        else:
            result = drop(design, seed, args.loaded)
        if seed == args.seed and args.png:
            tray_png(design, result, args.png)
        no_roll += result.no_roll
        unsettled += not result.settled
        faces.update(result.faces)
        if lines is not None:
            lines.write("drop", **result.to_dict())
        else:
            if result.no_roll:
                why = "; ".join(f"die {i + 1} not flat ({d.tilt_deg:.0f} deg), {d.describe_hold()}"
                                for i, d in enumerate(result.dice) if not d.flat)
                verdict = "NO ROLL: " + (why or "not settled")
            else:
                verdict = " ".join(map(str, result.faces))
            settle = f"at rest after {result.settle_time_s:.2f} s" if result.settled else \
                f"NOT settled within {result.settle_time_s:.1f} s"
            echo(f"seed {seed}: {verdict}  (loaded {' '.join(map(str, result.loaded))}; {settle})")
    if lines is not None:
        lines.verdict(passed=True, status=Exit.OK, drops=args.count, no_roll=no_roll, unsettled=unsettled,
                      faces={str(f): faces[f] for f in range(1, 7)})
    elif args.count > 1:
        share = ", ".join(f"{f}: {faces[f]}" for f in range(1, 7))
        print(f"{args.count} drops: {no_roll} no roll ({100 * no_roll / args.count:.2f}%), "
              f"{unsettled} not settled; faces {share}")
    return Exit.OK
