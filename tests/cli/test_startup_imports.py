"""Start-up (issue 42.5, docs/performance.md): a command imports the heavy
libraries only where it uses them. ``bench --help`` builds the whole parser,
importing every sub-command's module (a named command registers only its own,
the last test here), so none of them may import charts (matplotlib), statistics
(SciPy), arrays (numpy), pictures (Pillow), physics (PyBullet) or the
archive's engines when it loads; and ``bench replay --json`` draws nothing
and judges the Lucky draw without SciPy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("matplotlib", "scipy", "numpy", "pybullet", "PIL", "pyarrow", "duckdb")

PROBE = """
import io, json, sys
from contextlib import redirect_stdout
heavy = {heavy!r}
loaded = lambda: sorted(m for m in heavy if m in sys.modules)
import bench.commands
from tablebench_io.commandline import build_parser
build_parser(bench.commands, "bench", "")
after_parsers = loaded()
from bench.cli import main
with redirect_stdout(io.StringIO()) as out:
    status = main(["replay", {journal!r}, "--json"])
verdict = json.loads(out.getvalue().splitlines()[-1])
print(json.dumps({{"parsers": after_parsers, "replay": loaded(), "status": status, "record": verdict["record"]}}))
"""


def test_no_bench_command_imports_charts_statistics_or_physics_to_start_and_replay_json_neither():
    journal = str(REPO / "fixtures" / "journals" / "schema1-lightning-dice.jsonl")
    done = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY, journal=journal)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["parsers"] == [], f"building the bench parser imported {seen['parsers']}"
    assert (seen["status"], seen["record"]) == (0, "verdict")          # the replay ran to its verdict
    assert seen["replay"] == [], f"bench replay --json imported {seen['replay']}"


def test_a_named_command_loads_only_its_own_module_and_help_still_lists_every_command():
    probe = ("import sys, bench.commands; from tablebench_io.commandline import build_parser; "
             "build_parser(bench.commands, 'bench', '', ['replay', 'x.jsonl', '--json']); "
             "print(sorted(m for m in sys.modules if m.startswith('bench.commands.')))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["['bench.commands.replay']"], done.stdout
    listed = subprocess.run([sys.executable, "-m", "bench.cli", "--help"], cwd=REPO, capture_output=True, text=True,
                            timeout=120)
    commands = sorted(p.stem for p in (REPO / "bench" / "commands").glob("*.py") if not p.stem.startswith("_"))
    assert listed.returncode == 0 and all(f"\n    {name}" in listed.stdout for name in commands), listed.stdout
