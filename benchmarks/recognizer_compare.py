"""The reference and the learned recogniser side by side on held-out frames
(docs/camera.md, "The learned recogniser").

    .venv/bin/python benchmarks/recognizer_compare.py --standard 100 --narrow 75 --levels default studio hard \\
        --out out/recognizer-compare --json out/recognizer-compare/scores.json

Frames are made (``twin frames``, resumable) under OUT/<level>-<design>/ for
seeds from --seed (default 70000: apart from the reference's tuning seeds
1000-1599 and the learned recogniser's training seeds 200000 on), then both
recognisers read every frame at rest in this process (each as its module's
``read_image``, the function its streaming command calls) and are scored by
``bench.vision.scoring.Score``. Printed, per level and design:

- roll frames called a no roll, of the frames that are rolls (a void where a
  round should settle, 625b.2(d)(5));
- roll frames unread: an error, not the tray's count of dice, or a flat die
  with no face (the learned recogniser's face under its threshold): the
  bench's policy re-reads, then voids (docs/camera.md);
- rolls settled wrong: roll frames neither called a no roll nor unread whose
  faces, as a multiset, are not the true ones (the wagers settle on them);
- cocked dice found (of the cocked dice the camera sees), flat dice read
  right (of the flat dice), and the CPU seconds a frame (median).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DESIGNS = {"standard": "towers/standard", "narrow": "towers/narrow-tray"}


def _frames(folder: Path, design: str, seed: int, count: int, level: str) -> None:
    if count <= 0:
        return
    subprocess.run([sys.executable, "-m", "twin.cli", "frames", DESIGNS[design], "--seed", str(seed),
                    "--count", str(count), "--variation", level, "--out", str(folder)],
                   check=True, stdout=subprocess.DEVNULL, cwd=ROOT)


def settled_faces(label: dict, reading: dict) -> str:
    """What a roll frame's reading does to its wagers, as the loop calls it (``dice_call``):
    'no roll' (called), 'unread' (an error, not the tray's dice, a flat die with no face: the
    recogniser's policy's re-read, then a void), 'right', or 'wrong'."""
    from bench.vision.reading_calls import dice_call
    truth = label["truth"]
    faces, flat, unread = dice_call(reading, len(truth["dice"]))
    if unread is not None:
        return "unread"
    if not all(flat):
        return "no roll"
    return "right" if sorted(faces) == sorted(truth["faces"]) else "wrong"


def score_folder(folder: Path, readers: dict, count: int | None = None) -> dict:
    """Each reader's figures over a folder's frames at rest. ``readers``: name -> (read, digest);
    the readings are kept in FOLDER/readings/NAME-DIGEST.json (the digest of the reader's code
    and model), so a reader run before is not run again."""
    from bench.vision.calibration import Calibration
    from bench.vision.scoring import Score
    from twin.camera.frames import read_labels
    cal = Calibration.load(str(folder / "calibration.json"))
    labels = [lab for lab in read_labels(folder) if lab["moment"] == "rest"][:count]
    out = {}
    for name, (read, digest) in readers.items():
        cache_path = folder / "readings" / f"{name}-{digest[:12]}.json"   # not beside the labels: not one
        cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
        score = Score("tower")
        roll_frames = called = wrong = unread = 0
        seconds = []
        wrong_seeds, called_seeds = [], []
        for label in labels:
            if label["sha256"] in cache:
                reading, spent = cache[label["sha256"]]
            else:
                data = (folder / label["image"]).read_bytes()
                t0 = time.process_time()
                try:
                    reading = read(data, cal)
                except (ValueError, OSError) as err:
                    reading = {"error": str(err)}
                spent = time.process_time() - t0
                cache[label["sha256"]] = [reading, spent]
            seconds.append(spent)
            score.add(label, reading)
            if not label["truth"]["no_roll"]:
                roll_frames += 1
                got = settled_faces(label, reading)
                called += got == "no roll"
                wrong += got == "wrong"
                unread += got == "unread"
                if got == "no roll":
                    called_seeds.append(label["seed"])
                elif got == "wrong":
                    wrong_seeds.append(label["seed"])
        cache_path.parent.mkdir(exist_ok=True)
        cache_path.write_text(json.dumps(cache, sort_keys=True))
        s = score.to_json(worst=5)
        out[name] = {"frames": len(labels), "roll_frames": roll_frames, "roll_frames_called_no_roll": called,
                     "roll_frames_unread": unread,
                     "rolls_settled_wrong": wrong, "cocked_dice": s["cocked_dice"], "cocked_found": s["cocked_found"],
                     "cocked_hidden": s["cocked_hidden"], "flat_dice": s["flat_dice"], "flat_right": s["flat_right"],
                     "no_roll_frames": s["no_roll_frames"],
                     "no_roll_frames_called": s["no_roll_called"] - called,
                     "cpu_s_per_frame_median": round(statistics.median(seconds), 4) if seconds else None,
                     "called_no_roll_seeds": called_seeds[:20], "settled_wrong_seeds": wrong_seeds[:20],
                     "worst": s["worst"]}
    return out


def _share(a: int, b: int) -> str:
    return f"{a:,} of {b:,}" + (f" ({100 * a / b:.2f}%)" if b else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--standard", type=int, default=200, help="standard-tower frames a level (default 200)")
    parser.add_argument("--narrow", type=int, default=150, help="narrow-tray frames a level (default 150)")
    parser.add_argument("--levels", nargs="+", default=["default", "studio", "hard"],
                        help="variation levels (default: default studio hard)")
    parser.add_argument("--seed", type=int, default=70000, help="first seed (default 70000: held out)")
    parser.add_argument("--out", default="out/recognizer-compare", help="where the frames are made")
    parser.add_argument("--model", default=None, help="a learned model file (default: the shipped one)")
    parser.add_argument("--recognizers", nargs="+", default=["reference", "learned"], choices=["reference", "learned"],
                        help="which to run (default both)")
    parser.add_argument("--no-make", action="store_true", help="score the folders under OUT as they are")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if 1000 <= args.seed <= 1599 or args.seed >= 200000:
        print(f"recognizer_compare: --seed {args.seed}: a tuning or training seed, not held out", file=sys.stderr)
        return 2
    from bench.vision import learned, learned_model, learned_view, reference, reference_wheel
    model = learned.Model.load(args.model) if args.model else learned.Model.load() if "learned" in args.recognizers else None
    def digest(*paths) -> str:
        return hashlib.sha256(b"".join(Path(p).read_bytes() for p in paths)).hexdigest()
    model_path = args.model or learned.MODEL
    readers = {}
    if "reference" in args.recognizers:
        # The reader's code is its modules': the reference's dice and wheel, the learned one's model and view.
        readers["reference"] = (reference.read_image, digest(reference.__file__, reference_wheel.__file__))
    if "learned" in args.recognizers:
        readers["learned"] = (lambda data, cal: learned.read_image(data, cal, model),
                              digest(learned.__file__, learned_model.__file__, learned_view.__file__, model_path))
    results = {}
    for level in args.levels:
        for design, count in (("standard", args.standard), ("narrow", args.narrow)):
            if count <= 0:
                continue
            folder = Path(args.out) / f"{level}-{design}"
            if not args.no_make:
                _frames(folder, design, args.seed, count, level)
            results[f"{level} {design}"] = score_folder(folder, readers, count)
            print(f"scored {level} {design}", file=sys.stderr, flush=True)
    print("| level | design | recogniser | roll frames called a no roll | roll frames unread | rolls settled wrong "
          "| cocked dice found | flat dice read right | CPU s a frame |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key, by_reader in results.items():
        level, design = key.split()
        for name, r in by_reader.items():
            print(f"| {level} | {design} ({r['frames']} frames) | {name} "
                  f"| {_share(r['roll_frames_called_no_roll'], r['roll_frames'])} "
                  f"| {_share(r['roll_frames_unread'], r['roll_frames'])} "
                  f"| {_share(r['rolls_settled_wrong'], r['roll_frames'])} "
                  f"| {_share(r['cocked_found'], r['cocked_dice'])} "
                  f"| {_share(r['flat_right'], r['flat_dice'])} | {r['cpu_s_per_frame_median']} |")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
