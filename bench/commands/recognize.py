"""``bench recognize``: run a recogniser over a folder of labelled frames
(``twin frames``) and score it against the physics' truth."""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import sys
import time
from pathlib import Path

from tablebench_io.commandline import Exit, add_progress_option, number_between
from tablebench_io.json_lines import JsonLines, add_json_option
from tablebench_io.progress import bar as progress_bar

EPILOG = """\
The recogniser (docs/camera.md): 'reference' or 'learned' (the shipped ones,
named by --list), a command run
once per frame as CMD IMAGE (--stream: started once, one image path a line in,
one JSON line out), or an http:// endpoint that takes the image as a POST.
'{calibration}' in CMD becomes the folder's calibration.json, also given as
$TABLEBENCH_CALIBRATION. A reading is a JSON object: {"dice": [{"face": 1-6,
"flat": true|false, "box_px": [x, y, w, h]}, ...], "no_roll": bool} or
{"pocket": 0-36}; a streaming reply may name its frame ("frame": NAME).
A reply of other types costs its frame, named in --readings.
Scores include roll_frames_called_no_roll (of roll_frames) and
rolls_settled_wrong: the rolls voided and the rolls settled on wrong faces.
Exit status: 0 scored (and every --require met), 1 a --require not met,
2 bad input (no frames, no calibration, a bad --require).
"""

REQUIRE_KEYS = ("face_accuracy", "no_roll_recall", "no_roll_precision", "pocket_accuracy",
                "frame_no_roll_recall", "frame_no_roll_precision")


def _requirement(text: str) -> tuple[str, float]:
    key, _, value = text.partition("=")
    if key not in REQUIRE_KEYS:
        raise argparse.ArgumentTypeError(f"unknown figure {key!r}: {', '.join(REQUIRE_KEYS)}")
    try:
        share = number_between(0, 1)(value)
    except argparse.ArgumentTypeError as err:
        raise argparse.ArgumentTypeError(f"{text}: the share {err} (FIGURE=SHARE, e.g. face_accuracy=0.99)") from None
    return key, share


def register(subparsers) -> None:
    p = subparsers.add_parser("recognize", help="score a result recogniser against labelled frames (twin frames)",
                              description="Run a recogniser over a folder of frames written by 'twin frames' and "
                                          "score it against the labels: face accuracy per die, no-roll recall and "
                                          "precision (625b.2(d)(5)), pocket accuracy, a confusion table and the "
                                          "worst frames.",
                              epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("frames", metavar="FRAMES", nargs="?", help="a folder written by twin frames")
    p.add_argument("--recognizer", metavar="CMD",
                   help="'reference' or 'learned' (the shipped ones: --list), a command (run as CMD IMAGE), "
                        "or an http:// endpoint")
    p.add_argument("--list", action="store_true", help="name the shipped recognisers and stop")
    p.add_argument("--stream", action="store_true", help="start CMD once and talk to it a line a frame")
    p.add_argument("--timeout", type=float, default=30.0, metavar="S",
                   help="seconds to wait for each reading (default 30)")
    p.add_argument("--report", metavar="FILE", help="write the HTML report here")
    p.add_argument("--readings", metavar="FILE", help="write every reading here, a JSON line a frame")
    p.add_argument("--require", type=_requirement, action="append", default=[], metavar="FIGURE=SHARE",
                   help="exit 1 unless FIGURE reaches SHARE, e.g. face_accuracy=0.99; repeatable")
    p.add_argument("--worst", type=int, default=8, metavar="N", help="frames shown in the report (default 8)")
    add_progress_option(p)
    add_json_option(p, "recognize")      # a "scores" line, then the verdict (--require met or not)
    p.set_defaults(func=run)


def list_shipped() -> int:
    from bench.vision.recognizer import SHIPPED, shipped
    for name, here in shipped().items():
        print(f"{name}: python -m {SHIPPED[name]} --stream" + ("" if here else " (not installed)"))
    return Exit.OK


def run(args) -> int:
    if args.list:
        return list_shipped()
    if not args.frames or not args.recognizer:
        print("bench recognize: give FRAMES and --recognizer CMD (or --list)", file=sys.stderr)
        return Exit.BAD_INPUT
    from bench.vision.recognizer import Recognizer
    from bench.vision.scoring import Score

    folder = Path(args.frames)
    calibration = folder / "calibration.json"
    if not folder.is_dir():
        print(f"bench recognize: {folder}: not a folder", file=sys.stderr)
        return Exit.BAD_INPUT
    try:
        scene = json.loads(calibration.read_text())["scene"]
        from twin.camera.label_files import read_labels
        labels = read_labels(folder, moment="rest")
    except (OSError, ValueError, KeyError, TypeError) as err:
        print(f"bench recognize: {folder}: not a frames folder of twin frames: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    if not labels:
        print(f"bench recognize: {folder}: no frames at rest to score", file=sys.stderr)
        return Exit.BAD_INPUT
    if args.timeout <= 0:
        print("bench recognize: --timeout must be positive", file=sys.stderr)
        return Exit.BAD_INPUT
    score = Score(scene)
    readings = {}
    out = open(args.readings, "w", encoding="utf-8") if args.readings else None
    try:
        with Recognizer(args.recognizer, calibration.resolve(), stream=args.stream, timeout_s=args.timeout) as rec, \
                progress_bar(labels, desc="frames", unit="frame", disable=len(labels) < 5) as frames:
            for label in frames:
                image_path = folder / label["image"]
                try:
                    image = image_path.read_bytes()
                except OSError as err:
                    print(f"bench recognize: {image_path}: cannot read: {err.strerror}", file=sys.stderr)
                    return Exit.BAD_INPUT
                started = time.perf_counter()
                reading = rec.read(image_path.resolve(), image)
                try:
                    score.add(label, reading, time.perf_counter() - started)
                except (KeyError, TypeError, ValueError, IndexError) as err:
                    print(f"bench recognize: {folder / label['image']}: its labels lack {err}", file=sys.stderr)
                    return Exit.BAD_INPUT
                readings[label["image"]] = reading
                if out:
                    out.write(json.dumps({"image": label["image"], "reading": reading}, sort_keys=True) + "\n")
                    out.flush()
            described = rec.description
    except ValueError as err:
        print(f"bench recognize: --recognizer: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    finally:
        if out:
            out.close()
    scores = score.to_json(worst=args.worst)
    required = dict(args.require)
    unmet = [f"{key} {scores.get(key)} below {share}" for key, share in required.items()
             if scores.get(key) is None or scores[key] < share]
    passed = None if not required else not unmet
    if args.report:
        from bench.vision.report import write
        by_image = {label["image"]: label for label in labels}
        worst = [((folder / w["image"]).read_bytes(), by_image[w["image"]], readings[w["image"]])
                 for w in scores["worst"]]
        seeds = sorted(label["seed"] for label in labels)
        write(args.report, scores, folder=str(folder), recognizer=described,
              calibration_digest=hashlib.sha256(calibration.read_bytes()).hexdigest(),
              required=required, passed=passed, reasons=unmet, worst=worst,
              repeat="bench recognize " + " ".join(shlex.quote(a) for a in sys.argv[2:]) if sys.argv[1:2] == ["recognize"]
              else f"bench recognize {folder} --recognizer {args.recognizer}",
              seeds=f"{seeds[0]}-{seeds[-1]} ({len(seeds)} frames)")
    if args.json:
        lines = JsonLines("recognize")
        lines.write("scores", **scores, recognizer=described)
        lines.verdict(passed=not unmet, status=Exit.VIOLATION if unmet else Exit.OK, required=required, unmet=unmet)
    else:
        print(summary_text(scores, described))
        for line in unmet:
            print(f"bench recognize: not met: {line}")
    return Exit.VIOLATION if unmet else Exit.OK


def _pc(value) -> str:
    return "–" if value is None else f"{100 * value:.2f}%"


def summary_text(s: dict, described: str) -> str:
    speed = f"; {s['frames_per_second']} frames/s" if s.get("frames_per_second") else ""
    head = f"{s['frames']} frames, {s['errors']} unanswered{speed} ({described})"
    if s["scene"] == "wheel":
        return f"{head}\npockets read right: {s['pockets_right']} of {s['spins']} ({_pc(s['pocket_accuracy'])})"
    per_die = ", ".join(f"die {d} {_pc(v)}" for d, v in s["face_accuracy_per_die"].items())
    lines = [head,
             f"flat dice read right: {s['flat_right']} of {s['flat_dice']} ({_pc(s['face_accuracy'])}; {per_die})",
             f"cocked dice found: {s['cocked_found']} of {s['cocked_dice']} (recall {_pc(s['no_roll_recall'])}); "
             f"called cocked: {s['called_cocked']} (precision {_pc(s['no_roll_precision'])}, "
             f"{s['flat_called_cocked']} flat dice called cocked)",
             f"no-roll frames: {s['no_roll_called']} called, {s['no_roll_frames']} true "
             f"(recall {_pc(s['frame_no_roll_recall'])}, precision {_pc(s['frame_no_roll_precision'])})",
             f"roll frames called a no roll: {s['roll_frames_called_no_roll']} of {s['roll_frames']}; "
             f"rolls settled wrong: {s['rolls_settled_wrong']}; rolls unread: {s['roll_frames_unread']}"]
    confusion = s["confusion"]
    reads = ["1", "2", "3", "4", "5", "6", "cocked", "missed", "None"]
    lines.append("confusion (true face, then reads " + " ".join(reads) + "):")
    for true in ["1", "2", "3", "4", "5", "6"]:
        lines.append(f"  {true}: " + " ".join(f"{confusion.get(true, {}).get(r, 0):>4}" for r in reads))
    for w in s["worst"][:5]:
        lines.append(f"worst: {w['image']}: {w['what']}")
    return "\n".join(lines)
