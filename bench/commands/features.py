"""``bench features DIR``: write the regulation scenarios into a folder of
the user's, ready for ``pytest --controller URL``."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

from tablebench_io.commandline import Exit
from tablebench_io.json_lines import JsonLines, add_json_option

ON_CONTROLLER = "_on_controller.py"
PYTEST_INI = """\
# Written by `bench features`: the regulation scenarios of tablebench
# (58 Pa. Code 625b.2, 625a.6, 617c.3; S.D. Admin. R. 20:18:33:14), played on a
# game controller by the tablebench pytest plugin:
#
#   pytest --controller emulated                     # the emulated controller
#   pytest --controller emulated:pay-on-no-roll      # one that breaks 625b.2(d)(5)
#   pytest --controller /dev/ttyUSB0 --controller-submission rules.yaml
#   pytest -m 625b.2.d.5                             # one clause's scenarios
#
# Scenarios of your own go in new .feature files beside these, bound by a
# test module like the test_*_on_controller.py here (from bench.steps import *).
[pytest]
addopts = -p no:cacheprovider
"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "features", help="write the regulation scenarios (Gherkin) into DIR for pytest --controller",
        description="Write the shipped regulation features (*.feature), a test module binding each to the "
                    "shipped step library, and a pytest.ini into DIR, so that 'cd DIR && pytest --controller "
                    "URL' plays them on a controller. Files already in DIR are kept unless --force. "
                    "Exit status: 0 written, 2 DIR cannot be written.")
    p.add_argument("dir", metavar="DIR", help="the folder to write into (made if missing)")
    p.add_argument("--force", action="store_true", help="overwrite files of the same name already in DIR")
    add_json_option(p, "features")       # a "file" line each (written or kept), then the verdict
    p.set_defaults(func=run)


def shipped_files() -> list[tuple[str, bytes]]:
    """(name, content) of every file a scenarios folder gets, pytest.ini last."""
    shipped = resources.files("tablebench_features")
    modules = sorted(entry.name for entry in shipped.iterdir()
                     if entry.name.startswith("test_") and entry.name.endswith(ON_CONTROLLER))
    # The features a module binds; the twin's own (tower, wheel) play on the physics, not on a controller.
    features = [name[len("test_"):-len(ON_CONTROLLER)] + ".feature" for name in modules]
    return [(name, (shipped / name).read_bytes()) for name in features + modules] + [("pytest.ini", PYTEST_INI.encode())]


def run(args) -> int:
    folder = Path(args.dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        written, kept = [], []
        for name, content in shipped_files():
            target = folder / name
            if target.exists() and not args.force:
                kept.append(name)
                continue
            target.write_bytes(content)
            written.append(name)
    except OSError as err:
        print(f"bench features: {args.dir}: cannot write: {err.strerror or err}", file=sys.stderr)
        return Exit.BAD_INPUT
    if args.json:
        lines = JsonLines("features")
        for name, _ in shipped_files():
            lines.write("file", name=name, path=str(folder / name), written=name in written)
        lines.verdict(passed=True, status=Exit.OK, folder=str(folder), written=len(written), kept=len(kept))
        return Exit.OK
    print(f"{len(written)} file(s) written to {folder}" + (f"; kept {len(kept)} already there "
                                                            f"(--force overwrites): {', '.join(kept)}" if kept else ""))
    print(f"next: cd {folder} && pytest --controller emulated   (or --controller URL --controller-submission FILE)")
    return Exit.OK
