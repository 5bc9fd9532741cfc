"""``twin frames``: labelled studio frames of drops or spins, written to a folder."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tablebench_io.commandline import Exit, add_list_option, add_progress_option, number_between
from tablebench_io.json_lines import JsonLines, add_json_option
from tablebench_io.progress import bar as progress_bar
from twin.commands._runs import design_of, non_negative_int, positive_int
from twin.errors import DesignError

PROGRESS_FROM = 5


def register(subparsers: argparse._SubParsersAction) -> None:
    from twin.camera.variation import shipped_names
    parser = subparsers.add_parser(
        "frames", help="labelled studio frames of drops or spins (a recogniser's test set)",
        description="Drop the dice (a tower design) or spin the wheel (a wheel design) for seeds N .. N+K-1 "
                    "and write what a studio camera records at rest: an image per drop or spin, its labels "
                    "(faces up, each die flat or not with its tilt and holder, outlines and boxes, the pocket, "
                    "the no-roll truth of 625b.2(d)(5)) as JSON beside it, a COCO-style coco.json and the "
                    "camera's calibration.json. Lighting, camera jitter, colours, blur and compression vary "
                    "with the seed; the same seed gives the same bytes. Exit status: 0 written, 2 a design or "
                    "camera that cannot be read, or a folder that cannot be written.")
    parser.add_argument("design", help="tower or wheel design: a YAML file, or a shipped one by name (--list)")
    add_list_option(parser, "tower", "wheel")
    parser.add_argument("--out", required=True, metavar="DIR", help="the folder to write (made if missing)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="first seed (default 0)")
    parser.add_argument("--count", type=positive_int, default=1, help="drops or spins (default 1)")
    parser.add_argument("--camera", metavar="FILE",
                        help="camera file (YAML: position_m, target_m, up, fov_deg, width_px, height_px); "
                             "default: the design's camera section, else straight above the tray or rotor")
    parser.add_argument("--variation", default="default", metavar="FILE|NAME",
                        help="a variation file (YAML: each factor's range, docs/camera.md) or a shipped level: "
                             f"{', '.join(shipped_names())} (default %(default)s)")
    parser.add_argument("--fall-every", type=number_between(0.01, 10, unit="seconds"), metavar="S",
                        help="towers: also a frame every S seconds of the fall (labels: where the dice are)")
    add_progress_option(parser)
    add_json_option(parser, "frames")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from twin.camera.frames import Studio, write_folder
    from twin.camera.label_files import NotLabels
    from twin.camera.spec import design_camera, load_camera
    from twin.camera.variation import load_level
    from twin.kinds import plant_kind

    try:
        path, kind = design_of(args.design, *(("tower",) if args.fall_every else ()))   # frames of the fall: a tower
        design = plant_kind(kind).part("loader")(path)
        camera = load_camera(args.camera) if args.camera else design_camera(path)
        level = load_level(args.variation)
    except DesignError as err:
        print(f"twin frames: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    if args.fall_every and kind != "tower":
        print("twin frames: --fall-every is for towers: a spin's frames are taken at rest", file=sys.stderr)
        return Exit.BAD_INPUT
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"twin frames: {out}: not a folder", file=sys.stderr)
        return Exit.BAD_INPUT
    studio = Studio(design, kind, camera, level)
    started, cpu = time.monotonic(), time.process_time()
    seeds = range(args.seed, args.seed + args.count)
    try:
        with progress_bar(total=args.count, desc="frames", unit=plant_kind(kind).run,
                          disable=args.count < PROGRESS_FROM) as bar:
            counts = write_folder(studio, out, seeds, args.fall_every, step=bar.update)
    except OSError as err:
        print(f"twin frames: {out}: cannot write: {err.strerror or err}", file=sys.stderr)
        return Exit.BAD_INPUT
    except NotLabels as err:      # a file in the folder that is not a frame's labels
        print(f"twin frames: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    finally:
        studio.close()
    counts.update(design=design.name, scene=kind, out=str(out), variation=level.name,
                  wall_s=round(time.monotonic() - started, 2), cpu_s=round(time.process_time() - cpu, 2))
    if args.json:
        lines = JsonLines("frames")
        lines.write("summary", **counts)
        lines.verdict(passed=True, status=Exit.OK)
    else:
        cocked = f", {counts['no_roll']} no roll ({counts['cocked_dice']} dice not flat)" if kind == "tower" else ""
        print(f"twin frames: {counts['frames']} frames of {design.name} in {out} "
              f"({counts['made']} made, {counts['kept']} kept{cocked}); labels beside each, coco.json, "
              f"calibration.json")
    return Exit.OK
