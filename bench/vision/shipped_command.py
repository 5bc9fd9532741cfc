"""The command line every shipped recogniser takes (``python -m
bench.vision.reference`` and ``python -m bench.vision.learned``): ``--calibration
FILE`` and image files, or ``--stream`` (one image path a line on stdin,
one JSON line answered each: what ``bench recognize`` runs).

Apart from either recogniser so that both answer the bench in exactly one
way (docs/camera.md, "A recogniser's interface").
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable

from bench.vision.calibration import Calibration


def recogniser_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The command line every shipped recogniser takes (the bench runs each the same way)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--calibration", required=True, metavar="FILE",
                        help="the camera's calibration.json (written by twin frames or bench run --camera)")
    parser.add_argument("--stream", action="store_true",
                        help="read one image path a line on stdin, answer one JSON line each")
    parser.add_argument("images", nargs="*", help="image files (PNG or JPEG)")
    return parser


def load_calibration(path: str, who: str) -> Calibration | None:
    """The camera's calibration, or None after one line naming the file (exit 2 for the caller)."""
    try:
        return Calibration.load(path)
    except (OSError, ValueError, KeyError, TypeError) as err:
        print(f"{who}: {path}: not a calibration file: {err}", file=sys.stderr)
        return None


def answer_frames(args: argparse.Namespace, read: Callable[[bytes], dict]) -> int:
    """Read each frame named (on stdin with --stream, else the arguments) and
    print one JSON reading a frame; 1 if a frame could not be read."""
    paths = (line.strip() for line in sys.stdin) if args.stream else iter(args.images)
    status = 0
    for path in paths:
        if not path:
            continue
        try:
            with open(path, "rb") as handle:
                reading = read(handle.read())
        except (OSError, ValueError) as err:          # a frame it cannot read is answered, not fatal
            reading, status = {"error": f"{path}: {err}"}, 1
        if args.stream:       # a streaming reply names its frame (docs/camera.md): the bench checks it
            reading["frame"] = path.replace("\\", "/").rsplit("/", 1)[-1]
        print(json.dumps(reading, sort_keys=True), flush=True)
    return status
