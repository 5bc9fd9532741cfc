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
def wheel(tmp_path_factory) -> Path:
    """The wheel, built as a user builds it (``pip wheel .``)."""
    root = tmp_path_factory.mktemp("build")
    # Built from a copy: setuptools leaves build/ in the source tree, and a stale
    # build/ there would leak removed modules into later wheels.
    source = root / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "reports", "out", "*.egg-info", "__pycache__", ".hypothesis",
        ".twin-validate", ".pytest_cache"))
    wheels = root / "wheels"
    built = sh(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", wheels, source, cwd=root)
    assert built.returncode == 0, built.stderr[-2000:]
    # A clean build: the data folders are declared, so setuptools warns of nothing (issue 29).
    assert "Warning" not in built.stdout + built.stderr, (built.stdout + built.stderr)[-3000:]
    [found] = wheels.glob("tablebench-*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """The bin folder of a fresh virtual environment holding the built wheel,
    with a ``pytest`` command as pip would write it."""
    root = tmp_path_factory.mktemp("field")
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    [new_site] = env_dir.glob("lib/python*/site-packages")
    (new_site / "reused-packages.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    python = env_dir / "bin" / "python"
    done = sh(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--quiet", wheel, cwd=root)
    assert done.returncode == 0, done.stderr[-2000:]
    script = env_dir / "bin" / "pytest"
    script.write_text(f"#!{python}\nimport sys\nfrom pytest import console_main\nsys.exit(console_main())\n")
    script.chmod(0o755)
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


def test_the_wheel_holds_every_module_and_every_shipped_file(wheel):
    """Every design, submission, game file, feature file, shipped doc and
    module of bench, twin and tablebench_io is in the wheel (the package list
    in pyproject.toml is checked against the folders), and nothing of the test
    suite's own (invalid files, journals, tests, benchmarks)."""
    import zipfile
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {f"tablebench_fixtures/{kind}/{p.name}" for kind in ("towers", "wheels", "submissions", "games",
                                                                    "plans", "plans/profiles")      # bench certify's
               for p in (REPO / "fixtures" / kind).glob("*.yaml")}
    shipped |= {f"tablebench_features/{p.name}" for p in (REPO / "features").iterdir()
                if p.suffix in (".feature", ".py")}
    shipped |= {f"tablebench_docs/{p.name}" for p in (REPO / "docs").iterdir() if p.suffix in (".md", ".py")}
    shipped |= {str(p.relative_to(REPO)) for top in ("bench", "twin", "tablebench_io") for p in (REPO / top).rglob("*.py")}
    shipped |= {str(p.relative_to(REPO)) for p in (REPO / "bench" / "adapters" / "template").iterdir() if p.is_file()}
    shipped |= {f"tablebench_schemas/{p.name}" for p in (REPO / "schemas").glob("*.schema.json")}   # --json's schemas
    shipped |= {"bench/vision/learned.npz"}   # the learned recogniser's model (bench.vision.learned)
    shipped |= {str(p.relative_to(REPO)) for p in (REPO / "twin" / "camera" / "variations").glob("*.yaml")}  # levels
    shipped |= {"tablebench_pytest.py", "tablebench_fixtures/__init__.py",
                "tablebench_fixtures/staged-seeds.json",         # the staging catalogues (bench.play.staging)
                "tablebench_fixtures/paytables.yaml"}   # the paytables bench.rules and twin edge both read
    assert len(shipped) > 150 and not shipped - names, sorted(shipped - names)
    data = {n for n in names if not n.startswith("tablebench-") and not n.endswith(".py")}
    assert data <= shipped, sorted(data - shipped)
    assert not [n for n in names if "/invalid/" in n or "journals/" in n or n.startswith(("tests/", "benchmarks/"))]
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    from tablebench_io import __version__
    assert f"\nVersion: {__version__}\n" in metadata
    assert "Requires-Dist: pybullet" in metadata and "extra == \"twin\"" in metadata.split("Requires-Dist: pybullet")[1][:60]


def test_the_docs_travel_with_the_wheel(installed, tmp_path):
    listed = sh(installed / "bench", "docs", cwd=tmp_path)
    assert listed.returncode == 0 and "protocol" in listed.stdout and "controller-testing" in listed.stdout
    deadlines = sh(installed / "bench", "docs", "protocol", "11", cwd=tmp_path)
    assert deadlines.returncode == 0 and deadlines.stdout.startswith("## 11. Deadlines")
    assert "## 12." not in deadlines.stdout
    missing = sh(installed / "bench", "docs", "protocol", "99", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "11. Deadlines" in missing.stderr


def test_a_projects_own_bench_package_does_not_stand_in_for_tablebenchs(installed, tmp_path):
    """A vendor's repository with a ``bench/`` package of its own: the
    emulator (a child process) and the pytest plugin still run tablebench's,
    with the ``pytest`` command and with ``python -m pytest`` (which puts the
    working directory first on sys.path)."""
    project = tmp_path / "vendor"
    (project / "bench").mkdir(parents=True)
    (project / "bench" / "__init__.py").write_text('"""The vendor\'s own bench code."""\nVENDOR = True\n')
    run = sh(installed / "bench", "run", "--rounds", "2", "--plant", "dice", "--out", "S", "--no-progress",
             cwd=project)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert sh(installed / "bench", "features", ".", cwd=project).returncode == 0
    for command in ([installed / "pytest"], [installed / "python", "-m", "pytest"]):
        played = sh(*command, "test_sic_bo_on_controller.py", "-m", "625a.3.6", "--controller", "emulated", "-q",
                    cwd=project, timeout=600)
        assert played.returncode == 0, (command, played.stdout[-3000:], played.stderr[-2000:])
        assert " passed" in played.stdout


def blocking(tmp_path: Path, name: str, code: str) -> dict:
    """An environment whose Python runs ``code`` first (a sitecustomize on
    PYTHONPATH, inherited by child processes): to make modules unimportable."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(code)
    return {**{k: v for k, v in os.environ.items() if k != "PYTHONHOME"}, "PYTHONPATH": str(folder)}


def test_without_the_twin_extra_the_qa_install_works_and_the_twin_says_what_to_install(installed, tmp_path):
    """pip install tablebench without [twin]: no PyBullet (made unimportable
    here; SciPy is in the base install: the oracle's Lucky-draw statistics). bench run with the fair-dice plant, replay, the
    session report, the emulator and the pytest plugin work; what needs the
    twin says in one line which extra to install, exit status 2."""
    env = blocking(tmp_path, "no-twin", "import sys\nsys.modules.update(pybullet=None, ray=None)\n")

    def run(*args, timeout=300):
        return subprocess.run([str(a) for a in args], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=timeout)
    confirmed = run(installed / "python", "-c", "import pybullet")
    assert confirmed.returncode != 0
    dice = run(installed / "bench", "run", "--rounds", "3", "--plant", "dice", "--out", "D", "--no-progress")
    assert dice.returncode == 0, dice.stdout[-2000:] + dice.stderr[-2000:]
    assert (tmp_path / "D" / "report.html").stat().st_size > 0          # charts: matplotlib is in the base install
    head = (tmp_path / "D" / "session.head").read_text().strip()
    assert run(installed / "bench", "replay", tmp_path / "D" / "session.jsonl", "--head", head).returncode == 0
    for args in (("bench", "run", "--rounds", "1", "--out", "P"), ("twin", "drop", "standard"),
                 ("twin", "validate", "towers/standard", "--drops", "10")):
        refused = run(installed / args[0], *args[1:])
        assert refused.returncode == 2, (args, refused.stdout, refused.stderr)
        assert refused.stderr.count("\n") == 1 and "pip install 'tablebench[twin]'" in refused.stderr, refused.stderr
    assert run(installed / "bench", "features", "EXT").returncode == 0
    played = subprocess.run([str(installed / "pytest"), "test_lightning_dice_on_controller.py", "-m", "625b.2.d.5",
                             "--controller", "emulated", "-q"], cwd=tmp_path / "EXT", env=env, capture_output=True, text=True,
                            timeout=600)
    assert played.returncode == 0 and " passed" in played.stdout, played.stdout[-3000:] + played.stderr[-2000:]


def test_without_termios_tty_and_fcntl_bench_and_the_plugin_import_and_the_emulator_goes_over_tcp(installed,
                                                                                                tmp_path):
    """Where termios, tty and fcntl do not exist (Windows), importing bench,
    the pytest plugin and twin needs none of them (pyserial itself, whose
    package loads its POSIX backend on Linux, is imported only when a link is
    opened), and the emulated controller listens on TCP instead of a pty. To
    play over TCP here pyserial's POSIX backend is imported before the block:
    on Windows pyserial has its own."""
    bare = blocking(tmp_path, "no-posix-at-all", "import sys\n"
                                                 "sys.modules.update(termios=None, tty=None, fcntl=None, pty=None)\n")
    for module in ("termios", "fcntl", "serial"):
        refused = subprocess.run([str(installed / "python"), "-c", f"import {module}"], env=bare,
                                 capture_output=True, text=True, timeout=60)
        assert refused.returncode != 0, module        # the block holds, pyserial's POSIX backend included
    imported = subprocess.run(
        [str(installed / "python"), "-c", "import bench, bench.pytest_plugin, bench.steps, bench.scenarios.plugin, "
         "twin, twin.cli, twin.commandline, bench.cli, bench.session.runner, bench.protocol.link, bench.monitor"],
        cwd=tmp_path, env=bare, capture_output=True, text=True, timeout=120)
    assert imported.returncode == 0, imported.stderr
    env = blocking(tmp_path, "no-posix", "import sys\nimport serial, serial.serialposix\n"
                                         "sys.modules.update(termios=None, tty=None, fcntl=None, pty=None)\n")
    imported = subprocess.run(
        [str(installed / "python"), "-c",
         "import bench, bench.pytest_plugin, bench.steps, twin, twin.cli, bench.cli, bench.session.runner, "
         "bench.journal.keys, bench.session.out_folder, bench.conformance.suite\n"
         "from bench.emulator.process import default_listen\nprint(default_listen())"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == "127.0.0.1:0"
    assert subprocess.run([str(installed / "bench"), "features", "EXT"], cwd=tmp_path, env=env).returncode == 0
    played = subprocess.run([str(installed / "pytest"), "test_sic_bo_on_controller.py", "-m", "625a.3.6",
                             "--controller", "emulated", "-q"], cwd=tmp_path / "EXT", env=env, capture_output=True, text=True, timeout=600)
    assert played.returncode == 0 and " passed" in played.stdout, played.stdout[-3000:] + played.stderr[-2000:]
    logs = [p.read_text() for p in (tmp_path / "EXT" / "reports" / "controller").rglob("*.log")]
    assert logs and all("# controller socket://127.0.0.1:" in log for log in logs if "# controller " in log)
    assert any("# controller socket://127.0.0.1:" in log for log in logs)
