"""The camera's campaign: labelled frames of the shipped designs, the
reference recogniser scored on them by ``bench recognize``, and the frame
rates (docs/camera.md, "Scores").

    nice -n 10 .venv/bin/python benchmarks/camera_bench.py --standard 600 --narrow 400 --wheel 300 \\
        --workers 2 --out out/camera-bench --json out/camera-bench/scores.json
    .venv/bin/python benchmarks/camera_bench.py --out out/camera-bench --timing 60    # CPU s a frame
    .venv/bin/python benchmarks/camera_bench.py --out F --timing 20 --level studio   # at another level

Frames are written under OUT/<design>/ as they are made (a stopped campaign
resumes: a seed whose frame is there is kept). Seeds start at --seed (default
0: apart from the seeds 1000 on that the recogniser's thresholds were set on).
Reported: per folder the full scores of ``bench recognize --json`` (face
accuracy per die, over rolls, no-roll recall and precision per die and per
frame, the confusion table, the worst frames), the recogniser's frames per
second (wall, median), and the renderer's CPU seconds per frame (the picture
alone, without the physics), as medians over the frames made in this run.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DESIGNS = {"standard": ("towers/standard", "tower"), "narrow": ("towers/narrow-tray", "tower"),
           "wheel": ("wheels/standard", "wheel")}


def _make(job) -> list[tuple[float, float]]:
    """Make the frames of some seeds; (physics CPU s, render CPU s) per frame made."""
    name, seeds, out, level = job
    from twin.camera.frames import Studio, save
    from twin.shipped import shipped_design
    path, kind = DESIGNS[name]
    if kind == "tower":
        from twin.tower import drop, load_design
    else:
        from twin.wheel import load_design, trace
    design = load_design(shipped_design(path, kind))
    studio = Studio(design, kind, level=level)
    folder = Path(out)
    times = []
    for seed in seeds:
        if (folder / f"{design.name}-{seed:06d}.json").exists():
            continue
        t0 = time.process_time()
        result = drop(design, seed) if kind == "tower" else trace(design, seed, record_every_s=float("inf"))
        t1 = time.process_time()
        frame = studio.rest_of_drop(result) if kind == "tower" else studio.rest_of_spin(result)
        t2 = time.process_time()
        save(frame, folder)
        times.append((t1 - t0, t2 - t1))
    studio.close()
    return times


def make_frames(name: str, count: int, first: int, out: Path, level: str, workers: int) -> dict:
    from twin.camera.frames import Studio, write_folder
    from twin.shipped import shipped_design
    path, kind = DESIGNS[name]
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    seeds = list(range(first, first + count))
    chunks = [seeds[i::workers * 4] for i in range(workers * 4)]
    started = time.monotonic()
    times = []
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for k, part in enumerate(pool.imap_unordered(_make, [(name, c, str(folder), level) for c in chunks])):
            times += part
            print(f"  {name}: {k + 1}/{len(chunks)} chunks", file=sys.stderr, flush=True)
    if kind == "tower":
        from twin.tower import load_design
    else:
        from twin.wheel import load_design
    studio = Studio(load_design(shipped_design(path, kind)), kind, level=level)
    counts = write_folder(studio, folder, [])        # the COCO file and calibration over every frame there
    studio.close()
    counts["wall_s"] = round(time.monotonic() - started, 1)
    if times:
        counts["made_now"] = len(times)
        counts["physics_cpu_s_median"] = round(statistics.median(t[0] for t in times), 4)
        counts["render_cpu_s_median"] = round(statistics.median(t[1] for t in times), 4)
        counts["render_frames_per_cpu_s"] = round(1 / statistics.median(t[1] for t in times), 2)
    return counts


def score(name: str, out: Path) -> dict:
    folder = out / name
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "bench.cli", "recognize", str(folder), "--recognizer", "reference",
                           "--json", "--no-progress", "--report", str(out / f"{name}.html"),
                           "--readings", str(out / f"{name}-readings.jsonl")],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode not in (0, 1):
        raise SystemExit(f"bench recognize failed on {folder}: {done.stderr}")
    # JSON Lines (docs/json.md): the scores are the "scores" line
    result = next(line for line in map(json.loads, done.stdout.splitlines()) if line["record"] == "scores")
    result["scoring_wall_s"] = round(time.monotonic() - started, 1)
    return result


def timing(out: Path, count: int, level: str = "default") -> dict:
    """CPU seconds a frame, one process: rendering (the picture alone, and
    PyBullet's ``getCameraImage`` within it: issue 42's ratio) and the
    reference recogniser's reading, over the first ``count`` frames of each
    folder, at ``level``."""
    from bench.vision.calibration import Calibration
    from bench.vision.reference import read_image
    from twin.camera.frames import Studio, read_labels
    from twin.physics_engine import pybullet as pb
    from twin.shipped import shipped_design
    figures = {}
    inner: list[float] = []
    original = pb.getCameraImage

    def timed(*args, **kwargs):
        t = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            inner.append(time.process_time() - t)
    pb.getCameraImage = timed
    for name, (path, kind) in DESIGNS.items():
        folder = out / name
        if not (folder / "calibration.json").exists():
            continue
        labels = [label for label in read_labels(folder) if label["moment"] == "rest"][:count]
        cal = Calibration.load(folder / "calibration.json")
        if kind == "tower":
            from twin.tower import drop, load_design
        else:
            from twin.wheel import load_design, trace
        design = load_design(shipped_design(path, kind))
        studio = Studio(design, kind, level=level)
        render, read, camera = [], [], []
        for label in labels:
            result = drop(design, label["seed"]) if kind == "tower" else \
                trace(design, label["seed"], record_every_s=float("inf"))
            inner.clear()
            t0 = time.process_time()
            frame = studio.rest_of_drop(result) if kind == "tower" else studio.rest_of_spin(result)
            t1 = time.process_time()
            camera.append(sum(inner))
            read_image(frame.image, cal)
            t2 = time.process_time()
            render.append(t1 - t0)
            read.append(t2 - t1)
        studio.close()
        figures[name] = {"frames": len(labels), "render_cpu_s_median": round(statistics.median(render), 4),
                         "read_cpu_s_median": round(statistics.median(read), 4),
                         "get_camera_image_cpu_s_median": round(statistics.median(camera), 4),
                         "render_over_get_camera_image": round(statistics.median(render) / statistics.median(camera), 2),
                         "render_frames_per_cpu_s": round(1 / statistics.median(render), 2),
                         "read_frames_per_cpu_s": round(1 / statistics.median(read), 2)}
        print(f"{name}: {figures[name]}", file=sys.stderr, flush=True)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--standard", type=int, default=600)
    parser.add_argument("--narrow", type=int, default=400)
    parser.add_argument("--wheel", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", default="default")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default="out/camera-bench")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--timing", type=int, metavar="N",
                        help="only time rendering and reading, CPU seconds, over N frames of each folder there")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.timing:
        print(json.dumps(timing(out, args.timing, args.level), indent=1, sort_keys=True))
        return 0
    report = {"level": args.level, "first_seed": args.seed, "folders": {}}
    for name in ("standard", "narrow", "wheel"):
        count = getattr(args, name)
        if count <= 0:
            continue
        print(f"{name}: {count} frames", file=sys.stderr, flush=True)
        made = make_frames(name, count, args.seed, out, args.level, args.workers)
        print(f"{name}: scoring", file=sys.stderr, flush=True)
        report["folders"][name] = {"frames": made, "scores": score(name, out)}
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=1, sort_keys=True))
    print(json.dumps(report, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
