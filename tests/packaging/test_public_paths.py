"""Names users were given keep working after a module moves: the pytest
plugin and the step library (``bench.pytest_plugin``, ``bench.steps``) and
the twin's shared helpers that issue 29 moved into ``tablebench_io``
(``twin.commandline.Exit`` was documented as the exit-status table), all
importable where termios, tty and fcntl do not exist (Windows)."""

import subprocess
import sys

OLD_PATHS = {
    "twin.commandline": ("tablebench_io.commandline", "Exit"),
    "twin.progress": ("tablebench_io.progress", "bar"),
    "twin.report_page": ("tablebench_io.report_page", "page"),
    "twin.charts": ("tablebench_io.charts", "svg_of"),
}


def test_moved_public_paths_still_import_without_posix_modules():
    lines = ["import sys", "sys.modules.update(termios=None, tty=None, fcntl=None, pty=None)",
             "import importlib, bench, twin, bench.pytest_plugin, bench.steps, twin.cli, bench.cli"]
    for old, (new, name) in OLD_PATHS.items():
        lines.append(f"assert importlib.import_module({old!r}).{name} is importlib.import_module({new!r}).{name}, "
                     f"{old!r}")
    done = subprocess.run([sys.executable, "-c", "\n".join(lines)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
