"""The descent's scatter of the wheels' campaigns, beside practitioners' figures.

    .venv/bin/python benchmarks/wheel_scatter.py [--spins N] [--designs NAME ...] [--svg DIR]

Reads the campaigns of ``benchmarks/wheel_campaigns.py`` (no physics is run):
for each design, how far the ball comes to rest from the pocket it first hit
(practitioners' scatter charts: "10 or so pockets"; one seller's example, 9
pockets with a 4,000 ms rotor and 24 with a 3,000 ms one) and how much the
pocket under the leaving point tells of the resting pocket (the concentration
of the offsets, with its 95% bootstrap interval), over all spins, by the
rotor's period and by where among the deflectors the ball left the track.
Prints Markdown tables (docs/wheel.md) and writes
``benchmarks/results/wheel_scatter.json``; ``--svg DIR`` also writes the
charts of docs/wheel.md there.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from wheel_campaigns import RESULTS, designs  # noqa: E402

from twin.validate.campaign import Plan, complete_lines, default_results_path  # noqa: E402
from twin.wheel import load_design  # noqa: E402
from twin.wheel.scatter import chart, scatter_groups  # noqa: E402


def records_of(path: Path, most: int | None) -> list[dict]:
    """The campaign's records for seeds 0, 1, ... as far as they run unbroken (at most ``most``)."""
    plan = Plan("wheel", str(path), path.read_text(encoding="utf-8"), 0, 1)
    lines = complete_lines(default_results_path(plan))
    by_seed = {}
    for line in lines[1:]:
        record = json.loads(line)
        by_seed[int(record["seed"])] = record
    out = []
    while len(out) in by_seed and (most is None or len(out) < most):
        out.append(by_seed[len(out)])
    return out


def table(groups, what: str) -> str:
    rows = [f"| {what} | spins | concentration (95%) | pockets past: median (quartiles) |",
            "| --- | --- | --- | --- |"]
    for g in groups:
        rows.append(f"| {g.label} | {g.spins} | {g.concentration:.3f} ({g.low:.3f}-{g.high:.3f}) | "
                    f"{g.median_past:g} ({g.quartiles[0]:g} to {g.quartiles[1]:g}) |")
    return "\n".join(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", nargs="+", default=None)
    parser.add_argument("--spins", type=int, default=None, help="at most this many spins of each (default: all run)")
    parser.add_argument("--svg", metavar="DIR", help="write the charts of docs/wheel.md here")
    args = parser.parse_args(argv)
    known = designs(RESULTS / "designs")
    names = args.designs or list(known)
    summary = {}
    for name in names:
        path = known[name]
        design = load_design(path)
        records = records_of(path, args.spins)
        if not records:
            print(f"{name}: no spins yet", file=sys.stderr)
            continue
        out = {"spins": len(records), "invalid": sum(not r["valid"] for r in records)}
        print(f"\n## {name}: {len(records)} spins ({out['invalid']} invalid)\n")
        for start, what in (("hit", "from the pocket first hit"), ("leave", "from the pocket under the leaving point")):
            for by in ("rotor", "place"):
                groups = scatter_groups(records, design, start, by)
                out[f"{start}_by_{by}"] = [g.to_json() for g in groups]
                print(f"### {what}, by {'rotor period' if by == 'rotor' else 'leaving place'}\n")
                print(table(groups, "group") + "\n")
                if args.svg and name == "standard" and by == "rotor":
                    folder = Path(args.svg)
                    folder.mkdir(parents=True, exist_ok=True)
                    (folder / f"wheel-scatter-{start}.svg").write_text(chart(groups, what), encoding="utf-8")
        summary[name] = out
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "wheel_scatter.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    sys.exit(main())
