"""The learned recogniser: dice read by two small networks trained only on
the twin's frames (docs/camera.md, "The learned recogniser").

It is installed like the reference (``bench.vision.reference``): it knows
the camera's calibration, never a frame's labels, and speaks the same
streaming interface and reading JSON. What it learned is in
``learned.npz`` beside this file (a few hundred kilobytes of numpy arrays,
no pickle), read and run with numpy and scipy alone.

Per frame:

1. The image is looked at on the plane of a flat die's top face (the
   calibrated camera projects that plane's points into the image): there
   every flat die's top is a square of one size wherever it lies. Two
   channels: the distance of each pixel's colour from the felt's (the felt
   is the commonest colour of the floor's darker pixels, as the reference
   finds it) and its brightness above the felt's, each smoothed to the
   sampling step.
2. A detector (a one-hidden-layer network over a window 1.5 edges wide,
   sampled 8 times an edge) gives every place on the tray a chance of being
   a die's centre; its peaks, one per die's width, are the candidates.
3. A classifier (the same kind of network, the window 1.25 edges wide at 16
   samples an edge, its brightness scaled to the brightest of the window)
   calls each candidate a face 1-6 lying flat, a die not flat (cocked:
   625b.2(d)(5)) or no die, averaged over three turns of the window (a face
   may lie at any angle).
4. The tray holds ``dice.count`` dice: the most confident that many are
   the reading; a frame is a no roll when one of them is not flat or fewer
   are found (625b.2(d)(5)). A flat die whose face's chance is under the
   model's ``face_unread_below`` (chosen on a validation split of the
   training seeds) is read with no face: the frame is unread (the bench
   re-reads, then voids), never settled on a guess.

Train: ``python -m bench.vision.learned train FRAMES... --seed S --out FILE``
on folders written by ``twin frames`` (at ``--variation hard`` and
``studio``, seeds 200000 on: apart from every scoring set). Read: ``python -m
bench.vision.learned --calibration FILE IMAGE...`` or ``--stream``, as the
reference.

This module is the command; the parts are modules of their own: what the
camera shows on the plane of the dice's tops (step 1,
``bench.vision.learned_view``), the networks, their file and the reading
(steps 2 to 4, ``bench.vision.learned_model``), and the training
(``bench.vision.learned_training``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from bench.vision.learned_model import MODEL, Model, read_image
from bench.vision.learned_training import more_cocked, train
from bench.vision.shipped_command import answer_frames, load_calibration, recogniser_parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["train"]:
        return _train_main(argv[1:])
    if argv[:1] == ["cocked"]:
        return _cocked_main(argv[1:])
    parser = recogniser_parser("python -m bench.vision.learned", "The learned recogniser: one JSON reading per "
                               "frame ('train' as the first argument trains one).")
    parser.add_argument("--model", default=str(MODEL), metavar="FILE", help="the model (default: the shipped one)")
    args = parser.parse_args(argv)
    cal = load_calibration(args.calibration, "learned recogniser")
    if cal is None:
        return 2
    try:
        model = Model.load(args.model)
    except (OSError, ValueError, KeyError) as err:
        print(f"learned recogniser: {args.model}: not a learned model: {err}", file=sys.stderr)
        return 2
    return answer_frames(args, lambda data: read_image(data, cal, model))


def _cocked_main(argv: list[str]) -> int:
    from twin.errors import DesignError
    parser = argparse.ArgumentParser(prog="python -m bench.vision.learned cocked",
                                     description="More training frames of cocked dice: the drops of a twin frames "
                                                 "folder with a die not flat, drawn under more variation seeds.")
    parser.add_argument("folder", metavar="FRAMES", help="a folder written by twin frames (a tower)")
    parser.add_argument("--draws", type=int, default=6, help="variation seeds a cocked drop (default 6)")
    parser.add_argument("--out", required=True, metavar="DIR", help="the folder to write")
    parser.add_argument("--variation", metavar="FILE", default=None,
                        help="the variation file the folder was drawn with, when not a shipped level")
    parser.add_argument("--design", metavar="FILE", default=None,
                        help="the tower design file the folder was made from, when not a shipped design")
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    if not (folder / "calibration.json").is_file():
        print(f"learned cocked: {folder}: no calibration.json: not a folder written by twin frames", file=sys.stderr)
        return 2
    try:
        made = more_cocked(folder, Path(args.out), args.draws, args.variation, args.design)
    except DesignError as err:
        print(f"learned cocked: {err}", file=sys.stderr)
        return 2
    except (OSError, ValueError, KeyError, TypeError) as err:
        print(f"learned cocked: {folder}: {err}", file=sys.stderr)
        return 2
    print(json.dumps({"out": args.out, "frames": made}))
    return 0


THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _train_main(argv: list[str]) -> int:
    if any(os.environ.get(k) != "1" for k in THREADS) and __name__ == "__main__":
        # One BLAS thread: a product's sums in one order, so a seed gives the same model bytes.
        # The variables are read when numpy loads: the command starts again with them set.
        env = os.environ | {k: "1" for k in THREADS}
        os.execve(sys.executable, [sys.executable, "-m", "bench.vision.learned", "train", *argv], env)
    parser = argparse.ArgumentParser(prog="python -m bench.vision.learned train",
                                     description="Train the learned recogniser on folders of twin frames.")
    parser.add_argument("folders", nargs="+", metavar="FRAMES", help="folders written by twin frames (towers)")
    parser.add_argument("--seed", type=int, required=True, help="every draw of the training comes from it")
    parser.add_argument("--out", required=True, metavar="FILE", help="the model file to write (.npz)")
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="at most N frames a folder")
    parser.add_argument("--iterations", type=int, default=300, help="L-BFGS iterations a network (default 300)")
    parser.add_argument("--cocked-weight", type=float, default=1.0,
                        help="the cocked class's total weight against a face's average (default 1)")
    args = parser.parse_args(argv)
    folders = [Path(f) for f in args.folders]
    for f in folders:
        if not (f / "calibration.json").is_file():
            print(f"learned train: {f}: no calibration.json: not a folder written by twin frames", file=sys.stderr)
            return 2
    try:
        model = train(folders, args.seed, args.limit, args.iterations, cocked_weight=args.cocked_weight)
    except (OSError, ValueError, KeyError) as err:
        print(f"learned train: {err}", file=sys.stderr)
        return 2
    model.save(args.out)
    print(json.dumps({"out": args.out, "bytes": Path(args.out).stat().st_size} | model.meta, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
