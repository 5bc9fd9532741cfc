"""tablebench as a user of another project gets it: built into a wheel,
installed into a fresh virtual environment outside this repository, and used
from directories that know nothing of it.

The fresh environment reuses the packages already installed for the test run
(a ``.pth`` line naming their folder: folders added that way do not run the
editable install's import hook), so that only tablebench itself comes from
the wheel. Everything runs with a temporary directory as the working
directory and this repository nowhere on ``sys.path``.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def sh(*args, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The bin folder of a fresh virtual environment holding the built wheel."""
    root = tmp_path_factory.mktemp("field")
    # Built from a copy: setuptools leaves build/ in the source tree, and a stale
    # build/ there would leak removed modules into later wheels.
    source = root / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "reports", "out", "*.egg-info", "__pycache__", ".hypothesis",
        ".twin-validate", ".pytest_cache"))
    wheels = root / "wheels"
    built = sh(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", wheels, source, cwd=root)
    assert built.returncode == 0, built.stderr[-2000:]
    [wheel] = wheels.glob("tablebench-*.whl")
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    [new_site] = env_dir.glob("lib/python*/site-packages")
    (new_site / "reused-packages.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    python = env_dir / "bin" / "python"
    done = sh(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--quiet", wheel, cwd=root)
    assert done.returncode == 0, done.stderr[-2000:]
    return env_dir / "bin"


def test_the_wheel_ships_bench_twin_and_the_data_but_not_the_benchmarks(installed, tmp_path):
    python = installed / "python"
    found = sh(python, "-c", "import bench, twin, tablebench_fixtures as f; "
                             "print(bench.__file__); print(f.names('tower'))", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert str(REPO) not in found.stdout and "site-packages" in found.stdout
    assert "standard" in found.stdout and "straight-chute" in found.stdout
    benchmarks = sh(python, "-c", "import benchmarks", cwd=tmp_path)
    assert benchmarks.returncode != 0 and "No module named 'benchmarks'" in benchmarks.stderr


def test_a_session_runs_and_replays_from_other_directories(installed, tmp_path):
    bench = installed / "bench"
    version = sh(bench, "--version", cwd=tmp_path)
    assert version.returncode == 0 and "tablebench" in version.stdout

    here, elsewhere = tmp_path / "studio", tmp_path / "regulator"
    here.mkdir(), elsewhere.mkdir()
    run = sh(bench, "run", "--rounds", "4", "--out", "S", "--seed", "11", cwd=here)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "pybullet build time" not in run.stdout + run.stderr
    journal = here / "S" / "session.jsonl"
    head = (here / "S" / "session.head").read_text().strip()

    # The regulator has the journal and its head, none of the studio's files.
    replayed = sh(bench, "replay", journal, "--head", head, "--round", "2", "--gif", "round2.gif", cwd=elsewhere)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "PASS" in replayed.stdout and "— the same" in replayed.stdout
    assert (elsewhere / "round2.gif").stat().st_size > 0
    # The session report, written from the journal alone where the studio's files are not.
    reported = sh(bench, "replay", journal, "--head", head, "--report", "R.html", cwd=elsewhere)
    assert reported.returncode == 0, reported.stdout + reported.stderr
    page = (elsewhere / "R.html").read_text(encoding="utf-8")
    assert 'data-verdict="pass"' in page and head in page and "data:image/svg+xml;base64," in page
    assert (here / "S" / "report.html").exists()

    drop = sh(installed / "twin", "drop", "standard", "--json", cwd=elsewhere)
    assert drop.returncode == 0, drop.stderr
    assert '"faces"' in drop.stdout and drop.stderr == ""


def test_the_wheel_declares_the_example_adapter_and_ships_the_template(installed, tmp_path):
    """The adapters are found by their entry points in the wheel's metadata,
    not in this repository; the template adapter is package data."""
    listed = sh(installed / "bench", "adapters", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()][:2] == ["tablebench", "ascii-sentence"]
    made = sh(installed / "bench", "adapters", "--template", "T", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "tablebench.adapters" in (tmp_path / "T" / "pyproject.toml").read_text()
    assert "class JsonLines(Adapter)" in (tmp_path / "T" / "tablebench_json_lines.py").read_text()


def test_the_shipped_scenarios_play_in_another_project(installed, tmp_path):
    written = sh(installed / "bench", "features", "EXT", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    ext = tmp_path / "EXT"
    python = installed / "python"
    compliant = sh(python, "-m", "pytest", "--controller", "emulated", "-q", cwd=ext, timeout=600)
    assert compliant.returncode == 0, compliant.stdout[-3000:] + compliant.stderr[-2000:]
    assert " passed" in compliant.stdout and "deselected" in compliant.stdout

    breaking = sh(python, "-m", "pytest", "test_lightning_dice_on_controller.py",
                  "--controller", "emulated:pay-on-no-roll", "-q", cwd=ext, timeout=600)
    assert breaking.returncode == 1, breaking.stdout[-3000:]
    assert "625b.2(d)(5)" in breaking.stdout
