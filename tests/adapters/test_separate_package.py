"""An adapter from a separately installed package is listed and used: the
template adapter (``bench adapters --template``) is built by pip as a
distribution of its own, installed into a folder of its own, and found only
through its ``tablebench.adapters`` entry point; then the bench lists it,
plays a session through it against the emulated controller speaking it (a
misbehaving one: every round played, the breach named by its clause), and
replays it.
A broken entry point is listed as broken and refused, not fatal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.json_schemas import json_record

ROOT = Path(__file__).resolve().parents[2]


def bench(*args, env, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.cli", *map(str, args)], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """PYTHONPATH holding the template adapter, pip-installed as its own distribution."""
    root = tmp_path_factory.mktemp("vendor")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    made = bench("adapters", "--template", root / "src", env=env, cwd=root)
    assert made.returncode == 0, made.stderr
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
                           root / "site", root / "src"], capture_output=True, text=True, timeout=300, cwd=root)
    assert done.returncode == 0, done.stderr[-2000:]
    assert list((root / "site").glob("tablebench_json_lines-*.dist-info"))
    return root, {**env, "PYTHONPATH": str(root / "site")}


def test_the_separately_installed_adapter_is_listed_with_its_distribution(installed):
    root, env = installed
    listed = bench("adapters", env=env, cwd=root)
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert names[0] == "tablebench" and {"ascii-sentence", "json-lines"} <= set(names)
    [line] = [line for line in listed.stdout.splitlines() if line.startswith("json-lines")]
    assert "tablebench-json-lines" in line and "0.1.0" in line
    without = bench("adapters", env={k: v for k, v in env.items() if k != "PYTHONPATH"}, cwd=root)
    assert "json-lines" not in without.stdout          # found through the installed package, nothing else


def test_a_session_is_played_and_judged_through_it(installed):
    root, env = installed
    bad = bench("run", "--adapter", "json-lines", "--rounds", "3", "--plant", "dice", "--seed", "4",
                "--misbehave", "five-lucky-numbers", "--out", root / "bad", "--json", env=env, cwd=root)
    assert bad.returncode == 1, bad.stdout[-2000:] + bad.stderr[-2000:]
    summary = json_record(bad.stdout, "run", "summary")
    assert summary["rounds"] == 3 and list(summary["violations_by_clause"]) == ["625b.2(d)(2)"]
    lines = (root / "bad" / "session.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["adapter"] == "json-lines"
    assert '\\"event\\":\\"placeBet\\"' in lines[1]          # the vendor's bytes are what the journal keeps
    again = bench("replay", root / "bad" / "session.jsonl", "--redecode", env=env, cwd=root)
    assert again.returncode == 1 and "625b.2(d)(2)" in again.stdout and "as the run had" in again.stdout


def test_a_broken_entry_point_is_listed_as_broken_and_refused(installed, tmp_path):
    _, env = installed
    dist = tmp_path / "broken" / "tablebench_broken-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tablebench-broken\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[tablebench.adapters]\nacme-wheel = acme_missing:Adapter\n")
    env = {**env, "PYTHONPATH": f"{tmp_path / 'broken'}{os.pathsep}{env['PYTHONPATH']}"}
    listed = bench("adapters", env=env, cwd=tmp_path)
    assert listed.returncode == 0
    [line] = [line for line in listed.stdout.splitlines() if line.startswith("acme-wheel")]
    assert "BROKEN" in line and "acme_missing" in line and "tablebench-broken" in line
    assert "json-lines" in listed.stdout                     # the others are still listed
    used = bench("run", "--adapter", "acme-wheel", "--rounds", "1", "--out", tmp_path / "o", env=env, cwd=tmp_path)
    assert used.returncode == 2 and "cannot be used" in used.stderr and len(used.stderr.strip().splitlines()) == 1
